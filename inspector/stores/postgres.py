"""PostgreSQL: a table of chunks (pgvector's, LangChain's ``langchain_pg_embedding``, LlamaIndex's
``data_<name>``, or any table with a text column), read through a server-side cursor in a
read-only transaction, its vectors never fetched."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

from ..errors import StoreError
from .address import LANGCHAIN_COLUMNS, LLAMAINDEX_COLUMNS, StoreAddress, StoreCredentials
from .fields import StoredChunk, json_object
from .reading import PAGE_SIZE, client, reason

#: The column types read as text.
TEXT_TYPES = ("text", "character varying", "character")


class PostgresReader:
    """A PostgreSQL table (pgvector's or any with a text column) through a server-side cursor in a
    read-only transaction. Columns default to LangChain's (``document``, ``id``, ``cmetadata``),
    then LlamaIndex's (``text``, ``node_id``, ``metadata_``), then ``text``, ``id``, ``metadata``."""

    ordered = False
    note = ""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        psycopg = client("psycopg", "postgres")
        self.address, self.sql, self.psycopg = address, psycopg.sql, psycopg
        self.connection = None
        parts = urlsplit(f"postgresql://{address.location}")
        options = {"host": parts.hostname, "dbname": parts.path.lstrip("/"), "connect_timeout": 20}
        options.update((k, v) for k, v in (("port", parts.port), ("user", parts.username),
                                           ("password", credentials.password or None)) if v)
        try:
            self.connection = psycopg.connect(**options)
        except psycopg.OperationalError as exc:
            raise StoreError(f"cannot connect to {address}: {reason(exc)}; a password comes from "
                             "CHUNK_INSPECTOR_STORE_PASSWORD or PGPASSWORD") from None
        self.connection.read_only = True
        schema, _, table = address.collection.rpartition(".")
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT column_name, data_type FROM information_schema.columns "
                           "WHERE table_name = %s AND table_schema = COALESCE(NULLIF(%s, ''), current_schema())",
                           (table, schema))
            types = dict(cursor.fetchall())
        if not types:
            self.close()
            raise StoreError(f"{address}: no table {address.collection!r} in the database; name one with ?table=NAME")
        chosen = next((c for c in (LANGCHAIN_COLUMNS, LLAMAINDEX_COLUMNS, ("text", "id", "metadata"))
                       if c[0] in types), ("", "", ""))
        self.text = address.text or chosen[0]
        self.id = address.id or (chosen[1] if chosen[1] in types else "")
        self.metadata = address.metadata or (chosen[2] if chosen[2] in types else "")
        for role, column in (("text", self.text), ("id", self.id), ("metadata", self.metadata)):
            if column and column not in types:
                self.close()
                raise StoreError(f"{address}: no column {column!r} in {address.collection} (it has "
                                 f"{', '.join(sorted(types)[:12])}); name the {role} column with &{role}=COLUMN")
        if not self.text:
            self.close()
            raise StoreError(f"{address}: which column holds the text? name it with &text=COLUMN")
        if types[self.text] not in TEXT_TYPES:
            self.close()
            raise StoreError(f"{address}: column {self.text!r} is {types[self.text]}, not text; "
                             "name the text column with &text=COLUMN")
        self.table = self.sql.Identifier(*(p for p in (schema, table) if p))
        self.where, self.arguments = self.sql.SQL(""), ()
        if "collection_id" in types:
            self._langchain_collection(address)
        elif address.pg_collection:
            self.close()
            raise StoreError(f"{address}: {address.collection} has no collection_id column, so it holds no "
                             "LangChain collections; leave out &collection=")

    def _langchain_collection(self, address: StoreAddress) -> None:
        """Keep to one of LangChain's ``PGVector`` collections: the one named, or say so when the
        table holds several and none was named."""
        with self.connection.cursor() as cursor:
            try:
                cursor.execute("SELECT name, uuid::text FROM langchain_pg_collection ORDER BY name")
                collections = dict(cursor.fetchall())
            except self.psycopg.Error:
                self.connection.rollback()
                collections = {}
        if address.pg_collection:
            if address.pg_collection not in collections:
                self.close()
                raise StoreError(f"{address}: no LangChain collection {address.pg_collection!r} (it has: "
                                 f"{', '.join(sorted(collections)[:10]) or 'none'})")
            self.where = self.sql.SQL(" WHERE collection_id::text = %s")
            self.arguments = (collections[address.pg_collection],)
        elif len(collections) > 1:
            self.note = (f"{address.label} holds the chunks of {len(collections)} LangChain collections "
                         f"({', '.join(sorted(collections)[:5])}); all are read: name one with &collection=NAME")

    def _column(self, name: str):
        return self.sql.SQL("{}::text").format(self.sql.Identifier(name)) if name else self.sql.SQL("NULL")

    def count(self) -> int | None:
        with self.connection.cursor() as cursor:
            cursor.execute(self.sql.SQL("SELECT count(*) FROM {}{}").format(self.table, self.where), self.arguments)
            return int(cursor.fetchone()[0])

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]:
        query = self.sql.SQL("SELECT {}, {}, {} FROM {}{}").format(
            self._column(self.id), self.sql.Identifier(self.text), self._column(self.metadata), self.table, self.where)
        number = 0
        with self.connection.cursor(name="chunk_inspector_read") as cursor:
            cursor.itersize = size
            cursor.execute(query, self.arguments)
            while rows := cursor.fetchmany(size):
                yield [StoredChunk(row_id or f"row {number + i + 1}", text, json_object(meta))
                       for i, (row_id, text, meta) in enumerate(rows)]
                number += len(rows)

    def close(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()
