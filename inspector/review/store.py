"""The review store: Orphan Test rounds and answers in one SQLite file, safe for a team.

Every click is saved at once (an upsert keyed by round, chunk and reviewer) and a save that
did not reach the disk raises ``ReviewStoreError``, so the page can say the click was lost
and let the reviewer retry; nothing fails silently. How the file is opened and locked lives
in ``inspector.review.database``; the values handed back in ``inspector.review.answers``.
Pure Python.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

from ..errors import AnswerChanged
from .answers import Answer, StoredRound, answers_csv
from .database import SCHEMA_VERSION, ReviewDatabase, store_path
from .postgres import PostgresDatabase, database_url
from .rounds import ReviewRound, clean_reviewer

_UNSET = object()
_COLUMNS = {"address": "address", "references": "references_", "completeness": "completeness"}


class ReviewQueries:
    """Rounds and answers, asked of a database (``ReviewDatabase``'s SQLite file or
    ``PostgresDatabase``) through its ``_write`` and ``_read``."""

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
        rows = self._read(f"SELECT definition, chunk_ids, created FROM rounds ORDER BY created, {self.order}")
        found = [_stored(row) for row in rows]
        return [r for r in found if corpus_fingerprint is None or r.round.corpus == corpus_fingerprint]

    def delete_round(self, round_id: str) -> int:
        """Remove a round and every answer to it; how many answers went. A link to it opens it
        again, empty."""
        with self._write() as connection:
            gone = connection.execute("DELETE FROM answers WHERE round_id = ?", (round_id,)).rowcount
            connection.execute("DELETE FROM answer_events WHERE round_id = ?", (round_id,))
            connection.execute("DELETE FROM rounds WHERE id = ?", (round_id,))
        return gone

    # -- answers -----------------------------------------------------------------------

    def save_answer(self, round_id: str, chunk_id: str, position: int, reviewer: str, *,
                    address=_UNSET, references=_UNSET, completeness=_UNSET, note=_UNSET,
                    replacing=_UNSET) -> Answer:
        """Upsert one reviewer's answer for one chunk; only the fields given change.

        ``replacing`` is the ``updated`` stamp of the stored answer this save was made over
        (None: there was none): when the stored answer is another by now, nothing is written
        and ``AnswerChanged`` carries it, so two tabs never overwrite each other silently.
        Raises ``ReviewInputError`` for a bad name or value and ``ReviewStoreError`` when the
        answer could not be stored (read-only, locked, damaged).
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
            if replacing is not _UNSET:
                self._check_unchanged(connection, round_id, chunk_id, reviewer, replacing)
            connection.execute(f"INSERT INTO answers ({', '.join(columns)}) VALUES ({', '.join('?' * len(values))}) "
                               f"ON CONFLICT (round_id, chunk_id, reviewer) DO UPDATE SET {updates}", values)
            row = connection.execute(f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND chunk_id = ? "
                                     "AND reviewer = ?", (round_id, chunk_id, reviewer)).fetchone()
            # Every save is kept as an event: a changed answer keeps its earlier value and time.
            connection.execute(f"INSERT INTO answer_events ({_ANSWER_COLUMNS}) VALUES ({', '.join('?' * len(row))})",
                               row)
        return _answer(row)

    @staticmethod
    def _check_unchanged(connection, round_id: str, chunk_id: str, reviewer: str, replacing: str | None) -> None:
        """``AnswerChanged`` when the stored answer is not the one ``replacing`` names (inside the
        write's transaction, so no other save can come between the check and the write)."""
        row = connection.execute(f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE round_id = ? AND chunk_id = ? "
                                 "AND reviewer = ?", (round_id, chunk_id, reviewer)).fetchone()
        current = _answer(row) if row else None
        if (current.updated if current else None) != replacing:
            when = f"at {current.updated[:19].replace('T', ' ')} UTC" if current else "(it was removed)"
            raise AnswerChanged(f"this answer was saved again elsewhere {when} since this page showed it; "
                                "nothing was written", current)

    def answers(self, round_id: str, reviewer: str | None = None) -> list[Answer]:
        """A round's answers ordered by position then reviewer, optionally one reviewer's."""
        sql = f"SELECT {_ANSWER_COLUMNS} FROM answers WHERE round_id = ?"
        params: list = [round_id]
        if reviewer is not None:
            sql += " AND reviewer = ?"
            params.append(reviewer.strip())
        return [_answer(row) for row in self._read(sql + " ORDER BY position, reviewer", params)]

    def history(self, round_id: str, reviewer: str | None = None) -> list[Answer]:
        """Every save of a round's answers, oldest first (the latest of each chunk and reviewer is
        the answer that counts), optionally one reviewer's."""
        sql = f"SELECT {_ANSWER_COLUMNS} FROM answer_events WHERE round_id = ?"
        params: list = [round_id]
        if reviewer is not None:
            sql += " AND reviewer = ?"
            params.append(reviewer.strip())
        return [_answer(row) for row in self._read(sql + f" ORDER BY updated, {self.order}", params)]

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


class ReviewStore(ReviewQueries, ReviewDatabase):
    """Rounds and answers in one SQLite file; share the object freely, never a connection."""


class PostgresReviewStore(ReviewQueries, PostgresDatabase):
    """Rounds and answers in a PostgreSQL database, for several app replicas."""


def open_review_store(data: str | os.PathLike, environ: Mapping[str, str] | None = None) -> ReviewQueries:
    """The server's review store: PostgreSQL when ``CHUNK_INSPECTOR_DATABASE_URL`` names one,
    else the SQLite file in the data folder ``data``."""
    if database_url(environ):
        return PostgresReviewStore.from_environment(environ)
    return ReviewStore(store_path(data))


_ANSWER_COLUMNS = ("round_id, chunk_id, position, reviewer, address, references_, completeness, note, updated")


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
