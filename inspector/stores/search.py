"""Asking the user's store itself: each question embedded by the embedder their pipeline uses,
the store's own query API answering its best chunks, mapped back onto the spans where the
store's chunks were placed.

``StoreRetriever`` is a ``Retriever`` of the store's chunk set only (the chunks ``read_store``
placed): it ranks what the store answers, best first, and nothing else, so golden recall, cut
vs rank-miss and context tokens measure the user's real retrieval. A returned chunk that was not
placed on the corpus is counted (``unplaced``), never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import StoreError
from ..retrieval.ranking import Ask, Pool, Retriever
from ..retrieval.retriever_spec import RetrieverSpec
from .address import StoreAddress, StoreCredentials
from .chroma import ChromaClientReader
from .postgres import PostgresReader
from .private_copy import PrivateCopy, private
from .readers import LanceReader, MilvusReader, QdrantReader
from .reading import reason

NO_CREDENTIALS = StoreCredentials()

#: How many chunks the store is asked for when a measure wants a whole ranking (recall at budgets).
SEARCH_DEPTH = 100


def needs_embedder(address: StoreAddress) -> StoreError:
    """The refusal when a store would be asked without the operator's embedder. What the store
    records of its own embedding function is named as a hint, never used: its address and the
    variable its key is read from are whatever whoever wrote the folder chose."""
    from .chroma import own_embedding

    own = own_embedding(address)
    made = (f"; the collection records Chroma's {own.name} embedding function"
            + (f" ({own.model})" if own.model else "")) if own else ""
    return StoreError(f"asking {address.label} itself needs the embedder your pipeline uses: pass --retriever "
                      f"dense:openai:MODEL (its address from --embeddings-url or OPENAI_BASE_URL, its key from "
                      f"OPENAI_API_KEY), dense:minilm or dense:model2vec:PATH{made}")


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
    """``collection.query`` with the question's vector, through Chroma's client (on a private
    copy of a folder: the client writes to what it opens)."""

    def __init__(self, address: StoreAddress, credentials: StoreCredentials) -> None:
        self.reader = ChromaClientReader(address, credentials)

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        found = self.reader.collection.query(query_embeddings=vectors, n_results=k, include=[])
        return [[str(i) for i in ids] for ids in found["ids"]]

    def close(self) -> None:
        self.reader.close()


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
        self.reader = reader = LanceReader(address, credentials)
        if reader.ids is None or not reader.vector_columns:
            reader.close()
            raise StoreError(f"cannot search {address}: the table has no id column (id, node_id) or no vector column")
        self.ids = reader.ids
        self.column = "vector" if "vector" in reader.vector_columns else reader.vector_columns[0]

    def search(self, vectors: list[list[float]], k: int) -> list[list[str]]:
        table = self.reader.table
        return [[str(row[self.ids]) for row in table.search(v, vector_column_name=self.column).limit(k)
                 .select([self.ids]).to_list()] for v in vectors]

    def close(self) -> None:
        self.reader.close()


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
                 placed: dict[str, tuple[str, int, int]], depth: int = SEARCH_DEPTH, label: str = "the store",
                 copy: PrivateCopy | None = None) -> None:
        self.spec, self.opener, self.embed, self.placed, self.depth = spec, opener, embed, placed, depth
        self.label = label
        self.copy = copy
        """The private copy of a local store that every ranking opens (removed with the retriever)."""
        self.notes: list[str] = []
        """What opening the store said (Qdrant's local mode holding a collection in memory), once each."""
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
                    credentials: StoreCredentials = NO_CREDENTIALS, depth: int = SEARCH_DEPTH) -> StoreRetriever:
    """A ``StoreRetriever`` over a ``StoreImport``'s chunks, questions embedded by ``spec``'s dense
    part: the operator's embedder, at ``base_url`` (the operator's setting) with the operator's
    key. Without one, ``StoreError`` saying what to pass, before anything is opened or sent."""
    from ..retrieval.opening import embedder_of

    dense = spec.dense
    if dense is None:
        raise needs_embedder(imported.address)
    embedder = embedder_of(dense, base_url)
    # One private copy of a local store for every ranking (the retriever holds it; it goes with it).
    searched, copy = private(imported.address)
    try:
        open_search(searched, credentials).close()  # a store that cannot be searched is said now
    except BaseException:
        if copy is not None:
            copy.close()
        raise
    return StoreRetriever(dense, lambda: open_search(searched, credentials), embedder.embed, imported.places(),
                          depth, imported.address.label, copy)
