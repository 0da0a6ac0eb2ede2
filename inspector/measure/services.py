"""A corpus's services outside its documents, as one value.

Where a run keeps what it derives and finds what it was given (the data folder, the folder of
imported chunk sets) and the servers it may ask (embeddings, reranking). The face that opens a
corpus builds it once (the app from its launch settings, a worker from its handle) and the
engine is built with it, so no service is wired onto an engine afterwards and two data folders
never share one engine. A plain value: equal settings are one key, and it crosses to a worker
process as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..chunks.sets import STORE_FOLDER, ChunkSetStore
from ..context.store import ContextStore
from ..retrieval.questions import QUESTION_SETS, QuestionSetStore


@dataclass(frozen=True, slots=True)
class Services:
    """The folders and servers an engine's measures use (empty: none)."""

    data: str = ""
    """The data folder: analyses and splits kept between runs, vectors, question sets, context
    lines, the answers that place an ``llm`` chunker's cuts (empty: nothing is kept)."""

    chunk_sets: str = ""
    """Where ``imported:ID`` specs are looked up (empty: nowhere)."""

    embeddings_url: str = ""
    """The OpenAI-compatible server of ``dense:openai:`` retrievers (empty: ``$OPENAI_BASE_URL``)."""

    rerank_url: str = ""
    """The reranker's server (empty: ``$CHUNK_INSPECTOR_RERANK_URL``)."""

    @classmethod
    def in_folder(cls, data: str | Path, embeddings_url: str = "", rerank_url: str = "") -> "Services":
        """The services of a data folder: its chunk sets where the app keeps them, beside the rest."""
        return cls(str(data), str(Path(data) / STORE_FOLDER), embeddings_url, rerank_url)

    def chunk_set_store(self) -> ChunkSetStore | None:
        return ChunkSetStore(self.chunk_sets) if self.chunk_sets else None

    def question_store(self) -> QuestionSetStore | None:
        return QuestionSetStore(Path(self.data) / QUESTION_SETS) if self.data else None

    def context_store(self) -> ContextStore | None:
        return ContextStore(self.data) if self.data else None
