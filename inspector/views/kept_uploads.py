"""Uploaded or pasted documents kept on the server, so that a link to a round drawn on them opens
for colleagues: each set of files in a folder of its own under the data folder's ``uploads``,
named by a digest of the files, which every visitor may open as a corpus (as the folder the
server was started on). Keeping them is an admin's decision (``access.Action.KEEP_UPLOADS``)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

#: The data folder's subfolder holding kept uploads.
KEPT = "uploads"


def kept_root(data: str | os.PathLike) -> Path:
    """Where kept uploads live."""
    return Path(data) / KEPT


def is_kept(path: str, data: str | os.PathLike) -> bool:
    """Whether the folder ``path`` is one of the kept uploads (resolved, so ``..`` cannot climb out)."""
    root = os.path.realpath(kept_root(data))
    real = os.path.realpath(path)
    return real.startswith(root.rstrip(os.sep) + os.sep)


def keep_uploads(items: Sequence[tuple[str, bytes]], data: str | os.PathLike) -> Path:
    """Write the ``(name, bytes)`` files into their own folder under ``kept_root(data)`` (the same
    files always in the same folder) and return it. A name is kept as its last path part; one that
    would be hidden or empty is refused with ``ValueError``."""
    digest = hashlib.sha256()
    for name, blob in sorted(items):
        digest.update(name.encode("utf-8", "surrogatepass") + b"\0" + hashlib.sha256(blob).digest())
    folder = kept_root(data) / digest.hexdigest()[:16]
    names = []
    for name, _ in items:
        base = Path(name.replace("\\", "/")).name
        if not base or base.startswith(".") or "\0" in base:
            raise ValueError(f"{name[:60]!r} cannot be a file name on the server")
        names.append(base)
    if len(set(names)) != len(names):
        raise ValueError("two uploads share a name; rename one to keep them on the server")
    folder.mkdir(parents=True, exist_ok=True)
    for base, (_, blob) in zip(names, items):
        (folder / base).write_bytes(blob)
    return folder
