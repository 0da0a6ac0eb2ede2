"""``DerivedStore``: what a run derives from each document, kept in the data folder between runs.

Once the analyses are kept (``atoms.store``), a run on an unchanged corpus still splits every
document again for each configuration, finds the query candidates of its figure sentences and
the terms of its text, and counts the o200k tokens of every chunk the probe reads (building the
encoding first, half a second). Each of those depends only on the document's text, the atom
mode, the code, and for a split the spec (with a ``+address`` stamp, also the document's title
and front matter), for a count on the chunk's text: it is kept under a key made of them,
``derived_version`` being a digest of the rooms that compute them and of the parsing and
tokenizing libraries, so changed code reads nothing stale and a changed file is computed alone;
an encoding is built only when a chunk was never counted. Where the probe's words occur among a
corpus's terms is kept too, under the corpus's fingerprint and the words: a changed document
changes the words the queries draw anyway. Values are written with ``marshal`` (numbers, strings, bytes,
tuples, lists: nothing that runs code when read), sealed with their key (``data_folder.sealed``: a
damaged or moved row is computed again). The file stays under ``MAX_BYTES`` (past it
the older half goes); a store that cannot be opened or written is passed over: it only saves
time.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from ..data_folder import drop_oldest, open_store, rows_by_key, sealed, unsealed
from ..extras import installed_version
from ..lengths import built_in_unit, get_length, tiktoken_name
from ..model import Document
from ..retrieval.terms import TermTable
from ..spec import SplitterSpec

STORE_NAME = "kept.sqlite3"
#: The most the store's pages may hold.
MAX_BYTES = 512 << 20
_BATCH = 500


def derived_version(root: str | Path | None = None) -> str:
    """A digest of the code what is kept depends on: the atom, splitting and retrieval rooms, the
    shared values (of the package at ``root``, default this one), and the parsing, segmenting and
    tokenizing libraries."""
    root = Path(root or Path(__file__).resolve().parent.parent)
    digest = hashlib.blake2b(digest_size=8)
    for path in [*(p for room in ("atoms", "split", "retrieval") for p in sorted((root / room).glob("*.py"))),
                 root / "lengths.py", root / "spec.py", root / "model.py"]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for package in ("tiktoken", "markdown-it-py", "sentencex", "py3langid"):
        digest.update(package.encode() + installed_version(package).encode())
    return digest.hexdigest()


class DerivedStore:
    """Documents' splits, query candidates, terms and token counts, and where a corpus's terms
are the probe's words, kept in ``folder/kept.sqlite3``."""

    def __init__(self, folder: str | Path, max_bytes: int = MAX_BYTES) -> None:
        self.path = Path(folder) / STORE_NAME
        self.max_bytes = max_bytes
        self.hits = self.writes = 0
        """Values read and written through this store (for tests)."""
        self._version: str | None = None
        self._digests: dict[str, str] = {}  # by text: one corpus's texts are looked up many times
        self._local = threading.local()

    def __getstate__(self) -> dict:
        return {name: value for name, value in self.__dict__.items() if name != "_local"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _local=threading.local())

    @staticmethod
    def keeps(spec: SplitterSpec) -> bool:
        """Whether ``spec``'s splits are kept: built-in splitters in built-in units."""
        return spec.is_built_in and built_in_unit(spec.unit) is not None

    @staticmethod
    def split_kind(spec: SplitterSpec, document: Document) -> str:
        """What ``document``'s split by ``spec`` is kept as (a stamp names the document)."""
        if not spec.address:
            return f"split:{spec}"
        named = hashlib.blake2b(marshal.dumps((document.title, document.meta)), digest_size=8).hexdigest()
        return f"split:{spec}:{named}"

    @property
    def version(self) -> str:
        """``derived_version()``, found at first use."""
        if self._version is None:
            self._version = derived_version()
        return self._version

    def key(self, kind: str, document: Document, mode: str) -> str:
        """What ``document``'s value of ``kind`` in ``mode`` is kept under."""
        text = self._digests.get(document.text)
        if text is None:
            text = hashlib.blake2b(document.text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
            self._digests[document.text] = text
        return f"{kind}:{mode}:{self.version}:{text}"

    def corpus_key(self, kind: str, fingerprint: str, mode: str, words: frozenset[str]) -> str:
        """What a corpus's value of ``kind`` for some ``words`` is kept under (``fingerprint``:
        its documents' ids and texts, in order)."""
        spelled = hashlib.blake2b("\n".join(sorted(words)).encode("utf-8", "surrogatepass"), digest_size=16)
        return f"{kind}:{mode}:{self.version}:{fingerprint}:{spelled.hexdigest()}"

    def value(self, key: str, make: Callable[[], object]) -> object:
        """The value kept under ``key``, else what ``make`` gives (a plain value), kept."""
        found = self._load([key]).get(key)
        if found is None:
            found = make()
            self._save({key: marshal.dumps(found)})
        else:
            self.hits += 1
        return found

    def keys(self, kind: str, documents: Sequence[Document], mode: str) -> list[str]:
        """Each document's key for ``kind`` in ``mode``."""
        return [self.key(kind, d, mode) for d in documents]

    def term_runs(self, documents: Sequence[Document], mode: str,
                  runs_of: Callable[[str], tuple[np.ndarray, np.ndarray]]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Each document's terms (``runs_of`` its text: starts and ends), in order."""
        def runs(document: Document) -> tuple[str, bytes, bytes]:
            first, last = runs_of(document.text)
            kind = "i" if len(document.text) < 2**31 else "q"  # 32 bits: half the bytes to read
            return kind, first.astype(kind).tobytes(), last.astype(kind).tobytes()

        for kind, first, last in self.each(self.keys("terms", documents, mode), documents, runs):
            yield np.frombuffer(first, dtype=kind), np.frombuffer(last, dtype=kind)

    def select(self, table: TermTable, words: frozenset[str], fingerprint: str, mode: str) -> None:
        """Give ``table`` where ``words`` occur among its terms (``TermTable.select``), kept under
        the corpus's ``fingerprint`` and the words."""
        def select() -> tuple[bytes, bytes]:
            positions, word_ids, _ = table.select(words)
            return positions.astype(np.int64).tobytes(), word_ids.astype(np.int64).tobytes()

        positions, word_ids = self.value(self.corpus_key("occurrences", fingerprint, mode, words), select)
        table.add_selection(words, np.frombuffer(positions, dtype=np.int64), np.frombuffer(word_ids, dtype=np.int64))

    def splits(self, documents: Sequence[Document], spec: SplitterSpec, mode: str,
               split: Callable[[Document], tuple]) -> Iterator[tuple]:
        """Every document's ``(spans, prefixes or None, oversized count)`` by ``spec``, in order."""
        return self.each([self.key(self.split_kind(spec, d), d, mode) for d in documents], documents, split)

    def each(self, keys: list[str], documents: Sequence[Document], make: Callable[[Document], object]) -> Iterator:
        """Each document's value under its key, in order: kept ones read, the rest made by
        ``make`` (a plain value) and kept when the last is yielded."""
        kept = self._load(keys)
        fresh: dict[str, bytes] = {}
        for document, key in zip(documents, keys):
            found = kept.get(key)  # copies of one text share a key
            if found is None:
                found = kept[key] = make(document)
                fresh[key] = marshal.dumps(found)
            else:
                self.hits += 1
            yield found
        self._save(fresh)

    def counter(self, encoding: str = "o200k") -> Callable[[Sequence[str]], list[int]]:
        """A ``Length.count_many`` for ``encoding`` that reads kept counts and counts (and keeps)
        only the rest."""
        salt = hashlib.blake2b(f"{tiktoken_name(encoding)}:{self.version}".encode(), digest_size=32).digest()

        def count_many(texts: Sequence[str]) -> list[int]:
            digests = (hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16, key=salt) for t in texts)
            keys = [f"tokens:{digest.hexdigest()}" for digest in digests]
            kept = self._load(keys)
            missing = [i for i, key in enumerate(keys) if not isinstance(kept.get(key), int)]
            if missing:
                counted = get_length(encoding).count_many([texts[i] for i in missing])
                fresh = {keys[i]: n for i, n in zip(missing, counted)}
                self._save({key: marshal.dumps(n) for key, n in fresh.items()})
                kept.update(fresh)
            self.hits += len(texts) - len(missing)
            return [kept[key] for key in keys]

        return count_many

    def keep(self, keys: list[str], values: Sequence) -> None:
        """Keep values made elsewhere (by workers) under their keys."""
        self._save({key: marshal.dumps(value) for key, value in zip(keys, values)})

    def _connect(self):
        return open_store(self.path, "CREATE TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY, plain BLOB NOT NULL, "
                          "written REAL NOT NULL)")

    def _connection(self):
        """This thread's connection, opened at first use and kept: opening one and closing it
        for every read and write cost a checkpoint each, a tenth of a second a cold report.
        A forked process opens its own (a connection must not cross a fork)."""
        held = getattr(self._local, "held", None)
        if held is None or held[0] != os.getpid():
            held = self._local.held = (os.getpid(), self._connect())
        return held[1]

    def _drop_connection(self) -> None:
        """Forget this thread's connection after an error (the next use opens another)."""
        held, self._local.held = getattr(self._local, "held", None), None
        if held is not None and held[0] == os.getpid():
            try:
                held[1].close()
            except Exception:  # noqa: BLE001 - it is being dropped for an error already
                pass

    def _load(self, keys: list[str]) -> dict[str, object]:
        import sqlite3

        found: dict[str, object] = {}
        try:
            for _, rows in rows_by_key(self._connection(), "kept", keys, _BATCH):
                for key, raw in rows.items():
                    plain = unsealed(key, raw, STORE_NAME)
                    if plain is not None:  # a damaged row is computed again
                        found[key] = marshal.loads(plain)
        except (OSError, sqlite3.Error):
            self._drop_connection()
            return {}
        return found

    def _save(self, rows: dict[str, bytes]) -> None:
        import sqlite3

        if not rows:
            return
        try:
            connection = self._connection()
            with connection:
                now = time.time()
                connection.executemany("INSERT OR REPLACE INTO kept VALUES (?, ?, ?)",
                                       [(key, sealed(key, raw), now) for key, raw in rows.items()])
                drop_oldest(connection, "kept", self.max_bytes)
        except (OSError, sqlite3.Error):
            self._drop_connection()
            return
        self.writes += len(rows)
