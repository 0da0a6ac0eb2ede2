"""The review store on PostgreSQL, for a team running several app replicas behind one address:
``CHUNK_INSPECTOR_DATABASE_URL=postgresql://USER@HOST/DB`` (the password from
``CHUNK_INSPECTOR_DATABASE_PASSWORD`` or libpq's ``PGPASSWORD``; an address holding one is
refused). The same tables and queries as the SQLite file (``database``), each write one
transaction holding a lock every writer takes, so writers queue as SQLite's ``BEGIN IMMEDIATE``
makes them, and one connection per thread and process."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Self
from urllib.parse import urlsplit

from ..errors import ReviewStoreError
from ..extras import install_hint
from .database import ANSWER_COLUMNS_SQL, COPY_ANSWERS_TO_EVENTS, EVENTS_VERSION, SCHEMA_VERSION

#: Environment variables naming the database and its password.
ENV_URL, ENV_PASSWORD = "CHUNK_INSPECTOR_DATABASE_URL", "CHUNK_INSPECTOR_DATABASE_PASSWORD"
#: The advisory lock every write takes (any number the app's other locks do not use).
WRITE_LOCK = 7_430_001

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    id TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    chunk_ids TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL,
    seq BIGSERIAL
);
CREATE TABLE IF NOT EXISTS answers ({ANSWER_COLUMNS_SQL},
    PRIMARY KEY (round_id, chunk_id, reviewer)
);
CREATE INDEX IF NOT EXISTS answers_by_reviewer ON answers (round_id, reviewer, position);
CREATE TABLE IF NOT EXISTS answer_events ({ANSWER_COLUMNS_SQL},
    seq BIGSERIAL
);
CREATE INDEX IF NOT EXISTS answer_events_by_round ON answer_events (round_id, reviewer, chunk_id);
CREATE TABLE IF NOT EXISTS audit (
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '{{}}',
    seq BIGSERIAL
)
"""


def database_url(environ: Mapping[str, str] | None = None) -> str:
    """``CHUNK_INSPECTOR_DATABASE_URL`` (empty: the SQLite file in the data folder)."""
    return (os.environ if environ is None else environ).get(ENV_URL, "").strip()


def _psycopg():
    """psycopg, or a ``ReviewStoreError`` saying which extra installs it."""
    try:
        import psycopg
    except ImportError:
        raise ReviewStoreError(f"{ENV_URL} names a PostgreSQL database, which needs psycopg: "
                               f"{install_hint('postgres')}") from None
    return psycopg


class _Statements:
    """A connection whose statements are written with ``?`` as SQLite's are (psycopg takes ``%s``)."""

    def __init__(self, connection) -> None:
        self.connection = connection

    def execute(self, sql: str, args: Sequence = ()):
        return self.connection.execute(sql.replace("?", "%s"), tuple(args))


class _Held(threading.local):
    """This thread's connection and the process that opened it (a forked child opens its own)."""

    held: tuple[int, object] | None = None


class PostgresDatabase:
    """The review store's tables in a PostgreSQL database; share the object, never a connection."""

    #: The column giving rows their insertion order (SQLite's ``rowid``).
    order = "seq"

    def __init__(self, url: str, *, password: str | None = None, connect_timeout: int = 20) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
            raise ReviewStoreError(f"{ENV_URL} must be postgresql://USER@HOST/DB, not {url[:60]!r}")
        if parts.password:
            raise ReviewStoreError(f"{ENV_URL} must not hold a password; give it in {ENV_PASSWORD} or PGPASSWORD")
        self.url, self.path = url, url  # ``path`` is what messages name
        self.options = {"host": parts.hostname, "dbname": parts.path.lstrip("/") or None,
                        "connect_timeout": connect_timeout}
        self.options.update((k, v) for k, v in (("port", parts.port), ("user", parts.username),
                                                ("password", password)) if v)
        self._local = _Held()
        self._connection()  # open now, so a bad address is reported before the first click

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Self:
        environ = os.environ if environ is None else environ
        return cls(database_url(environ), password=environ.get(ENV_PASSWORD) or None)

    def _connection(self):
        held = self._local.held
        if held is not None and held[0] == os.getpid() and not held[1].closed:
            return held[1]
        psycopg = _psycopg()
        try:
            connection = psycopg.connect(**self.options, autocommit=True)
        except psycopg.Error as exc:
            raise ReviewStoreError(f"cannot connect to the review store {self.path}: {exc}".strip()) from None
        with self._errors("open"):
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    connection.execute(statement)
                version = connection.execute("SELECT max(version) FROM schema_version").fetchone()[0]
                if version is not None and version > SCHEMA_VERSION:
                    raise ReviewStoreError(f"the review store {self.path} was written by a newer version "
                                           f"(schema {version}; this one reads {SCHEMA_VERSION})")
                if version is None or version < SCHEMA_VERSION:
                    if version is not None and version < EVENTS_VERSION:  # each answer so far, one event
                        connection.execute(COPY_ANSWERS_TO_EVENTS)
                    connection.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
        self._local.held = (os.getpid(), connection)
        return connection

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        psycopg = _psycopg()
        try:
            yield
        except ReviewStoreError:
            raise
        except psycopg.Error as exc:
            saving = " Nothing was saved; try again." if doing == "save" else ""
            raise ReviewStoreError(f"the review store {self.path} failed to {doing}: "
                                   f"{str(exc).strip() or type(exc).__name__}.{saving}") from exc

    @contextmanager
    def _write(self) -> Iterator[_Statements]:
        """One write transaction, holding the lock every writer takes, so writers queue."""
        with self._errors("save"):
            connection = self._connection()
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                yield _Statements(connection)

    def _read(self, sql: str, args: Sequence = ()) -> list[tuple]:
        with self._errors("read"):
            return _Statements(self._connection()).execute(sql, args).fetchall()

    def close(self) -> None:
        """Close this thread's connection (other threads' close when their threads end)."""
        held = self._local.held
        self._local.held = None
        if held is not None and held[0] == os.getpid():
            held[1].close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
