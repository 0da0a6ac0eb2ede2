"""A run of the corpus's documents measured apart from the rest: a partition on a Ray actor
(``ray.partitions``) or a batch the local engine takes back from disk (``stream``).

It holds its documents with their analyses, splits and measures them under a built-in
splitter (survival, sizes and header carry are sums over documents), and counts and ranks its
chunks for BM25 with the whole pool's statistics, so the parts' answers add up to the whole
corpus's."""

from __future__ import annotations

import marshal
import pickle

import numpy as np

from ..atoms.analysis import Analysis
from ..chunks.export import export_text
from ..context.store import ContextStore
from ..measure.derived import DerivedStore
from ..measure.headers import HeaderCarry
from ..measure.services import OpenedServices
from ..measure.summary import Grouped, SplitSummary
from ..measure.workspace import Workspace
from ..model import Document
from ..retrieval.bm25 import BM25, Ranked, Statistics
from ..retrieval.probe import Read
from ..retrieval.ranking import Pool
from ..split.answers import SplitAnswers


class Partition:
    """One partition of the corpus (a Ray actor, or a batch of the local engine): its documents,
    their analyses and terms. It splits and measures them under a built-in splitter, keeping the chunks for the
    rankings that follow, and counts and ranks chunks for BM25: its own, or a pool's the driver
    sends."""

    def __init__(self, mode: str, store: DerivedStore | None = None, context: ContextStore | None = None,
                 answers: SplitAnswers | None = None) -> None:
        self.mode = mode
        self.store = store
        """Where splits, terms and token counts are kept between runs (None: nowhere)."""
        self.context = context
        """Where ``+context`` specs read their lines (None: nowhere)."""
        self.answers = answers
        """Where ``llm`` specs read the answers that place their cuts (None: nowhere)."""
        self.documents: list[Document] = []
        self.analyses: dict[str, Analysis] = {}
        self._work: Workspace | None = None
        self.counted: dict[int, tuple[np.ndarray, dict]] = {}

    def take(self, documents: list[Document | bytes], analyses: list[bytes]) -> int:
        """Add documents (or their pickles) after those taken before, with their analyses
        (``marshal`` bytes of ``Analysis.to_plain``); how many this partition holds."""
        for document, plain in zip(documents, analyses):
            document = pickle.loads(document) if isinstance(document, bytes) else document
            self.documents.append(document)
            self.analyses[document.id] = Analysis.from_plain(marshal.loads(plain))
        self._work = None
        return len(self.documents)

    def subset(self, only: list[int]) -> "Partition":
        """A partition of this one's documents at positions ``only`` (their analyses shared)."""
        part = Partition(self.mode, self.store, self.context, self.answers)
        part.documents = [self.documents[d] for d in only]
        part.analyses = {d.id: self.analyses[d.id] for d in part.documents}
        return part

    @property
    def work(self) -> Workspace:
        """The partition's documents as a workspace, built when first measured."""
        if self._work is None:
            opened = OpenedServices(context_store=self.context, split_answers=self.answers, kept=self.store)
            self._work = Workspace(self.documents, self.mode, opened=opened)
            self._work.add_analyses(self.analyses)
        return self._work

    @property
    def table(self):
        return self.work.term_table().index()

    @property
    def doc_ids(self) -> list[str]:
        return [d.id for d in self.documents]

    def export(self, spec: str, first: int, stop: int) -> str:
        """The export records (JSON lines) of documents ``first`` to ``stop`` under ``spec``."""
        return export_text(self.work.subset(d.id for d in self.documents[first:stop]), spec)

    def summarize(self, spec: str, fits: int | None) -> SplitSummary:
        return self.work.summarize(spec, fits=fits)

    def sizes(self, spec: str, unit: str | None) -> list[int]:
        """What each chunk of ``spec`` embeds, in ``unit`` (default: the spec's), in document order."""
        return self.work.sizes(spec, unit)

    def summaries_by(self, key: str, specs: list[str]) -> Grouped:
        return self.work.summaries_by(key, specs)

    def header_carry(self, spec: str) -> HeaderCarry:
        return self.work.header_carry(spec)

    def release(self, spec: str) -> None:
        self.work.release(spec)

    def statistics(self, ranking: int, pool: str | tuple, wanted: frozenset[str]) -> Statistics:
        """Count BM25's statistics over this partition's chunks of a spec, or of a pool given as
        ``(doc_of, starts, ends, prefixes)`` (kept for ``ranked`` when there is a chunk)."""
        chunks = self.work.pool(pool) if isinstance(pool, str) else Pool(self.table, self.doc_ids, *pool)
        lens, postings = chunks.postings(wanted)
        if len(lens):
            self.counted[ranking] = lens, postings
        return Statistics.of(lens, postings)

    def ranked(self, ranking: int, queries: list[tuple[str, ...]], k: int, pool: Statistics) -> list[Ranked]:
        """Each query's best ``k`` chunks of this partition, scored with the pool's statistics."""
        lens, postings = self.counted.pop(ranking)
        return BM25(lens, postings, pool).ranked(queries, k)

    def reads(self, spec: str, chunks: list[int], tokens: bool) -> tuple[list[Read], list[int] | None]:
        """Some of this partition's chunks of a spec as the probe reads them, and their o200k
        tokens (prefix and text) when asked."""
        pool = self.work.pool(spec)
        spans = zip(chunks, pool.doc_of[chunks].tolist(), pool.starts[chunks].tolist(), pool.ends[chunks].tolist())
        reads = [Read(d, a, b, pool.prefixes[j] if pool.prefixes is not None else "") for j, d, a, b in spans]
        if not tokens:
            return reads, None
        return reads, self.work.o200k_counter()([r.prefix + self.documents[r.doc].text[r.start:r.end] for r in reads])
