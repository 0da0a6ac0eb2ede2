"""A store's folder (or Milvus Lite's file) copied where only this process writes, so that a
client that writes to what it opens never touches the user's store.

Qdrant's local mode takes a lock file in the folder, Milvus Lite runs a server that opens its
file for writing, and Chroma's client writes to ``chroma.sqlite3`` when it searches: none has a
read-only mode (each fails on a read-only mount). Each is therefore
opened on a private copy in a temporary folder, removed when the reader is closed or the process
ends, so every file of the user's store stays byte-identical and a store on a read-only mount
reads the same. The copy is bounded: a store larger than ``limits.MAX_STORE_COPY_BYTES``, or than
the temporary folder's free space, is refused with the reason before anything is copied. Links
inside a store folder are not copied: a client writing through one (a ``.lock`` pointing
elsewhere) would write outside the copy, and following one would copy files from anywhere.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import weakref
from dataclasses import replace
from pathlib import Path

from ..errors import StoreError
from ..limits import MAX_STORE_COPY_BYTES
from .address import StoreAddress

#: Free space the temporary folder keeps beyond a copy.
SPARE_BYTES = 200_000_000
#: Stores whose readers write nothing: PostgreSQL in a read-only transaction, LanceDB (its client
#: only reads a table's manifests and fragments to scan or search it).
READ_ONLY_KINDS = ("postgresql", "lancedb")
#: The copies this process holds (a reader opened on one does not copy it again).
_LIVE: set[str] = set()


def store_bytes(path: Path) -> int:
    """The bytes of every file of a store folder (or of the file itself); links are not followed."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


class PrivateCopy:
    """A copy of ``address``'s folder or file; ``address`` names the copy. ``close`` removes it
    (and so does the end of the process, or the copy's being forgotten)."""

    def __init__(self, address: StoreAddress, limit: int = MAX_STORE_COPY_BYTES) -> None:
        source = Path(address.location)
        size = store_bytes(source)
        folder = Path(tempfile.gettempdir())
        free = shutil.disk_usage(folder).free
        if size > limit or size + SPARE_BYTES > free:
            raise StoreError(
                f"cannot read {address.label}: its client writes to the folder it opens, so it is read from a private "
                f"copy, and its {size / 1e6:,.0f} MB are over "
                + (f"the {limit / 1e6:,.0f} MB such a copy may take" if size > limit else
                   f"the {free / 1e6:,.0f} MB free in {folder}")
                + "; read it through its server instead (KIND+http://HOST:PORT)")
        self.folder = tempfile.mkdtemp(prefix="chunk-inspector-store-")
        target = Path(self.folder) / (source.name or "store")
        self._removal = weakref.finalize(self, _remove, self.folder, str(target), os.getpid())
        try:
            if source.is_file():
                shutil.copy2(source, target)
            else:
                shutil.copytree(source, target, ignore=_links)
        except OSError as exc:
            self.close()
            raise StoreError(f"cannot read {address.label}: copying it failed: {exc.strerror or exc}") from None
        _LIVE.add(str(target))
        self.address = replace(address, location=str(target))

    def close(self) -> None:
        self._removal()


def _links(folder: str, names: list[str]) -> list[str]:
    return [name for name in names if os.path.islink(os.path.join(folder, name))]


def _remove(folder: str, target: str, owner: int) -> None:
    if os.getpid() != owner:
        return  # a forked worker ending: the copy is its parent's
    _LIVE.difference_update({p for p in _LIVE if p.startswith(folder + os.sep)})
    _stop_lite_server(target)
    shutil.rmtree(folder, ignore_errors=True)


def _stop_lite_server(location: str) -> None:
    """Milvus Lite serves a file from threads of this process, left running when its client
    closes, and writes the file's data back when the process exits: stopped before its copy goes,
    or that last write makes the copy anew, left in the temporary folder for good."""
    lite = sys.modules.get("milvus_lite.server_manager")  # loaded only by a client that opened a file
    if lite is not None:
        lite.server_manager_instance.release_server(location)


def private(address: StoreAddress) -> tuple[StoreAddress, PrivateCopy | None]:
    """The address a client may open: a private copy of a local store's folder (with the copy,
    which its reader closes), or the address itself for a server or a copy already made."""
    if address.served or address.kind in READ_ONLY_KINDS or address.location in _LIVE:
        return address, None
    copy = PrivateCopy(address)
    return copy.address, copy
