"""Embedding once: vectors kept by model and by a digest of the embedded text.

``Vectors.of(texts)`` answers from memory, then from the ``VectorStore`` (an SQLite file in
the data folder, ``embeddings.sqlite3``), and embeds only what neither holds; a re-split
therefore embeds only its new chunks, and a question is embedded once. The digest covers
exactly what was embedded (a chunk's prefix included). The store runs in WAL mode with a
busy timeout, so the app's sessions and worker processes share it, and they embed through one
queue (a lock a batch, in a folder beside it): a text several ask for at once is embedded once,
and a session finding a batch taken embeds another meanwhile; one that cannot be opened
(a read-only folder, a damaged file) leaves the vectors in memory and says so in ``warning``.
Each vector is sealed with its model and text digest (``data_folder.seal_of``): one damaged on
disk or moved to another row is removed when read and embedded again, never ranked with.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..data_folder import seal_holds, seal_of, use_wal
from ..errors import EmbeddingServiceError
from ..limits import MAX_EMBEDDING_DIMENSIONS
from .embedders import Embedder

STORE_NAME = "embeddings.sqlite3"
#: Texts embedded per call (progress moves between calls).
EMBED_BATCH = 512
#: Digests per SQL query (SQLite's default limit on parameters is 32,766).
_LOOKUP = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    digest BLOB NOT NULL,
    vector BLOB NOT NULL,
    seal BLOB,
    PRIMARY KEY (model, digest)
) WITHOUT ROWID
"""


#: Bytes of a text's digest (``digest_of``), the key its vector is kept by.
DIGEST_SIZE = 16


def digest_of(text: str) -> bytes:
    """``DIGEST_SIZE`` bytes naming a text exactly (surrogates kept, so every ``str`` has one)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_SIZE).digest()


class VectorStore:
    """Vectors on disk, by model id and text digest; safe to share between processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._pid = -1
        self._connection: sqlite3.Connection
        self._connect()

    def _connect(self) -> sqlite3.Connection:
        """This process's connection: a forked worker opens its own (SQLite connections must
        not cross a fork)."""
        if self._pid != os.getpid():
            connection = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            try:
                use_wal(connection)
                connection.execute(_SCHEMA)
                _seal_older_rows(connection)
            except sqlite3.Error:
                connection.close()
                raise
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def get(self, model: str, digests: list[bytes], width: int | None) -> dict[bytes, np.ndarray]:
        """The stored vectors among ``digests`` (rows of another width than ``width`` are ignored)."""
        found: dict[bytes, np.ndarray] = {}
        damaged = []
        with self._lock:
            connection = self._connect()
            # One snapshot for every query: read in several, a batch another session keeps meanwhile
            # would be seen in part, and the texts left to embed would no longer fall into the
            # batches the other sessions lock (a text then embedded twice).
            connection.execute("BEGIN")
            try:
                for first in range(0, len(digests), _LOOKUP):
                    part = digests[first:first + _LOOKUP]
                    marks = ",".join("?" * len(part))
                    rows = connection.execute(
                        f"SELECT digest, vector, seal FROM vectors WHERE model = ? AND digest IN ({marks})",
                        (model, *part)).fetchall()
                    for digest, blob, seal in rows:
                        if not seal_holds(_key(model, digest), blob, seal, STORE_NAME) or len(blob) % 4:
                            damaged.append(digest)
                            continue
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if width is None or len(vector) == width:
                            found[bytes(digest)] = vector
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            if damaged:  # embedded again, and kept anew
                connection.executemany("DELETE FROM vectors WHERE model = ? AND digest = ?",
                                       [(model, d) for d in damaged])
        return found

    def put(self, model: str, items: list[tuple[bytes, np.ndarray]]) -> None:
        """Keep vectors (a digest already stored keeps its first vector)."""
        rows = []
        for digest, vector in items:
            blob = np.ascontiguousarray(vector, dtype=np.float32).tobytes()
            rows.append((model, digest, blob, seal_of(_key(model, digest), blob)))
        with self._lock:
            connection = self._connect()
            connection.execute("BEGIN IMMEDIATE")
            try:
                connection.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?, ?)", rows)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise

    def count(self, model: str | None = None) -> int:
        """Vectors stored (for ``model``, or in all)."""
        with self._lock:
            if model is None:
                return self._connect().execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            return self._connect().execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0]

    @contextlib.contextmanager
    def embedding(self, model: str, texts: list[bytes], *, wait: bool = True):
        """Held while one batch (``texts``' digests) of ``model``'s texts is looked up, embedded and
        kept: every process and session sharing this store queues on it, so a text several ask
        for at once is embedded by the first and read by the others. Yields whether it is held:
        without ``wait``, False at once when another holds it (that one is embedding the batch,
        so the caller may embed another first); True also when no lock can be had at all (a
        read-only folder), where batches are embedded unqueued."""
        slot = hashlib.sha256(model.encode() + b"".join(texts)).digest()[0]  # 256 slots: a clash only waits
        try:
            folder = self.path.parent / f"{self.path.name}.queue"
            folder.mkdir(exist_ok=True)
            held = open(folder / f"{slot:02x}.lock", "a")
        except OSError:
            yield True
            return
        try:
            try:
                fcntl.flock(held, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            except OSError:
                pass  # no lock to be had: embed unqueued
            yield True
        finally:
            held.close()  # closing lets the lock go

    def close(self) -> None:
        with self._lock:
            if self._pid == os.getpid():
                self._connection.close()
            self._pid = -1


def _key(model: str, digest: bytes) -> str:
    return f"{model}\0{bytes(digest).hex()}"


def _seal_older_rows(connection) -> None:
    """A store kept before vectors were sealed: its column added, and its rows sealed as they are."""
    columns = [row[1] for row in connection.execute("PRAGMA table_info(vectors)")]
    if "seal" not in columns:
        connection.execute("ALTER TABLE vectors ADD COLUMN seal BLOB")
    while True:
        rows = connection.execute("SELECT model, digest, vector FROM vectors WHERE seal IS NULL LIMIT 1000").fetchall()
        if not rows:
            return
        connection.executemany("UPDATE vectors SET seal = ? WHERE model = ? AND digest = ?",
                               [(seal_of(_key(model, digest), blob), model, digest) for model, digest, blob in rows])


def open_store(folder: str | Path | None) -> tuple[VectorStore | None, str]:
    """The store in ``folder`` (None: no store), or None and why it could not be opened."""
    if folder is None:
        return None, ""
    path = Path(folder) / STORE_NAME
    try:
        return VectorStore(path), ""
    except (OSError, sqlite3.Error) as exc:
        return None, f"the embedding cache {path} could not be opened ({exc}); vectors are kept in memory only"


class Vectors:
    """An embedder's unit-length vectors for any texts, each text embedded once."""

    def __init__(self, embedder: Embedder, store: VectorStore | None = None, warning: str = "") -> None:
        self.embedder = embedder
        self.store = store
        self.warning = warning
        """Why vectors are not kept on disk, when they are not."""
        self.embedded = 0
        """Texts this object sent to the embedder (what the caches could not answer)."""
        self._memory: dict[bytes, np.ndarray] = {}
        self._width: int | None = None
        self._lock = threading.Lock()

    def of(self, texts: list[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """One unit vector per text (a zero vector stays zero), as float32 rows."""
        digests = [digest_of(t) for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(d for d in digests if d not in self._memory))
            if missing and self.store is not None:
                try:
                    self._remember(self.store.get(self.embedder.model_id, missing, self._width))
                except sqlite3.Error as exc:
                    self.warning = f"the embedding cache {self.store.path} could not be read ({exc})"
                    self.store = None
                missing = [d for d in missing if d not in self._memory]
            if missing:
                self._embed(missing, dict(zip(digests, texts)), progress)
            if not texts:
                return np.zeros((0, self._width or 0), dtype=np.float32)
            return np.stack([self._memory[d] for d in digests])

    def forget(self) -> None:
        """Let go of the vectors held in memory (those kept on disk stay there): a streamed
        corpus's worker embeds batch after batch, and holding them all would grow with the corpus."""
        with self._lock:
            self._memory.clear()

    def _embed(self, missing: list[bytes], text_of: dict[bytes, str], progress) -> None:
        batches = [missing[first:first + EMBED_BATCH] for first in range(0, len(missing), EMBED_BATCH)]
        done = 0
        while batches:
            # A batch another session is embedding is left for later, and another one taken:
            # sessions asking for the same texts share the work, and none is embedded twice.
            batch = next((b for b in batches if self._embed_queued(b, text_of, wait=False)), None)
            if batch is None:
                batch = batches[0]
                self._embed_queued(batch, text_of, wait=True)
            batches.remove(batch)
            done += len(batch)
            if progress is not None:
                progress(done, len(missing))

    def _embed_queued(self, batch: list[bytes], text_of: dict[bytes, str], *, wait: bool) -> bool:
        """Embed what of ``batch`` no session has (False, without ``wait``, when another holds it)."""
        if self.store is None:
            self._embed_batch(batch, text_of)
            return True
        with self.store.embedding(self.embedder.model_id, batch, wait=wait) as held:
            if not held:
                return False
            try:  # another session may have embedded these while this one waited
                self._remember(self.store.get(self.embedder.model_id, batch, self._width))
            except sqlite3.Error as exc:
                self.warning = f"the embedding cache {self.store.path} could not be read ({exc})"
                self.store = None
            self._embed_batch([d for d in batch if d not in self._memory], text_of)
        return True

    def _embed_batch(self, part: list[bytes], text_of: dict[bytes, str]) -> None:
        if not part:
            return
        raw = self._checked(self.embedder.embed([text_of[d] for d in part]), len(part))
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        unit = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
        items = list(zip(part, unit))
        self._remember(dict(items))
        self.embedded += len(part)
        if self.store is not None:
            try:
                self.store.put(self.embedder.model_id, items)
            except sqlite3.Error as exc:
                self.warning = f"the embedding cache {self.store.path} could not be written ({exc})"
                self.store = None

    def _checked(self, answer, count: int) -> np.ndarray:
        """The embedder's answer as float32 rows, or ``EmbeddingServiceError`` naming the model
        (a server's model names its address) when it is not one finite vector of the model's
        width per text: nothing of it is kept."""
        name = self.embedder.model_id
        try:
            rows = np.asarray(answer, dtype=np.float32)
        except (ValueError, TypeError, OverflowError) as exc:
            raise EmbeddingServiceError(f"{name} answered something other than vectors ({exc})") from None
        if rows.ndim != 2 or len(rows) != count:
            raise EmbeddingServiceError(f"{name} answered {rows.shape} for {count} texts, not one vector each")
        width = rows.shape[1]
        if not 1 <= width <= MAX_EMBEDDING_DIMENSIONS:
            raise EmbeddingServiceError(f"{name} answered vectors of {width:,} dimensions (at most "
                                        f"{MAX_EMBEDDING_DIMENSIONS:,})")
        if self._width is not None and width != self._width:
            raise EmbeddingServiceError(f"{name} answered vectors of {width:,} dimensions where it gave "
                                        f"{self._width:,} before; nothing of this answer is kept")
        bad = ~np.isfinite(rows)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise EmbeddingServiceError(f"{name} answered a vector holding {rows[bad][0]} (text {row + 1} of "
                                        f"{count}); vectors must be finite: nothing of this answer is kept")
        return rows

    def _remember(self, found: dict[bytes, np.ndarray]) -> None:
        for digest, vector in found.items():
            if self._width is None:
                self._width = len(vector)
            self._memory[digest] = vector

