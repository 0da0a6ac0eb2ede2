"""Asking the user's store itself: each question embedded by the embedder their pipeline uses,
the store's own query API answering its best chunks, mapped back onto the spans where the
store's chunks were placed.

``StoreRetriever`` is a ``Retriever`` of the store's chunk set only (the chunks ``read_store``
placed): it ranks what the store answers, best first, and nothing else, so golden recall, cut
vs rank-miss and context tokens measure the user's real retrieval. A returned chunk that was not
placed on the corpus is counted (``unplaced``), never guessed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from ..errors import StoreError
from ..retrieval.ranking import Ask, Pool, Retriever
from ..retrieval.retriever_spec import RetrieverSpec
from .address import StoreAddress, StoreCredentials
from .chroma import ChromaClientReader
from .postgres import PostgresReader
from .readers import LanceReader, MilvusReader, QdrantReader
from .reading import reason

NO_CREDENTIALS = StoreCredentials()

#: How many chunks the store is asked for when a measure wants a whole ranking (recall at budgets).
SEARCH_DEPTH = 100


def _own_embedder(address: StoreAddress, environ: Mapping[str, str]):
    """The collection's own embedding function as ``(spec, embedder)``, or ``StoreError`` saying
    what to name instead."""
    from ..retrieval.remote import OpenAIEmbeddings
    from .chroma import own_embedding

    own = own_embedding(address)
    if own is not None and own.name == "openai" and own.model:
        embedder = OpenAIEmbeddings(own.model, own.api_base or None, api_key=environ.get(own.key_variable or "", None))
        return RetrieverSpec("dense", "openai", own.model), embedder
    made = (f"; its own embedding function is Chroma's {own.name}"
            + (f" ({own.model})" if own.model else "") + ", which this tool does not run") if own else ""
    raise StoreError(f"asking {address} needs the embedder your pipeline uses: --retriever dense:openai:MODEL "
                     f"(or dense:model2vec:PATH){made}")


class StoreSearch:
    """A store's query API: ``search(vectors, k)`` gives each vector's best ``k`` chunk ids."""

    note = ""

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        raise NotImplementedError

    def close(self) -> None:
        """Let the store go."""


def open_search(address: StoreAddress, credentials: StoreCredentials) -> StoreSearch:
    """The query API of the store at ``address`` (``StoreError`` when it has none this can use)."""
    opener = {"chroma": ChromaSearch, "qdrant": QdrantSearch, "lancedb": LanceSearch, "milvus": MilvusSearch,
              "postgresql": PostgresSearch}[address.kind]
    try:
        return opener(address, credentials)
    except StoreError:
        raise
    except Exception as exc:  # each client raises its own kinds
        raise StoreError(f"cannot search {address}: {reason(exc)}") from None


class ChromaSearch(StoreSearch):
    """``collection.query`` with the question's vector, through Chroma's client (a folder's
    bookkeeping is rewritten when the client opens it, which searching cannot avoid)."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        self.collection = ChromaClientReader(address, credentials).collection
        if not address.served:
            self.note = (f"searching {address.label} opened it with Chroma's client, which rewrites its bookkeeping "
                         "in chroma.sqlite3; your chunks are not changed")

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        found = self.collection.query(query_embeddings=vectors, n_results=k, include=[])
        return [[str(i) for i in ids] for ids in found["ids"]]


class QdrantSearch(StoreSearch):
    """``query_points`` with the question's vector (the collection's one vector, or its first named one)."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        self.reader = QdrantReader(address, credentials)
        self.client, self.note = self.reader.client, self.reader.note
        vectors = self.client.get_collection(address.collection).config.params.vectors
        self.using = next(iter(vectors)) if isinstance(vectors, dict) and vectors else None

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        return [[str(p.id) for p in self.client.query_points(self.reader.address.collection, query=v,
                                                              using=self.using, limit=k,
                                                              with_payload=False).points]
                for v in vectors]

    def close(self) -> None:
        self.reader.close()


class LanceSearch(StoreSearch):
    """``table.search(vector)`` on the table's vector column, answering its id column."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        reader = LanceReader(address, credentials)
        if reader.ids is None or not reader.vector_columns:
            raise StoreError(f"cannot search {address}: the table has no id column (id, node_id) or no vector column")
        self.table, self.ids = reader.table, reader.ids
        self.column = "vector" if "vector" in reader.vector_columns else reader.vector_columns[0]

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        return [[str(row[self.ids]) for row in self.table.search(v, vector_column_name=self.column).limit(k)
                 .select([self.ids]).to_list()] for v in vectors]


class MilvusSearch(StoreSearch):
    """``client.search`` on the collection's vector field, answering its primary keys."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        self.reader = MilvusReader(address, credentials)

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        reader = self.reader
        found = reader.client.search(reader.address.collection, data=vectors, limit=k, anns_field=reader.vector_field,
                                     output_fields=[reader.primary])
        return [[str(hit[reader.primary]) for hit in hits] for hits in found]

    def close(self) -> None:
        self.reader.close()


class PostgresSearch(StoreSearch):
    """pgvector's cosine distance (``<=>``) on the table's ``vector`` column."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        self.reader = PostgresReader(address, credentials)
        with self.reader.connection.cursor() as cursor:
            schema, _, table = address.collection.rpartition(".")
            cursor.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s AND "
                           "table_schema = COALESCE(NULLIF(%s, ''), current_schema()) AND udt_name = 'vector'",
                           (table, schema))
            found = cursor.fetchone()
        if found is None or not self.reader.id:
            self.reader.close()
            raise StoreError(f"cannot search {address}: the table has no pgvector column (or no id column) to "
                             "search with")
        self.column = found[0]

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        sql = self.reader.sql
        query = sql.SQL("SELECT {}::text FROM {}{} ORDER BY {} <=> %s::vector LIMIT %s").format(
            sql.Identifier(self.reader.id), self.reader.table, self.reader.where, sql.Identifier(self.column))
        out = []
        with self.reader.connection.cursor() as cursor:
            for vector in vectors:
                cursor.execute(query, (*self.reader.arguments, "[" + ",".join(map(repr, vector)) + "]", k))
                out.append([row[0] for row in cursor.fetchall()])
        return out

    def close(self) -> None:
        self.reader.close()


class StoreRetriever(Retriever):
    """The store's own search over its chunk set: questions embedded by ``embed`` (the user's
    embedder, ``spec``), the store's best chunks mapped to the pool by where they were placed. The
    store is opened for each ranking and let go after it (Qdrant's local mode locks its folder)."""

    def __init__(self, spec: RetrieverSpec, opener: Callable[[], StoreSearch], embed: Callable[[list[str]], object],
                 placed: dict[str, tuple[str, int, int]], depth: int = SEARCH_DEPTH, label: str = "the store") -> None:
        self.spec, self.opener, self.embed, self.placed, self.depth = spec, opener, embed, placed, depth
        self.label = label
        self.notes: list[str] = []
        """What opening the store said (Chroma's client rewriting a folder's bookkeeping), once each."""
        self.unplaced = 0
        """Chunks the store answered that were not placed on the corpus (and so not ranked)."""
        self.asked = 0

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        if not asks:
            return []
        where = {(pool.doc_ids[d], a, b): j for j, (d, a, b) in
                 enumerate(zip(pool.doc_of.tolist(), pool.starts.tolist(), pool.ends.tolist()))}
        vectors = [[float(x) for x in row] for row in self.embed([a.text for a in asks])]
        self.asked += len(asks)
        out = []
        searcher = self.opener()
        if searcher.note and searcher.note not in self.notes:
            self.notes.append(searcher.note)
        try:
            answered = searcher.search(vectors, k or self.depth)
        except StoreError:
            raise
        except Exception as exc:  # each client raises its own kinds
            raise StoreError(f"searching {self.label} failed: {reason(exc)}") from None
        finally:
            searcher.close()
        for ids in answered:
            ranked = []
            for chunk_id in ids:
                place = self.placed.get(chunk_id)
                position = where.get(place) if place is not None else None
                if position is None:
                    self.unplaced += 1
                elif position not in ranked:
                    ranked.append(position)
            out.append(ranked)
        return out


def store_retriever(imported, spec: RetrieverSpec, *, base_url: str | None = None,
                    credentials: StoreCredentials = NO_CREDENTIALS, depth: int = SEARCH_DEPTH,
                    environ: Mapping[str, str] | None = None) -> StoreRetriever:
    """A ``StoreRetriever`` over a ``StoreImport``'s chunks: questions embedded by ``spec``'s dense
    part (the user's embedder), else by the embedding function the collection records (an
    OpenAI-compatible one, at its own address, its key from the variable it names); ``StoreError``
    when there is neither."""
    from ..retrieval.opening import embedder_of

    dense = spec.dense
    if dense is None:
        dense, embedder = _own_embedder(imported.address, os.environ if environ is None else environ)
    else:
        embedder = embedder_of(dense, base_url)
    open_search(imported.address, credentials).close()  # a store that cannot be searched is said now
    return StoreRetriever(dense, lambda: open_search(imported.address, credentials), embedder.embed, imported.places(),
                          depth, imported.address.label)
