"""What the streamed engine's workers do with one batch of a corpus (``stream``): read it, measure
it, rank its chunks, read some of them back, export it; and how the batches are shared among
forked workers. Each function takes one picklable job and returns what the command's process
adds up. A job's first two items say where its batch is held and which it is: a ``Spill`` on
disk, or a Ray actor holding a partition of the corpus, which runs the job on itself
(``ray.partitions.ClusterPartition``); both answer what ``Held`` lists."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

import numpy as np

from ...corpus.listing import SkippedFile
from ...corpus.load import Reading
from ...forking import can_fork, forked_pool
from ...measure.asking import fragments
from ...measure.headers import HeaderCarry
from ...measure.summary import Grouped, SplitSummary
from ...model import Document, Span, every_script
from ...retrieval.bm25 import BM25, Ranked, Statistics
from ...retrieval.opening import shared_retriever
from ...retrieval.probe import Read, chosen_words
from ...retrieval.ranking import dense_ranked
from ..partition import Partition
from ..reading import facts_of, read_analysed
from .spill import Spill


class Held(Protocol):
    """Where a job's batch is held, as its worker asks it (``Spill``, or a Ray actor's partition)."""

    def partition(self, batch: int, mode: str, only: Sequence[int] | None = None) -> Partition: ...

    def documents_of(self, batch: int) -> list[Document]: ...

    def keep(self, batch: int, name: str, value) -> None: ...

    def kept(self, batch: int, name: str): ...


@dataclass(frozen=True, slots=True)
class Embedding:
    """How a worker embeds chunks for a dense or hybrid retriever: the dense retriever's spec,
    the OpenAI-compatible server (None: ``$OPENAI_BASE_URL``) and where vectors are kept (None:
    in memory only)."""

    spec: str
    base_url: str | None = None
    folder: str | None = None

    def grid(self, pool) -> np.ndarray:
        """The grid vectors (``ranking.on_grid``) of a pool's chunks, the retriever opened once a
        process and holding none of them after (they are kept on disk, and parked beside the batch)."""
        retriever = shared_retriever(self.spec, base_url=self.base_url, cache_folder=self.folder)
        try:
            return retriever.pool_grid(pool)
        finally:
            retriever.vectors.forget()


@dataclass(frozen=True, slots=True)
class Asked:
    """What one pass over the batches measures: summaries ``(spec, fits)``, probes (with the
    query words ``wanted``, and each chunk's vector when ``embedding`` is given) and header
    carry, specs as strings."""

    summaries: tuple[tuple[str, int | None], ...] = ()
    probes: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    wanted: frozenset[str] = frozenset()
    tag: int = 0
    """The pass's number, naming the counts it parks."""
    embedding: Embedding | None = None

    def specs(self) -> list[str]:
        return list(dict.fromkeys([*(s for s, _ in self.summaries), *self.probes, *self.headers]))

    def counts(self, spec: str) -> str:
        """The name a batch's counts of a probed spec are parked under."""
        return f"{self.tag}-{self.probes.index(spec)}.counted"

    def vectors(self, spec: str) -> str:
        """The name a batch's chunk vectors of a probed spec are parked under."""
        return vectors_beside(self.counts(spec))


def vectors_beside(counts: str) -> str:
    """The name chunk vectors are parked under beside counts parked as ``counts`` (and dropped with them)."""
    return counts.replace(".counted", "-vectors.counted")


@dataclass(frozen=True, slots=True)
class Queries:
    """Questions as a ranking pass sends them to every batch: their words, for BM25, and their
    grid vectors when a dense retriever ranks (alone, or fused with BM25: ``hybrid``)."""

    words: list[tuple[str, ...]]
    vectors: np.ndarray | None = None
    hybrid: bool = False

    @classmethod
    def of(cls, texts: list[str], words: list[tuple[str, ...]], retriever) -> "Queries":
        """The questions of these texts and words as ``retriever`` ranks them."""
        if retriever.spec.kind == "bm25":
            return cls(words)
        dense = retriever if retriever.spec.kind == "dense" else retriever.dense
        return cls(words, dense.grid(texts), retriever.spec.kind == "hybrid")

    def lexical(self, held: Held, batch: int, name: str, pool: Statistics) -> "Lexical":
        """The batch's chunks of a spec (its counts parked under ``name``) ranked by BM25 with the pool's statistics."""
        return Lexical(held.kept(batch, name).ranking(pool), self.words)

    def dense(self, held: Held, batch: int, name: str) -> "Dense":
        """The batch's chunks of a spec (its counts parked under ``name``) ranked by their vectors."""
        return Dense(self.vectors, held.kept(batch, vectors_beside(name)).astype(np.float64))

    def ranking(self, held: Held, batch: int, name: str, pool: Statistics):
        """The batch's ranking by BM25 or, when the questions have vectors, by them."""
        return self.lexical(held, batch, name, pool) if self.vectors is None else self.dense(held, batch, name)


@dataclass(frozen=True, slots=True)
class Lexical:
    """One batch's chunks ranked by BM25 for the questions' words."""

    bm25: BM25
    words: list[tuple[str, ...]]

    def ranked(self, k: int) -> list[Ranked]:
        return self.bm25.ranked(self.words, k)


@dataclass(frozen=True, slots=True)
class Dense:
    """One batch's chunks ranked by their grid vectors' dot products with the questions' (float64)."""

    questions: np.ndarray
    chunks: np.ndarray

    def ranked(self, k: int | None) -> list[Ranked]:
        return dense_ranked(self.questions, self.chunks, k)

    def scores(self, question: int) -> np.ndarray:
        """Every chunk's score for one question."""
        return self.chunks @ self.questions[question]


@dataclass(frozen=True, slots=True)
class Counted:
    """One batch's chunks of a probed configuration as BM25 ranks them: each chunk's length in
    terms, the query words' postings, and how many chunks each document has. Parked beside the
    batch until every batch is counted (``Asked.counts``), so nothing is held per chunk here."""

    lens: np.ndarray
    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    per_document: np.ndarray

    @classmethod
    def of(cls, lens: np.ndarray, postings: dict[str, tuple[np.ndarray, np.ndarray]],
           per_document: np.ndarray) -> "Counted":
        """Kept in 32-bit integers, half what ranking computes in (a batch has far fewer than
        2**31 chunks, terms or repeats)."""
        return cls(lens.astype(np.int32), {word: (ids.astype(np.int32), tf.astype(np.int32))
                                           for word, (ids, tf) in postings.items()}, per_document.astype(np.int32))

    def statistics(self) -> Statistics:
        return Statistics.of(self.lens, self.postings)

    def ranking(self, pool: Statistics) -> BM25:
        """BM25 over this batch's chunks with the pool's statistics, in the types it ranks in."""
        return BM25(self.lens.astype(np.int64), {word: (ids.astype(np.int64), tf.astype(np.float64))
                                                 for word, (ids, tf) in self.postings.items()}, pool)


@dataclass(frozen=True, slots=True)
class BatchMeasures:
    """What one batch sends back of a pass."""

    summaries: dict[tuple[str, int | None], SplitSummary]
    headers: dict[str, HeaderCarry]
    statistics: dict[str, Statistics]
    """Each probed spec's BM25 statistics over the batch (its counts parked beside it)."""


def measure_batch(job: tuple[Held, int, str, Asked]) -> BatchMeasures:
    """Measure one batch (in a worker): every configuration split once, then let go."""
    held, batch, mode, asked = job
    part = held.partition(batch, mode)
    summaries, headers, statistics = {}, {}, {}
    for spec in asked.specs():
        for key in (key for key in asked.summaries if key[0] == spec):
            summaries[key] = part.summarize(spec, key[1])
        if spec in asked.headers:
            headers[spec] = part.header_carry(spec)
        if spec in asked.probes:
            part.work.find_words(asked.wanted)  # kept, for the batch's documents and these words
            pool = part.work.pool(spec)
            lens, postings = pool.postings(asked.wanted)
            counted = Counted.of(lens, postings, np.bincount(pool.doc_of, minlength=len(part.documents)))
            held.keep(batch, asked.counts(spec), counted)
            if asked.embedding is not None:  # whole numbers below 2**24: float32 holds them exactly
                held.keep(batch, asked.vectors(spec), asked.embedding.grid(pool).astype(np.float32))
            statistics[spec] = counted.statistics()
        part.release(spec)
    # The command runs with the collector paused, and a worker lives for many batches; the batch
    # let go first, so the collection walks what outlives it, not every object of its documents.
    del part
    gc.collect()
    return BatchMeasures(summaries, headers, statistics)


def rank_batch(job: tuple[Held, int, dict[str, str], Queries, int, dict[str, Statistics]]
           ) -> dict[str, list[Ranked]]:
    """Each query's best ``k`` chunks of one batch (in a worker), per probed spec (its counts
    parked under a name): by BM25 scored with the whole pool's statistics, or by their vectors;
    chunks as the batch's."""
    held, batch, names, queries, k, pools = job
    return {spec: queries.ranking(held, batch, name, pools[spec]).ranked(k) for spec, name in names.items()}


def words_batch(job: tuple[Held, int, str, list[tuple[int, Span]]]) -> list[tuple[str, ...]]:
    """The query words of figure sentences ``(document position in the batch, span)`` (in a worker)."""
    held, batch, mode, wanted = job
    documents, scripts = held.documents_of(batch), every_script(mode)
    return [chosen_words(documents[doc].text, span, scripts) for doc, span in wanted]


def read_batch(job: tuple[Spill, int, Reading, str | None, Sequence[tuple[str, str]]]) -> list:
    """Read, analyse and park one batch (in a worker); each file's facts, or why it was skipped."""
    spill, batch, reading, store, entries = job
    found = read_analysed(reading, store, entries)
    analysed = [item for item in found if not isinstance(item, SkippedFile)]
    spill.write(batch, [d for d, _ in analysed], [a for _, a in analysed])
    facts = [item if isinstance(item, SkippedFile) else facts_of(*item, reading.mode) for item in found]
    del found, analysed  # as in ``measure_batch``: the collection walks what outlives the batch
    gc.collect()
    return facts


@dataclass(frozen=True, slots=True)
class ReadBackPart:
    """Some chunks of one batch under one spec as the probe reads them (positions in the batch's
    chunks of the spec): the chunks asked for, with their neighbours when windows are read."""

    positions: list[int]
    """Every chunk read, in order."""

    reads: list[Read]
    """Their spans, documents as positions in the batch."""

    tokens: list[int] | None
    """Their o200k tokens (prefix and text); None when not counted."""

    cut: list[bool]
    """Whether each holds part, not all, of an atom."""

    windows: list[tuple[int, int]]
    """For each chunk asked for: the first and the last chunk of its window (its document's)."""


def read_back_batch(job: tuple[Held, int, str, dict[str, tuple[str, list[int]]], bool, int]
                    ) -> dict[str, ReadBackPart]:
    """Some chunks of one batch (per spec, its counts' name and the chunks' positions in the
    batch) as the probe reads them (in a worker), each with ``width`` neighbours either side in
    its document; only their documents are split again."""
    held, batch, mode, wanted, counting, width = job
    places: dict[str, list[tuple[int, int]]] = {}  # spec -> (document in the batch, place in it)
    found: dict[str, ReadBackPart] = {}
    for spec, (name, chunks) in wanted.items():
        counts = held.kept(batch, name).per_document
        ends = np.cumsum(counts)
        firsts = ends - counts
        asked = np.asarray(chunks, dtype=np.int64)
        docs = np.searchsorted(ends, asked, side="right")
        low, high = np.maximum(firsts[docs], asked - width), np.minimum(ends[docs] - 1, asked + width)
        read = sorted({j for a, b in zip(low.tolist(), high.tolist()) for j in range(a, b + 1)})
        docs = np.searchsorted(ends, read, side="right")
        places[spec] = list(zip(docs.tolist(), (np.asarray(read, dtype=np.int64) - firsts[docs]).tolist()))
        found[spec] = ReadBackPart(read, [], None, [], list(zip(low.tolist(), high.tolist())))
    needed = sorted({doc for chosen in places.values() for doc, _ in chosen})
    part = held.partition(batch, mode, needed)
    for spec, chosen in places.items():
        pool = part.work.pool(spec)
        firsts = dict(zip(needed, accumulate([0, *np.bincount(pool.doc_of, minlength=len(needed)).tolist()])))
        reads, tokens = part.reads(spec, [firsts[doc] + place for doc, place in chosen], counting)
        cut = fragments(part.work, [(part.documents[r.doc].id, r.start, r.end) for r in reads])
        found[spec] = ReadBackPart(found[spec].positions, [Read(needed[r.doc], r.start, r.end, r.prefix)
                                                           for r in reads], tokens, cut, found[spec].windows)
        part.release(spec)
    return found


def on_batch(job: tuple[Held, int, str, Callable, tuple]):
    """A function of one batch's documents as a workspace, and more arguments (in a worker)."""
    held, batch, mode, function, args = job
    part = held.partition(batch, mode)
    return function(part.work, *args)


def group_batch(job: tuple[Held, int, str, str, list[str]]) -> Grouped:
    """Each spec's counts over one batch's documents of each format or language (in a worker)."""
    held, batch, mode, key, specs = job
    part = held.partition(batch, mode)
    return part.summaries_by(key, specs)


def size_batch(job: tuple[Held, int, str, str, str | None]) -> list[int]:
    """What each chunk of one batch embeds under a spec, in a unit (in a worker)."""
    held, batch, mode, spec, unit = job
    part = held.partition(batch, mode)
    return part.sizes(spec, unit)


def export_batch(job: tuple[Held, int, str, str, tuple[int, int] | None]) -> str:
    """The export records (JSON lines) of one batch's documents under a spec (in a worker): all
    of them, or those from ``first`` to ``stop`` in it."""
    held, batch, mode, spec, within = job
    part = held.partition(batch, mode)
    return part.export(spec, *(within or (0, len(part.documents))))


def on_workers(function: Callable, jobs: Sequence, workers: int) -> Iterator:
    """``function`` of every job, in order: in ``workers`` forked processes when there are
    several (each holding one batch at a time), else here."""
    if workers > 1 and len(jobs) > 1 and can_fork():
        with forked_pool(min(workers, len(jobs))) as pool:
            yield from pool.imap(function, jobs)
    else:
        yield from map(function, jobs)
