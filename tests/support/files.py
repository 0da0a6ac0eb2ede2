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


def swap_in(path, data: bytes):
    """Put ``data`` at ``path`` as a new file (a new inode), not by overwriting the old one.

    A SQLite connection still open on the old file checkpoints its write-ahead log into it when
    it closes; overwriting in place would let that checkpoint undo the damage a test meant to do.
    """
    staged = path.with_name(path.name + ".staged")
    staged.write_bytes(data)
    staged.replace(path)
    return path
