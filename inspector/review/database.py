"""The review store's SQLite file: where it lives, its schema, and how it is opened safely.

Concurrency, as measured for this app (see the team notes on SQLite under Streamlit): WAL, a
5 s busy timeout, ``BEGIN IMMEDIATE`` for every write, and one connection per thread (and per
process), because Streamlit runs each script run on a new thread and a connection must never
cross threads. ``synchronous = NORMAL``: with WAL a committed answer survives the app or the
machine's process crashing, only a power cut can lose the last commits, and each click costs
well under a millisecond instead of an fsync. SQLite's errors become ``ReviewStoreError``
naming the file and what to do, so the page never shows a traceback. Kept apart from the
store's queries (``inspector.review.store``) so those read as what is stored, not how.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from ..data_folder import use_wal
from ..errors import ReviewStoreError

#: The store's file inside the data folder (``inspector.data_folder``).
STORE_NAME = "reviews.sqlite3"
SCHEMA_VERSION = 3
#: The schema that first kept every save of an answer (``answer_events``).
EVENTS_VERSION = 3
#: What an older store's answers become when it gains ``answer_events``: each one event, at its time.
COPY_ANSWERS_TO_EVENTS = ("INSERT INTO answer_events (round_id, chunk_id, position, reviewer, address, references_, "
                          "completeness, note, updated) SELECT round_id, chunk_id, position, reviewer, address, "
                          "references_, completeness, note, updated FROM answers")
#: The columns of an answer, in ``answers`` (one row a reviewer and chunk) and in ``answer_events``
#: (every save), on either database.
ANSWER_COLUMNS_SQL = """
    round_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    reviewer TEXT NOT NULL,
    address INTEGER CHECK (address IN (0, 1)),
    references_ INTEGER CHECK (references_ IN (0, 1)),
    completeness INTEGER CHECK (completeness IN (0, 1)),
    note TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL"""
_INHERITED: list[sqlite3.Connection] = []

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    id TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    chunk_ids TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS answers ({ANSWER_COLUMNS_SQL},
    PRIMARY KEY (round_id, chunk_id, reviewer)
);
CREATE INDEX IF NOT EXISTS answers_by_reviewer ON answers (round_id, reviewer, position);
CREATE TABLE IF NOT EXISTS answer_events ({ANSWER_COLUMNS_SQL}
);
CREATE INDEX IF NOT EXISTS answer_events_by_round ON answer_events (round_id, reviewer, chunk_id);
CREATE TABLE IF NOT EXISTS audit (
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{{}}'
);
"""


def store_path(data: str | os.PathLike) -> Path:
    """The store's file in the data folder ``data``."""
    return Path(data) / STORE_NAME


class ReviewDatabase:
    """One review store file, opened once per thread (and per process), checked for its
    schema, and written only in ``BEGIN IMMEDIATE`` transactions."""

    #: The column giving rows their insertion order.
    order = "rowid"

    def __init__(self, path: str | os.PathLike, *, busy_timeout_ms: int = 5000,
                 readonly: bool = False) -> None:
        self.path = Path(path)
        self.busy_timeout_ms = busy_timeout_ms
        self.readonly = readonly
        self._local = threading.local()
        self._connection()  # open now, so a bad path is reported before the first click

    # -- connections -------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        held = getattr(self._local, "held", None)
        if held is not None:
            if held[0] == os.getpid():
                return held[1]
            # Inherited through fork: never use it, and never close it either, because closing
            # a file in this process drops every POSIX lock this process holds on it.
            _INHERITED.append(held[1])
        connection = self._open()
        self._local.held = (os.getpid(), connection)
        return connection

    def _open(self) -> sqlite3.Connection:
        where = self.path.absolute()
        if not self.readonly:
            try:
                where.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ReviewStoreError(f"cannot create the folder for the review store {self.path}: "
                                       f"{exc.strerror or exc}") from exc
        elif not where.exists():
            raise ReviewStoreError(f"the review store {self.path} does not exist")
        uri = where.as_uri() + ("?mode=ro" if self.readonly else "?mode=rwc")
        with self._errors("open"):
            connection = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout_ms / 1000,
                                         isolation_level=None)
            try:
                connection.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
                connection.execute("PRAGMA synchronous = NORMAL")
                self._prepare(connection)
            except BaseException:
                connection.close()
                raise
        return connection

    def _prepare(self, connection: sqlite3.Connection) -> None:
        """Check the file is a store of a known version, creating the schema when new."""
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        version = None
        if "schema_version" in tables:
            version = connection.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version is not None and version > SCHEMA_VERSION:
                raise ReviewStoreError(f"the review store {self.path} was written by a newer version "
                                       f"(schema {version}; this one reads {SCHEMA_VERSION})")
            if version == SCHEMA_VERSION or (version is not None and self.readonly):
                if not self.readonly:
                    use_wal(connection, self.busy_timeout_ms / 1000)
                return  # an older store read only is read as it is; written, it gains the new tables
        elif tables - {"rounds", "answers", "audit", "answer_events"}:
            raise ReviewStoreError(f"{self.path} is an SQLite database but not a review store "
                                   f"(it holds other tables: {', '.join(sorted(tables)[:5])})")
        if self.readonly:
            raise ReviewStoreError(f"the review store {self.path} is empty and opened read-only")
        use_wal(connection, self.busy_timeout_ms / 1000)
        connection.execute("BEGIN IMMEDIATE")
        try:
            # One statement at a time: executescript would COMMIT before running.
            for statement in filter(str.strip, _SCHEMA.split(";")):
                connection.execute(statement)
            # Every statement above creates only what is missing: an older store gains the new tables.
            if "answers" in tables and (version is None or version < EVENTS_VERSION):
                connection.execute(COPY_ANSWERS_TO_EVENTS)
            connection.execute("INSERT INTO schema_version SELECT ? WHERE NOT EXISTS "
                               "(SELECT 1 FROM schema_version WHERE version >= ?)", (SCHEMA_VERSION, SCHEMA_VERSION))
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close this thread's connection (other threads' close when their threads end)."""
        held = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            if held[0] == os.getpid():
                held[1].close()
            else:
                _INHERITED.append(held[1])

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Turn SQLite's errors into ``ReviewStoreError`` naming the file and what to do."""
        try:
            yield
        except ReviewStoreError:
            raise
        except sqlite3.Error as exc:
            raise ReviewStoreError(self._explain(doing, exc)) from exc

    def _explain(self, doing: str, exc: sqlite3.Error) -> str:
        text = str(exc)
        saving = doing == "save"
        if "not a database" in text or "malformed" in text:
            return f"{self.path} is not a review store (the file is damaged or not an SQLite database)."
        if "readonly" in text or "read-only" in text:
            return (f"the review store {self.path} is read-only, so answers cannot be saved."
                    + (" This answer was not saved." if saving else ""))
        if "locked" in text or "busy" in text:
            return (f"the review store {self.path} is locked by another writer (waited "
                    f"{self.busy_timeout_ms / 1000:g} s)."
                    + (" This answer was not saved; try again." if saving else ""))
        if "unable to open" in text:
            return f"cannot open the review store {self.path}: check that the file and its folder can be written."
        return f"the review store {self.path} failed to {doing}: {text}." + (" Nothing was saved." if saving else "")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken with ``BEGIN IMMEDIATE`` so writers queue, not fail."""
        with self._errors("save"):
            connection = self._connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise

    def _read(self, sql: str, args: Sequence = ()) -> list[tuple]:
        with self._errors("read"):
            return self._connection().execute(sql, args).fetchall()
