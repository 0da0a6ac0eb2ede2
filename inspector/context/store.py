"""``ContextStore``: context lines kept in SQLite in the data folder, by model, document and span.

A line belongs to the text it was written from: the key is the model (or the name imported
lines were kept under), a hash of the document's text and the chunk's span, so an edited
document asks for new lines and an unchanged one never pays twice. Each line is sealed with its
key (``data_folder.seal_of``): a line damaged on disk or moved to another chunk is removed when
read, and counted missing. Each call opens its own connection, so forked workers and several
sessions can share one file.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..data_folder import document_hash, seal_holds, seal_of, use_wal
from ..errors import ContextLineError
from ..model import Document, Span

STORE_NAME = "context-lines.sqlite3"
_WRITING = ("CREATE TABLE IF NOT EXISTS writing (plan TEXT PRIMARY KEY, holder TEXT NOT NULL, done INTEGER NOT NULL, "
            "total INTEGER NOT NULL, heartbeat REAL NOT NULL)")
#: Seconds after its last line (or its start) that a writer's claim on a plan lapses.
STALE_CLAIM = 90.0
_SCHEMA = ("CREATE TABLE IF NOT EXISTS lines (model TEXT NOT NULL, document TEXT NOT NULL, start INTEGER NOT NULL,"
           " end INTEGER NOT NULL, line TEXT NOT NULL, seal BLOB, PRIMARY KEY (model, document, start, end))")


@dataclass(frozen=True, slots=True)
class Writing:
    """Someone writing a plan's lines now."""

    holder: str
    done: int
    total: int
    heartbeat: float


class ContextStore:
    """The lines kept in ``folder/context-lines.sqlite3`` (or at ``path`` when it names a file)."""

    def __init__(self, folder: str | Path) -> None:
        folder = Path(folder)
        self.path = folder if folder.suffix == ".sqlite3" else folder / STORE_NAME

    def _connect(self):
        import sqlite3  # loaded when lines are read, not when the engine is imported

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30)
            use_wal(connection)
            connection.execute(_SCHEMA)
            connection.execute(_WRITING)
            _seal_older_rows(connection)
        except (OSError, sqlite3.Error) as exc:
            raise ContextLineError(f"cannot open the context-line store {self.path.name}: {exc}") from None
        return connection

    def lines(self, model: str, document: str) -> dict[Span, str]:
        """Every line ``model`` has for the document hashed ``document``, by span."""
        connection = self._connect()
        try:
            rows = connection.execute("SELECT start, end, line, seal FROM lines WHERE model = ? AND document = ?",
                                      (model, document)).fetchall()
            kept, damaged = {}, []
            for a, b, line, seal in rows:
                if isinstance(line, str) and seal_holds(_key(model, document, a, b), _bytes(line), seal, STORE_NAME):
                    kept[(a, b)] = line
                else:
                    damaged.append((model, document, a, b))
            if damaged:  # written again when asked for
                with connection:
                    connection.executemany("DELETE FROM lines WHERE model = ? AND document = ? AND start = ? "
                                           "AND end = ?", damaged)
        finally:
            connection.close()
        return kept

    def lines_of(self, model: str, documents: Iterable[Document]) -> list[dict[Span, str]]:
        """``lines`` of each document, in order."""
        return [self.lines(model, document_hash(d.text)) for d in documents]

    def put(self, model: str, document: str, lines: Iterable[tuple[int, int, str]]) -> int:
        """Keep lines (a line for a span already kept replaces it); how many were given."""
        import sqlite3

        rows = [(model, document, a, b, line, seal_of(_key(model, document, a, b), _bytes(line)))
                for a, b, line in lines]
        connection = self._connect()
        try:
            with connection:
                connection.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise ContextLineError(f"cannot write the context-line store {self.path.name}: {exc}") from None
        finally:
            connection.close()
        return len(rows)

    def claim(self, plan: str, holder: str, total: int) -> Writing | None:
        """Take the writing of ``plan`` (model, corpus and chunking) for ``holder``: None when
        taken, else who is writing it (a second visitor sees the first one's progress instead of
        paying again). A claim lapses ``STALE_CLAIM`` seconds after its last line."""
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            found = connection.execute("SELECT holder, done, total, heartbeat FROM writing WHERE plan = ?",
                                       (plan,)).fetchone()
            now = time.time()
            if found is not None and found[0] != holder and now - found[3] < STALE_CLAIM:
                connection.execute("ROLLBACK")
                return Writing(*found)
            connection.execute("INSERT OR REPLACE INTO writing VALUES (?, ?, 0, ?, ?)", (plan, holder, total, now))
            connection.execute("COMMIT")
            return None
        finally:
            connection.close()

    def writing(self, plan: str) -> Writing | None:
        """Who is writing ``plan`` now, and how far they are (None: nobody)."""
        connection = self._connect()
        try:
            found = connection.execute("SELECT holder, done, total, heartbeat FROM writing WHERE plan = ?",
                                       (plan,)).fetchone()
        finally:
            connection.close()
        return Writing(*found) if found is not None and time.time() - found[3] < STALE_CLAIM else None

    def advance(self, plan: str, holder: str, done: int) -> None:
        """``holder`` has written ``done`` lines of ``plan``."""
        connection = self._connect()
        try:
            with connection:
                connection.execute("UPDATE writing SET done = ?, heartbeat = ? WHERE plan = ? AND holder = ?",
                                   (done, time.time(), plan, holder))
        finally:
            connection.close()

    def release(self, plan: str, holder: str) -> None:
        """``holder`` has stopped writing ``plan``."""
        connection = self._connect()
        try:
            with connection:
                connection.execute("DELETE FROM writing WHERE plan = ? AND holder = ?", (plan, holder))
        finally:
            connection.close()

    def count(self, model: str | None = None) -> int:
        """Lines kept (for one model, or all)."""
        connection = self._connect()
        try:
            query, args = ("SELECT COUNT(*) FROM lines WHERE model = ?", (model,)) if model else \
                ("SELECT COUNT(*) FROM lines", ())
            return connection.execute(query, args).fetchone()[0]
        finally:
            connection.close()


def _bytes(line: str) -> bytes:
    return line.encode("utf-8", "surrogatepass")


def _key(model: str, document: str, start: int, end: int) -> str:
    return f"{model}\0{document}\0{start}\0{end}"


def _seal_older_rows(connection) -> None:
    """A store kept before lines were sealed: its column added, and its lines sealed as they are."""
    if "seal" not in [row[1] for row in connection.execute("PRAGMA table_info(lines)")]:
        with connection:
            connection.execute("ALTER TABLE lines ADD COLUMN seal BLOB")
    rows = connection.execute("SELECT model, document, start, end, line FROM lines WHERE seal IS NULL").fetchall()
    if rows:
        with connection:
            connection.executemany(
                "UPDATE lines SET seal = ? WHERE model = ? AND document = ? AND start = ? AND end = ?",
                [(seal_of(_key(m, d, a, b), _bytes(str(line))), m, d, a, b)
                 for m, d, a, b, line in rows])
