"""Where the server keeps what users leave behind: the review store, the chunk sets and the
embedding cache.

One folder, named by ``$CHUNK_INSPECTOR_DATA`` (else ``data/`` in the working folder), so a
team's answers, imported chunk sets and embedded vectors sit side by side and move together.
Its stores are SQLite files in write-ahead-log mode, which several processes open at once
(``use_wal``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

#: Environment variable naming the data folder.
ENV_DATA = "CHUNK_INSPECTOR_DATA"
#: The folder used when the variable is unset or empty (relative to the working folder).
DEFAULT_FOLDER = "data"


def data_folder(environ: Mapping[str, str] | None = None) -> Path:
    """``$CHUNK_INSPECTOR_DATA``, else ``data``."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(ENV_DATA) or DEFAULT_FOLDER)


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
