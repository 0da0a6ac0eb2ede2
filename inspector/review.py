"""The review store: Orphan Test rounds and answers in one SQLite file, safe for a team.

Every click is saved at once (an upsert keyed by round, chunk and reviewer) and a save that
did not reach the disk raises ``ReviewStoreError``, so the page can say the click was lost
and let the reviewer retry; nothing fails silently. Concurrency, as measured for this app
(see the team notes on SQLite under Streamlit): WAL, a 5 s busy timeout, ``BEGIN
IMMEDIATE`` for every write, and one connection per thread (and per process), because
Streamlit runs each script run on a new thread and a connection must never cross threads.
``synchronous = NORMAL``: with WAL a committed answer survives the app or the machine's
process crashing, only a power cut can lose the last commits, and each click costs well
under a millisecond instead of an fsync. Pure Python.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from .errors import ReviewStoreError
from .orphans import QUESTIONS, ReviewRound, clean_reviewer

#: Environment variable naming the data folder; the store is ``reviews.sqlite3`` inside it.
ENV_DATA = "CHUNK_INSPECTOR_DATA"
STORE_NAME = "reviews.sqlite3"
SCHEMA_VERSION = 1
_UNSET = object()
_INHERITED: list[sqlite3.Connection] = []

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rounds (
    id TEXT PRIMARY KEY,
    definition TEXT NOT NULL,
    chunk_ids TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    round_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    reviewer TEXT NOT NULL,
    address INTEGER CHECK (address IN (0, 1)),
    references_ INTEGER CHECK (references_ IN (0, 1)),
    completeness INTEGER CHECK (completeness IN (0, 1)),
    note TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL,
    PRIMARY KEY (round_id, chunk_id, reviewer)
);
CREATE INDEX IF NOT EXISTS answers_by_reviewer ON answers (round_id, reviewer, position);
"""
_COLUMNS = {"address": "address", "references": "references_", "completeness": "completeness"}


def default_store_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$CHUNK_INSPECTOR_DATA/reviews.sqlite3``, else ``data/reviews.sqlite3`` in the working folder."""
    environ = os.environ if environ is None else environ
    folder = environ.get(ENV_DATA) or "data"
    return Path(folder) / STORE_NAME


@dataclass(frozen=True, slots=True)
class Answer:
    """One reviewer's answers for one chunk of a round (``None``: not answered yet)."""

    round_id: str
    """The round's id."""

    chunk_id: str
    """``Chunk.id`` of the chunk judged."""

    position: int
    """1-based place of the chunk in the round."""

    reviewer: str
    """Who answered (trimmed)."""

    address: bool | None
    """Can you tell the document, product and version?"""

    references: bool | None
    """Does every it / this / the above resolve inside the chunk?"""

    completeness: bool | None
    """Does every rule, number or table row carry its condition, subject and headers?"""

    note: str
    """Free text, possibly empty. Untrusted: escape it before rendering."""

    updated: str
    """When the row last changed, ISO 8601 in UTC."""

    @property
    def complete(self) -> bool:
        """All three questions answered."""
        return None not in (self.address, self.references, self.completeness)

    @property
    def orphan(self) -> bool | None:
        """True on any "no", False on three "yes", None while undecided."""
        values = (self.address, self.references, self.completeness)
        if False in values:
            return True
        return False if self.complete else None

    def to_dict(self) -> dict:
        """JSON-ready values, with the orphan verdict."""
        return {**asdict(self), "orphan": self.orphan}


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round as the store keeps it."""

    round: ReviewRound
    """The definition."""

    chunk_ids: tuple[str, ...]
    """The chunk ids shown, in order (empty when saved without them)."""

    created: str
    """When it was first saved, ISO 8601 in UTC."""

    @property
    def id(self) -> str:
        """The round's id."""
        return self.round.id

    @property
    def total(self) -> int:
        """Chunks in the round: the saved list's length, else the definition's size."""
        return len(self.chunk_ids) or self.round.size


class ReviewStore:
    """Rounds and answers in one SQLite file; share the object freely, never a connection."""

    def __init__(self, path: str | os.PathLike | None = None, *, busy_timeout_ms: int = 5000,
                 readonly: bool = False) -> None:
        self.path = Path(default_store_path() if path is None else path)
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
        if "schema_version" in tables:
            version = connection.execute("SELECT max(version) FROM schema_version").fetchone()[0]
            if version is not None and version > SCHEMA_VERSION:
                raise ReviewStoreError(f"the review store {self.path} was written by a newer version "
                                       f"(schema {version}; this one reads {SCHEMA_VERSION})")
            if version == SCHEMA_VERSION:
                if not self.readonly:
                    self._wal(connection)
                return
        elif tables - {"rounds", "answers"}:
            raise ReviewStoreError(f"{self.path} is an SQLite database but not a review store "
                                   f"(it holds other tables: {', '.join(sorted(tables)[:5])})")
        if self.readonly:
            raise ReviewStoreError(f"the review store {self.path} is empty and opened read-only")
        self._wal(connection)
        connection.execute("BEGIN IMMEDIATE")
        try:
            # One statement at a time: executescript would COMMIT before running.
            for statement in filter(str.strip, _SCHEMA.split(";")):
                connection.execute(statement)
            connection.execute("INSERT INTO schema_version SELECT ? WHERE NOT EXISTS "
                               "(SELECT 1 FROM schema_version)", (SCHEMA_VERSION,))
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    def _wal(self, connection: sqlite3.Connection) -> None:
        # Switching to WAL takes a lock the busy handler does not always wait for; retry briefly.
        deadline = time.monotonic() + self.busy_timeout_ms / 1000
        while True:
            try:
                if connection.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def close(self) -> None:
        """Close this thread's connection (other threads' close when their threads end)."""
        held = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            if held[0] == os.getpid():
                held[1].close()
            else:
                _INHERITED.append(held[1])

    def __enter__(self) -> "ReviewStore":
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

    # -- rounds ------------------------------------------------------------------------

    def save_round(self, review_round: ReviewRound, chunk_ids: Sequence[str] = ()) -> StoredRound:
        """Record a round (idempotent: saving it again keeps its creation time and chunks, and
        only fills in the chunk ids when none were saved)."""
        definition = json.dumps(review_round.to_dict(), sort_keys=True)
        with self._write() as connection:
            connection.execute("INSERT INTO rounds (id, definition, chunk_ids, created) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT (id) DO UPDATE SET chunk_ids = excluded.chunk_ids "
                               "WHERE rounds.chunk_ids = '[]' AND excluded.chunk_ids != '[]'",
                               (review_round.id, definition, json.dumps(list(chunk_ids)), _now()))
        found = self.get_round(review_round.id)
        assert found is not None
        return found

    def get_round(self, round_id: str) -> StoredRound | None:
        """The stored round with this id, or None."""
        rows = self._read("SELECT definition, chunk_ids, created FROM rounds WHERE id = ?", (round_id,))
        return _stored(rows[0]) if rows else None

    def rounds(self, corpus_fingerprint: str | None = None) -> list[StoredRound]:
        """Stored rounds, oldest first, optionally only those over one corpus."""
        rows = self._read("SELECT definition, chunk_ids, created FROM rounds ORDER BY created, rowid")
        found = [_stored(row) for row in rows]
        return [r for r in found if corpus_fingerprint is None or r.round.corpus == corpus_fingerprint]

    # -- answers -----------------------------------------------------------------------

    def save_answer(self, round_id: str, chunk_id: str, position: int, reviewer: str, *,
                    address=_UNSET, references=_UNSET, completeness=_UNSET, note=_UNSET) -> Answer:
        """Upsert one reviewer's answer for one chunk; only the fields given change.

        Call it on every click. Raises ``ReviewInputError`` for a bad name or value and
        ``ReviewStoreError`` when the answer could not be stored (read-only, locked, damaged).
        """
        reviewer = clean_reviewer(reviewer)
        if not isinstance(position, int) or isinstance(position, bool) or position < 1:
            raise ValueError(f"position must be a whole number from 1, got {position!r}")
        given = {}
        for key, value in (("address", address), ("references", references), ("completeness", completeness)):
            if value is not _UNSET:
                if value not in (True, False, None):
                    raise ValueError(f"{key} must be yes (True), no (False) or unanswered (None), got {value!r}")
                given[_COLUMNS[key]] = None if value is None else int(value)
        if note is not _UNSET:
            given["note"] = "" if note is None else str(note)
        stamp = _now()
        columns = ["round_id", "chunk_id", "position", "reviewer", *given, "updated"]
        values = [round_id, chunk_id, position, reviewer, *given.values(), stamp]
        updates = ", ".join(f"{c} = excluded.{c}" for c in ["position", *given, "updated"])
        with self._write() as connection:
            connection.execute(f"INSERT INTO answers ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))}) "
                               f"ON CONFLICT (round_id, chunk_id, reviewer) DO UPDATE SET {updates}", values)
            row = connection.execute(f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND chunk_id = ? "
                                     "AND reviewer = ?", (round_id, chunk_id, reviewer)).fetchone()
        return _answer(row)

    def answers(self, round_id: str, reviewer: str | None = None) -> list[Answer]:
        """A round's answers ordered by position then reviewer, optionally one reviewer's."""
        sql = f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE round_id = ?"
        args: list = [round_id]
        if reviewer is not None:
            sql += " AND reviewer = ?"
            args.append(reviewer.strip())
        return [_answer(row) for row in self._read(sql + " ORDER BY position, reviewer", args)]

    def reviewers(self, round_id: str) -> list[str]:
        """Everyone who answered in the round, sorted."""
        return [r[0] for r in self._read("SELECT DISTINCT reviewer FROM answers WHERE round_id = ? "
                                         "ORDER BY reviewer", (round_id,))]

    def progress(self, round_id: str, reviewer: str) -> tuple[int, int]:
        """(chunks the reviewer answered all three questions for, chunks in the round)."""
        stored = self._known(round_id)
        done = sum(a.complete for a in self.answers(round_id, reviewer))
        return done, stored.total

    def next_position(self, round_id: str, reviewer: str) -> int | None:
        """The first position (1-based) the reviewer has not fully answered; None when done."""
        stored = self._known(round_id)
        done = {a.position for a in self.answers(round_id, reviewer) if a.complete}
        return next((p for p in range(1, stored.total + 1) if p not in done), None)

    def _known(self, round_id: str) -> StoredRound:
        stored = self.get_round(round_id)
        if stored is None:
            raise KeyError(f"no round {round_id!r} in the review store {self.path}")
        return stored

    # -- export ------------------------------------------------------------------------

    def export_csv(self, round_id: str | None = None) -> str:
        """Answers as CSV (one round, or every round), one row per reviewer and chunk."""
        return answers_csv(self._all_answers(round_id))

    def export_json(self, round_id: str | None = None) -> str:
        """Answers as a JSON document: rounds with their definitions and answers."""
        rounds = [r for r in self.rounds() if round_id is None or r.id == round_id]
        return json.dumps({"schema": SCHEMA_VERSION, "rounds": [
            {"id": r.id, "label": r.round.label, "created": r.created, "definition": r.round.to_dict(),
             "chunk_ids": list(r.chunk_ids), "answers": [a.to_dict() for a in self.answers(r.id)]}
            for r in rounds]}, indent=2, ensure_ascii=False)

    def _all_answers(self, round_id: str | None) -> list[Answer]:
        if round_id is not None:
            return self.answers(round_id)
        rows = self._read(f"SELECT {_ANSWER_COLUMNS} FROM answers ORDER BY round_id, position, reviewer")
        return [_answer(row) for row in rows]


_ANSWER_COLUMNS = ("round_id, chunk_id, position, reviewer, address, references_, completeness, note, updated")
ANSWER_FIELDS: tuple[str, ...] = ("round_id", "position", "chunk_id", "reviewer",
                                  *(q.key for q in QUESTIONS), "orphan", "note", "updated")


def answers_csv(answers: Sequence[Answer]) -> str:
    """Answers as CSV text; yes/no/blank cells, spreadsheet formulas neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ANSWER_FIELDS)
    for a in answers:
        values = a.to_dict()
        writer.writerow([csv_cell(values[f]) for f in ANSWER_FIELDS])
    return out.getvalue()


def csv_cell(value: object) -> str:
    """One CSV cell: booleans as yes/no, None blank, and text that a spreadsheet would run as a
    formula (leading ``= + - @``, tab or CR) prefixed with an apostrophe."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, str):
        return str(value)
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _flag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


def _answer(row: tuple) -> Answer:
    round_id, chunk_id, position, reviewer, address, references, completeness, note, updated = row
    return Answer(round_id, chunk_id, position, reviewer, _flag(address), _flag(references),
                  _flag(completeness), note, updated)


def _stored(row: tuple) -> StoredRound:
    definition, chunk_ids, created = row
    return StoredRound(ReviewRound.from_dict(json.loads(definition)), tuple(json.loads(chunk_ids)), created)
