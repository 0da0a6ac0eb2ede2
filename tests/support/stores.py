"""Vector stores filled the way users fill them: LangChain's and LlamaIndex's own integrations
(each client's documented insert call where an integration does not install), over the bundled
corpus's markdown files read raw, as a loader reads them, with hashed vectors."""

from __future__ import annotations

import dataclasses
import gc
import json
import os
from pathlib import Path

from tests.support.embedding import hashed_vector
from tests.support.paths import SAMPLE

#: Chroma's client would report usage to a remote address; the tests run offline.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

WIDTH = 8


def markdown_files(root: Path = SAMPLE) -> list[Path]:
    return sorted(p for p in root.rglob("*.md"))


def langchain_chunks(root: Path = SAMPLE, size: int = 400, overlap: int = 40) -> list:
    """LangChain ``Document`` chunks of every markdown file, as ``TextLoader`` and a recursive
    splitter with ``add_start_index=True`` make them (whitespace stripped, LangChain's default)."""
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    documents = [Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
                 for p in markdown_files(root)]
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    return splitter.split_documents(documents)


def app_chunks(size: int = 500, overlap: int = 50) -> list:
    """LangChain chunks of the bundled corpus's documents as the app reads them (front matter
    left out, each named by its source path), with their start offsets."""
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from inspector import load_corpus

    documents = [Document(page_content=d.text, metadata={"source": d.source}) for d in load_corpus(SAMPLE).documents]
    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap,
                                          add_start_index=True).split_documents(documents)


def langchain_embeddings():
    from langchain_core.embeddings import Embeddings

    class Hashed(Embeddings):
        def embed_documents(self, texts):
            return [hashed_vector(t, WIDTH) for t in texts]

        def embed_query(self, text):
            return hashed_vector(text, WIDTH)

    return Hashed()


def as_jsonl(chunks, path: Path) -> Path:
    """The same chunks as a JSONL file of LangChain documents (``page_content`` and ``metadata``)."""
    with open(path, "w", encoding="utf-8") as stream:
        for chunk in chunks:
            stream.write(json.dumps({"page_content": chunk.page_content, "metadata": chunk.metadata}) + "\n")
    return path


def fill_chroma(folder: Path, chunks, collection: str = "docs") -> str:
    from langchain_chroma import Chroma

    store = Chroma.from_documents(chunks, langchain_embeddings(), persist_directory=str(folder),
                                  collection_name=collection)
    del store
    return f"chroma:{folder}?collection={collection}"


def fill_qdrant(folder: Path, chunks, collection: str = "docs") -> str:
    from langchain_qdrant import QdrantVectorStore

    store = QdrantVectorStore.from_documents(chunks, langchain_embeddings(), path=str(folder),
                                             collection_name=collection)
    store.client.close()
    return f"qdrant:{folder}?collection={collection}"


def fill_milvus(target: Path | str, chunks, collection: str = "docs") -> str:
    """LangChain's ``Milvus`` adding the chunks to a Milvus Lite file, or to the server at
    ``target`` when it is an ``http://`` address."""
    from langchain_milvus import Milvus

    store = Milvus.from_documents(chunks, langchain_embeddings(), connection_args={"uri": str(target)},
                                  collection_name=collection)
    store.client.close()
    served = str(target).startswith("http")
    return f"milvus{'+' if served else ':'}{target}?collection={collection}"


def fill_lancedb(folder: Path, chunks, table: str = "docs") -> str:
    """LanceDB through its client, in the layout LangChain's ``LanceDB`` writes: ``vector``, ``id``,
    ``text`` and ``metadata`` (a struct) per row."""
    import uuid

    import lancedb

    rows = [{"vector": hashed_vector(c.page_content, WIDTH), "id": str(uuid.uuid4()), "text": c.page_content,
             "metadata": c.metadata} for c in chunks]
    lancedb.connect(str(folder)).create_table(table, data=rows)
    return f"lancedb:{folder}?table={table}"


def fill_chroma_llamaindex(folder: Path, root: Path = SAMPLE, collection: str = "docs") -> str:
    """LlamaIndex's ingestion into Chroma: ``SimpleDirectoryReader`` over the markdown files, a
    ``SentenceSplitter``, ``ChromaVectorStore`` (nodes kept whole as ``_node_content``)."""
    import chromadb
    from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.vector_stores.chroma import ChromaVectorStore

    class Hashed(BaseEmbedding):
        def _get_text_embedding(self, text):
            return hashed_vector(text, WIDTH)

        def _get_query_embedding(self, text):
            return hashed_vector(text, WIDTH)

        async def _aget_query_embedding(self, text):
            return hashed_vector(text, WIDTH)

    documents = SimpleDirectoryReader(input_files=[str(p) for p in markdown_files(root)]).load_data()
    client = chromadb.PersistentClient(path=str(folder))
    store = ChromaVectorStore(chroma_collection=client.get_or_create_collection(collection))
    VectorStoreIndex.from_documents(documents, storage_context=StorageContext.from_defaults(vector_store=store),
                                    embed_model=Hashed(), transformations=[SentenceSplitter(chunk_size=200,
                                                                                            chunk_overlap=20)])
    return f"chroma:{folder}?collection={collection}"


def fill_postgres(uri: str, chunks, table: str = "langchain_pg_embedding", collection: str = "docs") -> str:
    """Tables laid out as LangChain's ``PGVector`` lays them out: ``langchain_pg_collection``
    (``uuid``, ``name``) and ``langchain_pg_embedding`` (``id``, ``collection_id``, ``embedding``,
    ``document``, ``cmetadata`` JSONB), the vector a ``float8[]`` here, since the machine's
    PostgreSQL has no pgvector extension. Each call adds one collection."""
    import uuid

    import psycopg

    with psycopg.connect(uri, autocommit=True) as connection:
        connection.execute("CREATE TABLE IF NOT EXISTS langchain_pg_collection (uuid uuid PRIMARY KEY, name varchar, "
                           "cmetadata json)")
        connection.execute(f"CREATE TABLE IF NOT EXISTS {table} (id varchar PRIMARY KEY, collection_id uuid, "
                           "embedding float8[], document varchar, cmetadata jsonb)")
        group = str(uuid.uuid4())
        connection.execute("INSERT INTO langchain_pg_collection VALUES (%s, %s, NULL)", (group, collection))
        with connection.cursor() as cursor:
            cursor.executemany(f"INSERT INTO {table} VALUES (%s, %s, %s, %s, %s)",
                               [(str(uuid.uuid4()), group, hashed_vector(c.page_content, WIDTH), c.page_content,
                                 json.dumps(c.metadata)) for c in chunks])
    return uri + f"?table={table}"


def fill_pgvector(uri: str, chunks, collection: str = "docs") -> str:
    """LangChain's own ``PGVector`` (``langchain-postgres``) adding the chunks to a server with the
    pgvector extension: its tables, its ``vector`` column, its JSONB metadata."""
    from langchain_postgres import PGVector
    from sqlalchemy import create_engine

    engine = create_engine(uri.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        PGVector(embeddings=langchain_embeddings(), collection_name=collection, use_jsonb=True,
                 connection=engine).add_documents(chunks)
    finally:
        engine.dispose()
    return uri + "?table=langchain_pg_embedding"


def nearest(question: str, chunks, metric: str, k: int) -> list[str]:
    """The texts of the ``k`` chunks nearest ``question`` by brute force over the hashed vectors
    the stores were filled with (``cosine`` or ``l2``), ties in insertion order."""
    import numpy as np

    texts = [c.page_content for c in chunks]
    stored = np.asarray([hashed_vector(t, WIDTH) for t in texts])
    asked = np.asarray(hashed_vector(question, WIDTH))
    if metric == "cosine":
        distance = -(stored @ asked) / np.linalg.norm(stored, axis=1) / np.linalg.norm(asked)
    else:
        distance = np.linalg.norm(stored - asked, axis=1)
    return [texts[i] for i in np.argsort(distance, kind="stable")[:k]]


def haystack_documents(root: Path = SAMPLE, words: int = 80, overlap: int = 10) -> list:
    """Haystack's own indexing pipeline up to its embedder: ``TextFileToDocument`` over the markdown
    files, ``DocumentSplitter`` by words; each split then given its hashed vector."""
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    from haystack import Pipeline
    from haystack.components.converters import TextFileToDocument
    from haystack.components.preprocessors import DocumentSplitter

    pipeline = Pipeline()
    pipeline.add_component("convert", TextFileToDocument())
    pipeline.add_component("split", DocumentSplitter(split_by="word", split_length=words, split_overlap=overlap))
    pipeline.connect("convert", "split")
    documents = pipeline.run({"convert": {"sources": markdown_files(root)}})["split"]["documents"]
    return [dataclasses.replace(d, embedding=hashed_vector(d.content, WIDTH)) for d in documents]


def fill_qdrant_haystack(folder: Path, documents, collection: str = "docs") -> str:
    """Haystack's ``QdrantDocumentStore`` (local mode) written by its ``DocumentWriter``."""
    from haystack.components.writers import DocumentWriter
    from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

    store = QdrantDocumentStore(path=str(folder), index=collection, embedding_dim=WIDTH, recreate_index=True)
    assert DocumentWriter(store).run(documents)["documents_written"] == len(documents)
    del store  # the local mode holds its folder's lock until the client is let go
    gc.collect()
    return f"qdrant:{folder}?collection={collection}"


def asked(work, found, questions, **options):
    """The store ``found`` (a ``read_store`` result on ``work``'s documents) asked ``questions``
    itself, embedded by the test's embeddings server: each question's best five chunk texts,
    the retriever, and what the embeddings server was sent."""
    from inspector.chunks.sets import make_chunk_set
    from inspector.retrieval.ranking import Question
    from inspector.retrieval.retriever_spec import parse_retriever
    from inspector.stores.search import store_retriever
    from tests.support.embedding import EmbeddingServer

    pool = work.pool(work.add_chunk_set(make_chunk_set("s", work.fingerprint, work.documents, found.result.chunks)))
    texts = pool.texts()
    with EmbeddingServer(width=WIDTH) as server:
        retriever = store_retriever(found, parse_retriever("dense:openai:test-embed"), base_url=server.url, **options)
        ranked = retriever.rank([Question.of(q) for q in questions], pool, 5)
    return [[texts[j] for j in positions] for positions in ranked], retriever, server.requests


def tree_digest(path: Path) -> dict[str, str]:
    """Every file under ``path`` (or the file) with its content digest: a store read must not change."""
    import hashlib

    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
