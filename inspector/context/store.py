"""``ContextStore``: context lines kept in SQLite in the data folder, by model, document and span.

A line belongs to the text it was written from: the key is the model (or the name imported
lines were kept under), a hash of the document's text and the chunk's span, so an edited
document asks for new lines and an unchanged one never pays twice. Each call opens its own
connection, so forked workers and several sessions can share one file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from ..data_folder import use_wal
from ..errors import ContextLineError
from ..model import Document, Span

STORE_NAME = "context-lines.sqlite3"
_SCHEMA = ("CREATE TABLE IF NOT EXISTS lines (model TEXT NOT NULL, document TEXT NOT NULL, start INTEGER NOT NULL,"
           " end INTEGER NOT NULL, line TEXT NOT NULL, PRIMARY KEY (model, document, start, end))")


def document_hash(text: str) -> str:
    """What a line's document is known by: 32 hex digits of BLAKE2b over its text."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


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
        except (OSError, sqlite3.Error) as exc:
            raise ContextLineError(f"cannot open the context-line store {self.path.name}: {exc}") from None
        return connection

    def lines(self, model: str, document: str) -> dict[Span, str]:
        """Every line ``model`` has for the document hashed ``document``, by span."""
        connection = self._connect()
        try:
            rows = connection.execute("SELECT start, end, line FROM lines WHERE model = ? AND document = ?",
                                      (model, document)).fetchall()
        finally:
            connection.close()
        return {(a, b): line for a, b, line in rows}

    def lines_of(self, model: str, documents: Iterable[Document]) -> list[dict[Span, str]]:
        """``lines`` of each document, in order."""
        return [self.lines(model, document_hash(d.text)) for d in documents]

    def put(self, model: str, document: str, lines: Iterable[tuple[int, int, str]]) -> int:
        """Keep lines (a line for a span already kept replaces it); how many were given."""
        import sqlite3

        rows = [(model, document, a, b, line) for a, b, line in lines]
        connection = self._connect()
        try:
            with connection:
                connection.executemany("INSERT OR REPLACE INTO lines VALUES (?, ?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            raise ContextLineError(f"cannot write the context-line store {self.path.name}: {exc}") from None
        finally:
            connection.close()
        return len(rows)

    def count(self, model: str | None = None) -> int:
        """Lines kept (for one model, or all)."""
        connection = self._connect()
        try:
            query, args = ("SELECT COUNT(*) FROM lines WHERE model = ?", (model,)) if model else \
                ("SELECT COUNT(*) FROM lines", ())
            return connection.execute(query, args).fetchone()[0]
        finally:
            connection.close()
