"""``SplitAnswers``: what a chat model answered the ``llm`` chunker (or, in a file of their own,
the prompts that write a golden set), kept in the data folder.

An answer belongs to its prompt: the key is the model, a hash of the document's text and a
digest of the prompt (which holds the pieces shown and their numbers, so the piece size, unit
and ``+atoms`` are in it), so an edited document or another piece size asks again and an
unchanged one never pays twice. Each answer is sealed with its key: one damaged on disk or
moved to another prompt is removed when read and asked for again. Each call opens its own
connection, so forked workers and several sessions share one file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..data_folder import open_store, seal_holds, seal_of
from ..errors import ContextLineError

STORE_NAME = "llm-splits.sqlite3"
_SCHEMA = ("CREATE TABLE IF NOT EXISTS answers (model TEXT NOT NULL, document TEXT NOT NULL, prompt TEXT NOT NULL, "
           "answer TEXT NOT NULL, seal BLOB NOT NULL, "
           "PRIMARY KEY (model, document, prompt))")


def prompt_digest(prompt: str) -> str:
    """What an answer's prompt is known by: 32 hex digits of BLAKE2b over it."""
    return hashlib.blake2b(prompt.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class SplitAnswers:
    """The answers kept in ``folder/llm-splits.sqlite3`` (or at ``folder`` when it names a file)."""

    def __init__(self, folder: str | Path, name: str = STORE_NAME, what: str = "split answers") -> None:
        folder = Path(folder)
        self.path = folder if folder.suffix == ".sqlite3" else folder / name
        self.what = what
        """What the answers are, for messages (another store of answers keeps its own file)."""

    def _connect(self):
        import sqlite3

        try:
            return open_store(self.path, _SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ContextLineError(f"cannot open the store of {self.what} {self.path.name}: {exc}") from None

    def answers(self, model: str, document: str) -> dict[str, str]:
        """Every answer ``model`` gave for the document hashed ``document``, by prompt digest."""
        if not self.path.exists():
            return {}
        connection = self._connect()
        try:
            rows = connection.execute("SELECT prompt, answer, seal FROM answers WHERE model = ? AND document = ?",
                                      (model, document)).fetchall()
            kept, damaged = {}, []
            for prompt, answer, seal in rows:
                if isinstance(answer, str) and seal_holds(_key(model, document, prompt), _bytes(answer), seal,
                                                          self.path.name):
                    kept[prompt] = answer
                else:
                    damaged.append((model, document, prompt))
            if damaged:  # asked for again
                with connection:
                    connection.executemany("DELETE FROM answers WHERE model = ? AND document = ? AND prompt = ?",
                                           damaged)
        finally:
            connection.close()
        return kept

    def put(self, model: str, document: str, prompt: str, answer: str) -> None:
        """Keep ``answer`` to the prompt with digest ``prompt``."""
        import sqlite3

        connection = self._connect()
        try:
            with connection:
                connection.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                                   (model, document, prompt, answer,
                                    seal_of(_key(model, document, prompt), _bytes(answer))))
        except sqlite3.Error as exc:
            raise ContextLineError(f"cannot write the store of {self.what} {self.path.name}: {exc}") from None
        finally:
            connection.close()

    def count(self, model: str | None = None) -> int:
        """Answers kept (for one model, or all)."""
        if not self.path.exists():
            return 0
        connection = self._connect()
        try:
            query, args = ("SELECT COUNT(*) FROM answers WHERE model = ?", (model,)) if model else \
                ("SELECT COUNT(*) FROM answers", ())
            return connection.execute(query, args).fetchone()[0]
        finally:
            connection.close()


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _key(model: str, document: str, prompt: str) -> str:
    return f"{model}\0{document}\0{prompt}"
