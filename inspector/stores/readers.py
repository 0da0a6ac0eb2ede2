"""Reading a store's chunks a page at a time, without their vectors, through each store's own client.

``open_reader`` picks the reader of an address; each keeps ``reading.StoreReader``. Nothing is
written to the user's store: a folder that is not a store is refused before a client could create
one there, Chroma's folders are read from their SQLite file read-only (``chroma``), Qdrant's
local mode and Milvus Lite are opened on a private copy (``private_copy``: their clients write to
what they open), LanceDB is only scanned, and PostgreSQL is read in a read-only transaction
(``postgres``).
Each client is imported only when its store is read; without it the message names the extra.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator

from ..errors import MissingExtra, StoreError
from .address import StoreAddress, StoreCredentials
from .chroma import open_chroma
from .fields import StoredChunk, split_row
from .postgres import PostgresReader
from .private_copy import private
from .reading import PAGE_SIZE, StoreReader, client, missing, reason

NO_CREDENTIALS = StoreCredentials()

#: What marks a folder as each embedded store's.
_MARKS = {"chroma": "chroma.sqlite3", "qdrant": "collection"}


def open_reader(address: StoreAddress, credentials: StoreCredentials = NO_CREDENTIALS) -> StoreReader:
    """A reader of ``address`` (``StoreError`` naming the store and what to do when it cannot be
    opened; ``MissingExtra`` when its client is not installed)."""
    if not address.served:
        _check_folder(address)
    opener = {"chroma": open_chroma, "qdrant": QdrantReader, "lancedb": LanceReader, "milvus": MilvusReader,
              "postgresql": PostgresReader}[address.kind]
    try:
        return opener(address, credentials)
    except (StoreError, MissingExtra):
        raise
    except Exception as exc:  # each client raises its own kinds; all mean "cannot open"
        raise StoreError(f"cannot open {address}: {reason(exc)}") from None


def _check_folder(address: StoreAddress) -> None:
    path = address.location
    if not os.path.exists(path):
        raise StoreError(f"cannot open {address}: {path} does not exist")
    if address.kind == "milvus":
        return  # Milvus Lite's FILE.db: a file in older versions, a folder in newer ones
    mark = _MARKS.get(address.kind)
    if not os.path.isdir(path):
        raise StoreError(f"cannot open {address}: {path} is not a folder")
    if mark and not os.path.exists(os.path.join(path, mark)):
        raise StoreError(f"cannot open {address}: {path} holds no {address.kind} store (no {mark})")


class QdrantReader:
    """A Qdrant collection: ``scroll`` with payloads, without vectors (points come in id order)."""

    ordered = False
    note = ""
    #: Qdrant's local mode sorts the whole collection for every page: fewer, larger pages.
    LOCAL_PAGE = 10_000

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        qdrant = client("qdrant_client", "qdrant")
        self.address = address
        opened, self.copy = private(address)
        with warnings.catch_warnings(record=True) as said:  # said once as a note, not as Python warnings
            warnings.simplefilter("always")
            if address.served:
                self.client = qdrant.QdrantClient(url=address.location, api_key=credentials.key or None, timeout=60)
            else:
                self.client = qdrant.QdrantClient(path=opened.location)
        if said and address.served:  # a key over plain http, a server version it does not expect
            self.note = f"{address.label}: Qdrant's client says: " + "; ".join(dict.fromkeys(
                str(w.message).rstrip(".") for w in said))
        elif said:  # its advice on large collections
            self.note = (f"{address.label}: Qdrant's local mode holds the whole collection in memory to read it "
                         "(a Qdrant server reads it a page at a time)")
        if not self.client.collection_exists(address.collection):
            names = [c.name for c in self.client.get_collections().collections]
            self.close()
            raise missing(address, names)

    def count(self) -> int | None:
        return self.client.count(self.address.collection, exact=True).count

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        offset = None
        size = size if self.address.served else max(size, self.LOCAL_PAGE)
        while True:
            points, offset = self.client.scroll(self.address.collection, limit=size, offset=offset,
                                                with_payload=True, with_vectors=False)
            if points:
                yield [StoredChunk(str(p.id), *split_row(dict(p.payload or {}))) for p in points]
            if offset is None or not points:
                return

    def close(self) -> None:
        self.client.close()
        if self.copy is not None:
            self.copy.close()
        if self.copy is not None:
            self.copy.close()


class LanceReader:
    """A LanceDB table: a scan of its columns but the vectors, in record batches."""

    ordered = True
    note = ""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        lancedb = client("lancedb", "lancedb")
        self.address = address
        opened, self.copy = private(address)
        self.db = lancedb.connect(opened.location)
        try:
            self.table = self.db.open_table(address.collection)
        except ValueError:
            names = self.db.list_tables(limit=10).tables
            self.close()
            raise missing(address, names) from None
        pa = client("pyarrow", "lancedb")
        self.vector_columns = [f.name for f in self.table.schema if pa.types.is_fixed_size_list(f.type)]
        self.columns = [f.name for f in self.table.schema
                        if not (pa.types.is_fixed_size_list(f.type) or pa.types.is_list(f.type)
                                and pa.types.is_floating(f.type.value_type))]
        self.ids = next((k for k in ("id", "node_id", "doc_id") if k in self.columns), None)
        """The column naming each row (None: rows are named by their place)."""

    def count(self) -> int | None:
        return self.table.count_rows()

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        query = self.table.search().select(self.columns).limit(None)
        ids = self.ids
        number = 0
        for batch in query.to_batches(size):
            rows = batch.to_pylist()
            yield [StoredChunk(str(row[ids]) if ids else f"row {number + i + 1}", *split_row(row, (ids or "",)))
                   for i, row in enumerate(rows)]
            number += len(rows)

    def close(self) -> None:
        self.table = self.db = None
        if self.copy is not None:
            self.copy.close()


class MilvusReader:
    """A Milvus collection (Milvus Lite's file or a server): ``query_iterator`` over every field
    but the vectors."""

    ordered = False
    note = ""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        pymilvus = client("pymilvus", "milvus")
        self.address = address
        opened, self.copy = private(address)
        self.client = pymilvus.MilvusClient(uri=opened.location, token=credentials.key or "")
        if not self.client.has_collection(address.collection):
            names = self.client.list_collections()
            self.close()
            raise missing(address, names)
        schema = self.client.describe_collection(address.collection)
        vector_types = {t for t in pymilvus.DataType if "VECTOR" in t.name}
        fields = schema.get("fields", [])
        self.primary = next((f["name"] for f in fields if f.get("is_primary")), "")
        self.vector_field = next((f["name"] for f in fields if f.get("type") in vector_types), "")
        self.fields = [f["name"] for f in fields if f.get("type") not in vector_types]
        if schema.get("enable_dynamic_field"):
            self.fields.append("$meta")
        state = self.client.get_load_state(address.collection).get("state")
        if not str(state).endswith("Loaded"):  # pymilvus answers a LoadState (or its name in older versions)
            self.client.load_collection(address.collection)  # a query needs the collection in memory

    def count(self) -> int | None:
        stats = self.client.get_collection_stats(self.address.collection)
        return int(stats.get("row_count", 0))

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        iterator = self.client.query_iterator(self.address.collection, batch_size=size, output_fields=self.fields)
        try:
            while rows := iterator.next():
                yield [StoredChunk(str(row.get(self.primary, "")), *split_row(row, (self.primary,))) for row in rows]
        finally:
            iterator.close()

    def close(self) -> None:
        self.client.close()
        if self.copy is not None:
            self.copy.close()

