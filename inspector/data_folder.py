"""Where the server keeps what users leave behind: the review store, the chunk sets and the
embedding cache.

One folder, named by ``$CHUNK_INSPECTOR_DATA`` (else the user's data directory, as the system
keeps it: ``~/.local/share/chunk-inspector`` on Linux), so a team's answers, imported chunk sets
and embedded vectors sit side by side and move together, and no command fills the folder it is
run from.
Its stores are SQLite files in write-ahead-log mode, which several processes open at once
(``use_wal``). Every value a store keeps is sealed with a digest of its key and itself
(``sealed``): a value damaged on disk, or moved to another row, fails its seal when read and is
computed again (``damaged`` counts them, for a note), never used.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

#: Environment variable naming the data folder.
ENV_DATA = "CHUNK_INSPECTOR_DATA"


def default_folder() -> Path:
    """The folder used when the variable is unset or empty: the user's data directory."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("chunk-inspector", appauthor=False))


def data_folder(environ: Mapping[str, str] | None = None) -> Path:
    """``$CHUNK_INSPECTOR_DATA``, else ``default_folder()``."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(ENV_DATA) or default_folder())


def first_use_note(environ: Mapping[str, str] | None = None) -> str | None:
    """What to say the first time the default folder is used (None: it is named, or already there)."""
    environ = os.environ if environ is None else environ
    if environ.get(ENV_DATA) or default_folder().exists():
        return None
    return (f"note: Chunk Inspector keeps what it measures in {default_folder()} ({ENV_DATA} names another "
            "folder)")


def document_hash(text: str) -> str:
    """What a document's kept values are known by: 32 hex digits of BLAKE2b over its text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def use_wal(connection, wait: float = 30.0) -> None:
    """Put a SQLite connection's database in write-ahead-log mode. Changing the journal mode
    takes a lock that SQLite's busy timeout does not always wait for, so processes opening a new
    store at once could fail; each waits up to ``wait`` seconds instead."""
    import sqlite3  # loaded with the first store, not when the engine is imported

    deadline = time.monotonic() + wait
    while True:
        try:
            if connection.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def open_store(path: Path, *schema: str):
    """A connection to the SQLite store at ``path`` (its folder made, write-ahead log on), each
    ``schema`` statement (``CREATE TABLE IF NOT EXISTS …``) run first."""
    import sqlite3

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=30)
    use_wal(connection)
    for statement in schema:
        connection.execute(statement)
    return connection


def drop_oldest(connection, table: str, max_bytes: int) -> None:
    """Past ``max_bytes`` of pages in use, delete the older half of ``table``'s rows (by its
    ``written`` column, a time): a cache that only saves time stays bounded. Free pages of
    deleted rows are reused, so the file stops growing rather than shrinks."""
    pages, free, size = (connection.execute(f"PRAGMA {name}").fetchone()[0]
                         for name in ("page_count", "freelist_count", "page_size"))
    if (pages - free) * size > max_bytes:
        connection.execute(f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} ORDER BY written "
                           f"LIMIT (SELECT COUNT(*) / 2 FROM {table}))")


def rows_by_key(connection, table: str, keys: Sequence[str], batch: int = 500) -> Iterator[tuple[int, dict]]:
    """``(first, found)`` for each run of ``batch`` keys from ``keys[first]``: ``found`` maps each
    of them ``table`` has (column ``key``) to its ``plain`` column. A run at a time, so the raw
    rows of a whole corpus are never held at once."""
    for first in range(0, len(keys), batch):
        part = keys[first:first + batch]
        marks = ",".join("?" * len(part))
        yield first, dict(connection.execute(f"SELECT key, plain FROM {table} WHERE key IN ({marks})", part))


#: Bytes of the seal at the end of a stored value.
SEAL_BYTES = 16
_DAMAGED: Counter = Counter()
_DAMAGED_LOCK = threading.Lock()


def seal_of(key: str, value: bytes) -> bytes:
    """A digest of ``key`` (the row a value belongs to) and of ``value``."""
    named = key.encode("utf-8", "surrogatepass")
    digest = hashlib.blake2b(len(named).to_bytes(8, "little") + named, digest_size=SEAL_BYTES)
    digest.update(value)
    return digest.digest()


def seal_holds(key: str, value: bytes, seal, store: str) -> bool:
    """Whether ``seal`` is ``seal_of(key, value)``; a row where it is not is counted as a
    damaged row of ``store``."""
    if seal is not None and hmac.compare_digest(bytes(seal), seal_of(key, value)):
        return True
    with _DAMAGED_LOCK:
        _DAMAGED[store] += 1
    return False


def sealed(key: str, value: bytes) -> bytes:
    """``value`` with its seal after it."""
    return bytes(value) + seal_of(key, value)


def unsealed(key: str, stored, store: str) -> bytes | None:
    """The value ``sealed(key, value)`` stored, or None when the seal does not hold (damaged, or
    moved from another key): counted as a damaged row of ``store``."""
    stored = bytes(stored)
    value = stored[:-SEAL_BYTES]
    return value if len(stored) >= SEAL_BYTES and seal_holds(key, value, stored[-SEAL_BYTES:], store) else None


def damaged() -> dict[str, int]:
    """The damaged rows this process found so far, by store (their values were computed again)."""
    with _DAMAGED_LOCK:
        return dict(_DAMAGED)
