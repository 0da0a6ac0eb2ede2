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
from typing import TYPE_CHECKING

from ..chunks.sets import STORE_FOLDER, ChunkSetStore
from ..context.store import ContextStore
from ..retrieval.questions import QUESTION_SETS, QuestionSetStore
from ..retrieval.spending import SpendPolicy
from ..stores.served import ServedStore

if TYPE_CHECKING:
    from ..atoms.store import AnalysisStore
    from ..split.answers import SplitAnswers
    from .derived import DerivedStore


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

    stores: tuple[ServedStore, ...] = ()
    """The user's own stores the server offers by name (an Orphan Test round or a page's "your
    search" row may ask one itself); their credentials never travel in this value."""

    spend: SpendPolicy | None = None
    """What the server may spend on paid endpoints, charged to the data folder's ledger (None:
    nothing is charged)."""

    @classmethod
    def in_folder(cls, data: str | Path, embeddings_url: str = "", rerank_url: str = "", *,
                  stores: tuple[ServedStore, ...] = (), spend: SpendPolicy | None = None) -> "Services":
        """The services of a data folder: its chunk sets where the app keeps them, beside the rest."""
        return cls(str(data), str(Path(data) / STORE_FOLDER), embeddings_url, rerank_url, tuple(stores), spend)

    def chunk_set_store(self) -> ChunkSetStore | None:
        return ChunkSetStore(self.chunk_sets) if self.chunk_sets else None

    def question_store(self) -> QuestionSetStore | None:
        return QuestionSetStore(Path(self.data) / QUESTION_SETS) if self.data else None

    def context_store(self) -> ContextStore | None:
        return ContextStore(self.data) if self.data else None


@dataclass(frozen=True)
class OpenedServices:
    """An engine's services once opened: its stores and servers, handed as they are to the
    workspaces that see part of its corpus (``Workspace.subset``, a partition's) so that they
    keep and find what it does. None: no such service."""

    chunk_set_store: ChunkSetStore | None = None
    """Where ``imported:ID`` specs not yet registered are looked up."""
    vector_folder: str | None = None
    """Where dense retrievers keep their vectors (``embeddings.sqlite3``; None: in memory)."""
    embeddings_url: str | None = None
    """The OpenAI-compatible server of ``dense:openai:`` retrievers (None: ``$OPENAI_BASE_URL``)."""
    rerank_url: str | None = None
    """The reranker's server (None: ``$CHUNK_INSPECTOR_RERANK_URL``)."""
    question_store: QuestionSetStore | None = None
    """Where the user's question sets are kept."""
    context_store: ContextStore | None = None
    """Where ``+context`` specs find their lines."""
    split_answers: SplitAnswers | None = None
    """Where ``llm`` specs find the answers that place their cuts."""
    analysis_store: AnalysisStore | None = None
    """Where analyses are kept between runs."""
    kept: DerivedStore | None = None
    """Where splits, query candidates, terms and the probe's token counts are kept between runs
    (None: nowhere, and the encoding is built before forking)."""

    @classmethod
    def of(cls, services: Services) -> "OpenedServices":
        """``services`` opened: the data folder's stores, the chunk sets' and the servers."""
        # Imported when opened: the command line reads its Services before it forks the workers
        # that must not inherit numpy, which the derived store imports.
        from ..atoms.store import AnalysisStore
        from ..split.answers import SplitAnswers
        from .derived import DerivedStore

        data = services.data
        return cls(services.chunk_set_store(), data or None, services.embeddings_url or None,
                   services.rerank_url or None, services.question_store(), services.context_store(),
                   SplitAnswers(data) if data else None, AnalysisStore(data) if data else None,
                   DerivedStore(data) if data else None)
