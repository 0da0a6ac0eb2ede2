"""Writing test corpora to disk, and reading back what a load skipped."""

from __future__ import annotations


def write(root, rel, data):
    """Write bytes or text (as UTF-8, newlines untouched) at root/rel, creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def reasons(corpus):
    return {s.path: s.reason for s in corpus.skipped}
