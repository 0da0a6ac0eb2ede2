"""Chroma: a ``PersistentClient`` folder read straight from its SQLite file, read-only, and a
Chroma server through ``chromadb.HttpClient``.

Chroma's client has no read-only mode: opening a folder may rewrite its bookkeeping in
``chroma.sqlite3`` and its index files. A folder is therefore read from the metadata segment that
``chroma.sqlite3`` keeps (each chunk's id, document and metadata, in the order they were
written) through SQLite's read-only mode, and nothing in it changes. Only when that segment does
not hold every record the collection's log does (a write Chroma had not applied yet) or the file
is laid out in a way this reader does not know is Chroma's own client used, on a private copy of
the folder (``private_copy``), and the reader's ``note`` says so.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from .address import StoreAddress, StoreCredentials
from .fields import StoredChunk, json_object
from .private_copy import private
from .reading import PAGE_SIZE, client, missing

#: The key under which Chroma keeps a record's document among its metadata.
DOCUMENT_KEY = "chroma:document"
#: The database a ``PersistentClient`` uses unless told otherwise.
DEFAULT_DATABASE = "default_database"


class Unreadable(Exception):
    """The folder's SQLite file cannot be read this way; Chroma's client reads it instead."""


def open_chroma(address: StoreAddress, credentials: StoreCredentials):
    """The reader of a Chroma address: the folder's file read-only, else Chroma's client."""
    if address.served:
        return ChromaClientReader(address, credentials)
    try:
        return ChromaFolderReader(address)
    except Unreadable as exc:
        reader = ChromaClientReader(address, credentials)
        reader.note = (f"{address.label} was read with Chroma's own client ({exc}), from a private copy of the "
                       "folder: the client writes to what it opens")
        return reader


class ChromaFolderReader:
    """A ``PersistentClient`` folder's collection, read from ``chroma.sqlite3`` in read-only mode."""

    ordered = True
    note = ""

    def __init__(self, address: StoreAddress) -> None:
        self.address = address
        path = os.path.join(address.location, "chroma.sqlite3")
        try:
            self.db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True,
                                      check_same_thread=False)
            self.segment = self._segment()
        except sqlite3.Error as exc:
            raise Unreadable(f"its file is not laid out as this reader knows: {exc}") from None

    def _segment(self) -> str:
        found = self.db.execute(
            "SELECT c.id FROM collections c JOIN databases d ON c.database_id = d.id "
            "WHERE c.name = ? AND d.name = ?", (self.address.collection, DEFAULT_DATABASE)).fetchall()
        if not found:
            names = [row[0] for row in self.db.execute("SELECT name FROM collections")]
            self.db.close()
            raise missing(self.address, names)
        collection = found[0][0]
        segment = self.db.execute("SELECT id FROM segments WHERE collection = ? AND scope = 'METADATA'",
                                  (collection,)).fetchone()
        if segment is None:
            raise Unreadable("the collection has no metadata segment")
        applied = self.db.execute("SELECT seq_id FROM max_seq_id WHERE segment_id = ?", segment).fetchone()
        logged = self.db.execute("SELECT max(seq_id) FROM embeddings_queue WHERE topic LIKE ?",
                                 (f"%/{collection}",)).fetchone()
        applied_seq = _sequence(applied[0]) if applied else 0
        if logged and logged[0] is not None and logged[0] > applied_seq:
            raise Unreadable("its log holds writes the folder has not applied yet")
        return segment[0]

    def count(self) -> int | None:
        return self.db.execute("SELECT count(*) FROM embeddings WHERE segment_id = ?", (self.segment,)).fetchone()[0]

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        last = -1
        while True:
            rows = self.db.execute("SELECT id, embedding_id FROM embeddings WHERE segment_id = ? AND id > ? "
                                   "ORDER BY id LIMIT ?", (self.segment, last, size)).fetchall()
            if not rows:
                return
            keys = [row[0] for row in rows]
            metadata: dict[int, dict] = {key: {} for key in keys}
            marks = ",".join("?" * len(keys))
            for key, name, text, whole, real, flag in self.db.execute(
                    "SELECT id, key, string_value, int_value, float_value, bool_value FROM embedding_metadata "
                    f"WHERE id IN ({marks})", keys):
                metadata[key][name] = (text if text is not None else whole if whole is not None else
                                       real if real is not None else None if flag is None else bool(flag))
            chunks = []
            for key, chunk_id in rows:
                meta = metadata[key]
                text = meta.pop(DOCUMENT_KEY, None)
                chunks.append(StoredChunk(str(chunk_id), text if isinstance(text, str) else None, meta))
            yield chunks
            last = keys[-1]

    def close(self) -> None:
        self.db.close()


def _sequence(value) -> int:
    # Chroma has kept sequence numbers as integers and, in older files, as big-endian bytes.
    return int.from_bytes(value, "big") if isinstance(value, (bytes, bytearray)) else int(value or 0)


class ChromaClientReader:
    """A Chroma collection through Chroma's client: ``collection.get`` by offset, documents and
    metadatas only."""

    ordered = True
    note = ""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        chromadb = client("chromadb", "chroma")
        self.address = address
        opened, self.copy = private(address)
        quiet = chromadb.config.Settings(anonymized_telemetry=False)  # offline: the client reports nothing
        if address.served:
            parts = urlsplit(address.location)
            headers = {"Authorization": f"Bearer {credentials.key}"} if credentials.key else None
            port = parts.port or (443 if parts.scheme == "https" else 8000)  # Chroma's own default
            self.client = chromadb.HttpClient(host=parts.hostname, port=port, ssl=parts.scheme == "https",
                                              headers=headers, settings=quiet)
        else:
            self.client = chromadb.PersistentClient(path=opened.location, settings=quiet)
        names = [c.name for c in self.client.list_collections()]
        if address.collection not in names:
            self.close()
            raise missing(address, names)
        self.collection = self.client.get_collection(address.collection)

    def count(self) -> int | None:
        return self.collection.count()

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        offset = 0
        while True:
            got = self.collection.get(limit=size, offset=offset, include=["documents", "metadatas"])
            ids = got["ids"]
            if not ids:
                return
            yield [StoredChunk(str(i), d, dict(m or {})) for i, d, m in zip(ids, got["documents"], got["metadatas"])]
            offset += len(ids)

    def close(self) -> None:
        self.collection = self.client = None
        if self.copy is not None:
            self.copy.close()


@dataclass(frozen=True, slots=True)
class OwnEmbedding:
    """The embedding function a Chroma collection was made with, as its folder records it: its
    name and model, said as a hint only. Where it sends and which variable holds its key are not
    read at all: whoever wrote the folder chose them."""

    name: str
    """Chroma's name for it (``openai``, ``default``, ``sentence_transformer``, ...)."""

    model: str = ""


def own_embedding(address: StoreAddress) -> OwnEmbedding | None:
    """The embedding function a Chroma folder's collection records (None: none recorded, a
    server, or a file this reader cannot read)."""
    if address.kind != "chroma" or address.served:
        return None
    path = os.path.join(address.location, "chroma.sqlite3")
    try:
        db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT c.config_json_str, c.schema_str FROM collections c JOIN databases d ON "
                              "c.database_id = d.id WHERE c.name = ? AND d.name = ?",
                              (address.collection, DEFAULT_DATABASE)).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    for text in (t for row in rows for t in row if t):
        found = _known(json_object(text))
        if found is not None:
            config = found.get("config") if isinstance(found.get("config"), dict) else {}
            return OwnEmbedding(_shown(found.get("name")), _shown(config.get("model_name")))
    return None


def _shown(value) -> str:
    """A name the folder wrote, as one short printable line."""
    text = "".join(c for c in str(value or "") if c.isprintable())
    return text if len(text) <= 80 else text[:80] + "…"


def _known(value, depth: int = 0):
    """The first ``embedding_function`` of ``type`` ``known`` inside a collection's settings."""
    if depth > 12:
        return None
    if isinstance(value, dict):
        function = value.get("embedding_function")
        if isinstance(function, dict) and function.get("type") == "known":
            return function
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            found = _known(item, depth + 1)
            if found is not None:
                return found
    return None
