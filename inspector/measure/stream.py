"""The local engine over a corpus it does not hold: ``report``, ``check`` and ``export`` with
memory that does not grow with the corpus's text.

The corpus is cut into batches of about equal file bytes (``spill.batch_runs``) and crossed in
two passes, each batch in a forked worker:

1. *Reading* (``read_streamed``): each batch's files are read, their analyses taken from the
   data folder or computed and kept there, and the batch is parked on disk (``spill.Spill``).
   This process keeps each document's id and query candidates and the corpus's facts.
2. *Measuring* (``StreamWorkspace.measure_ahead``, or one configuration when first asked): each
   batch is taken back and measured for every configuration at once by the code that measures
   ``--engine ray``'s partitions (``partition.Partition``): survival, sizes and header carry are
   sums over documents; for the probe each batch sends the lengths of its chunks in terms and
   the query words' postings, which this process sums into the pool's statistics and ranks
   batch by batch with them, merging the best k; the batches holding the winners are read once
   more for their spans, prefixes and tokens.

Scores use the pool's statistics in the article's order and ties are broken by the same keys,
so every number is the one the whole corpus held in memory gives. What is held for the whole
corpus: ids, query candidates and atom lengths, and per probed configuration a length per chunk
and the query words' postings, a few bytes per chunk. The rest (golden sets, chunks made
elsewhere, neighbour windows, dense retrievers) needs the corpus in memory: ``Workspace``.
"""

from __future__ import annotations

import gc
import multiprocessing
import weakref
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import IO

import numpy as np

from ..corpus.listing import Listing, SkippedFile
from ..corpus.load import Fingerprint, Reading
from ..errors import EngineError
from ..lengths import get_length
from ..model import Span, every_script
from ..retrieval.bm25 import BM25, Ranked, Statistics, merge_ranked
from ..retrieval.probe import ProbeResult, Query, Read, chosen_words, drawn, judge
from ..retrieval.ranking import BM25Retriever, Retriever, shared_retriever
from ..spec import SplitterSpec, parse_spec
from .headers import HeaderCarry
from .partition import Partition
from .reading import facts_of, read_analysed
from .spill import Spill, batch_runs
from .summary import CorpusFacts, SplitSummary

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Asked:
    """What one pass over the batches measures: summaries ``(spec, fits)``, probes (with the
    query words ``wanted``) and header carry, specs as strings."""

    summaries: tuple[tuple[str, int | None], ...] = ()
    probes: tuple[str, ...] = ()
    headers: tuple[str, ...] = ()
    wanted: frozenset[str] = frozenset()
    tag: int = 0
    """The pass's number, naming the counts it parks."""

    def specs(self) -> list[str]:
        return list(dict.fromkeys([*(s for s, _ in self.summaries), *self.probes, *self.headers]))

    def counts(self, spec: str) -> str:
        """The name a batch's counts of a probed spec are parked under."""
        return f"{self.tag}-{self.probes.index(spec)}.counted"


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


def _measured(job: tuple[Spill, int, str, Asked]) -> BatchMeasures:
    """Measure one batch (in a worker): every configuration split once, then let go."""
    spill, batch, mode, asked = job
    part = Partition(mode)
    part.take(*spill.read(batch))
    summaries, headers, statistics = {}, {}, {}
    for spec in asked.specs():
        for key in (key for key in asked.summaries if key[0] == spec):
            summaries[key] = part.summarize(spec, key[1])
        if spec in asked.headers:
            headers[spec] = part.header_carry(spec)
        if spec in asked.probes:
            pool = part.work.pool(spec)
            lens, postings = pool.postings(asked.wanted)
            counted = Counted.of(lens, postings, np.bincount(pool.doc_of, minlength=len(part.documents)))
            spill.keep(batch, asked.counts(spec), counted)
            statistics[spec] = counted.statistics()
        part.release(spec)
    gc.collect()  # the command runs with the collector paused; a worker lives for many batches
    return BatchMeasures(summaries, headers, statistics)


def _ranks(job: tuple[Spill, int, dict[str, str], list[tuple[str, ...]], int, dict[str, Statistics]]
           ) -> dict[str, list[Ranked]]:
    """Each query's best ``k`` chunks of one batch (in a worker), per probed spec (its counts
    parked under a name), scored with the whole pool's statistics; chunks as the batch's."""
    spill, batch, names, words, k, pools = job
    return {spec: spill.kept(batch, name).ranking(pools[spec]).ranked(words, k) for spec, name in names.items()}


def _read(job: tuple[Spill, int, Reading, str | None, Sequence[tuple[str, str]]]) -> list:
    """Read, analyse and park one batch (in a worker); each file's facts, or why it was skipped."""
    spill, batch, reading, store, entries = job
    found = read_analysed(reading, store, entries)
    analysed = [item for item in found if not isinstance(item, SkippedFile)]
    spill.write(batch, [d for d, _ in analysed], [a for _, a in analysed])
    gc.collect()
    return [item if isinstance(item, SkippedFile) else facts_of(*item, reading.mode) for item in found]


def _reads(job: tuple[Spill, int, str, dict[str, tuple[str, list[int]]], bool]
           ) -> dict[str, tuple[list[Read], list[int] | None]]:
    """Some chunks of one batch (per spec, its counts' name and the chunks' positions in the
    batch) as the probe reads them (in a worker), and their tokens when ``counting``; only their
    documents are split again."""
    spill, batch, mode, wanted, counting = job
    places: dict[str, list[tuple[int, int]]] = {}  # spec -> (document in the batch, place in it)
    for spec, (name, chunks) in wanted.items():
        counts = spill.kept(batch, name).per_document
        ends = np.cumsum(counts)
        docs = np.searchsorted(ends, chunks, side="right")
        places[spec] = list(zip(docs.tolist(), (np.asarray(chunks) - (ends - counts)[docs]).tolist()))
    documents, plains = spill.read(batch)
    needed = sorted({doc for chosen in places.values() for doc, _ in chosen})
    part = Partition(mode)
    part.take([documents[d] for d in needed], [plains[d] for d in needed])
    base, found = spill.bounds[batch], {}
    for spec, chosen in places.items():
        pool = part.work.pool(spec)
        firsts = dict(zip(needed, accumulate([0, *np.bincount(pool.doc_of, minlength=len(needed)).tolist()])))
        reads, tokens = part.reads(spec, [firsts[doc] + place for doc, place in chosen], counting)
        found[spec] = [Read(base + needed[r.doc], r.start, r.end, r.prefix) for r in reads], tokens
        part.release(spec)
    return found


def _exported(job: tuple[Spill, int, str, str]) -> str:
    spill, batch, mode, spec = job
    part = Partition(mode)
    held = part.take(*spill.read(batch))
    return part.export(spec, 0, held)


def _mapped(function: Callable, jobs: Sequence, workers: int) -> Iterator:
    """``function`` of every job, in order: in ``workers`` forked processes when there are
    several (each holding one batch at a time), else here."""
    if workers > 1 and len(jobs) > 1 and "fork" in multiprocessing.get_all_start_methods():
        with multiprocessing.get_context("fork").Pool(min(workers, len(jobs))) as pool:
            yield from pool.imap(function, jobs)
    else:
        yield from map(function, jobs)


def read_streamed(listing: Listing, reading: Reading, store: str | None = None, *, jobs: int = 1,
                  progress: Progress | None = None) -> "StreamWorkspace":
    """A listing's files read in batches by ``jobs`` workers, analysed (analyses kept in the data
    folder ``store``) and parked on disk, this process keeping only what ``StreamWorkspace`` lists."""
    sizes = listing.sizes()
    runs = batch_runs(sizes, jobs)
    spill = Spill()
    work = StreamWorkspace(spill, reading.mode, jobs, progress)
    reading = replace(reading, progress=None)  # a worker reports nothing; this process counts files
    batches = [(spill, b, reading, store, listing.entries[a:z]) for b, (a, z) in enumerate(zip(runs, runs[1:]))]
    skipped = list(listing.skipped)
    work.passes.append(("read", len(batches)))
    for batch, found in enumerate(_mapped(_read, batches, jobs)):
        held = 0
        for item in found:
            if isinstance(item, SkippedFile):
                skipped.append(item)
                continue
            doc_id, characters, language, lengths, candidates = item
            work.ids.append(doc_id)
            work.facts.add(characters, language, lengths)
            work.candidates.append(candidates)
            held += 1
        spill.add(held)
        if progress is not None:
            progress("files read", runs[batch + 1], len(sizes))
    work.skipped = tuple(sorted(skipped, key=lambda s: (s.path, s.reason)))
    return work


class StreamWorkspace:
    """A corpus parked on disk, measured batch by batch (see the module). It answers what
    ``report``'s four tables, ``check``'s gate and ``export`` ask of a workspace, for built-in
    splitters ranked by BM25, each chunk read alone."""

    def __init__(self, spill: Spill, mode: str, jobs: int = 1, progress: Progress | None = None) -> None:
        self.spill, self.mode, self.jobs, self.progress = spill, mode, jobs, progress
        self.ids: list[str] = []
        self.candidates: list[list[Span]] = []
        self.facts = CorpusFacts()
        self.skipped: tuple[SkippedFile, ...] = ()
        """Files found but not read, as ``Corpus.skipped``."""
        self._summaries: dict[tuple[str, int | None], SplitSummary] = {}
        self._headers: dict[str, HeaderCarry] = {}
        self._probes: dict[tuple[str, int], ProbeResult] = {}
        self._queries: list[Query] | None = None
        self._fingerprint: str | None = None
        self.passes: list[tuple[str, int]] = []
        """Each pass made over the batches, and how many batches it took (for messages and tests)."""
        self._closing = weakref.finalize(self, spill.close)

    def close(self) -> None:
        """Remove the parked batches (also done when the workspace is let go)."""
        self._closing()

    def __enter__(self) -> "StreamWorkspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return self.facts.documents

    @property
    def characters(self) -> int:
        return self.facts.characters

    @property
    def fingerprint(self) -> str:
        """``Corpus.fingerprint`` of the documents read, digested batch by batch."""
        if self._fingerprint is None:
            digest = Fingerprint()
            for document in self.spill.documents():
                digest.add(document)
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def corpus_facts(self) -> CorpusFacts:
        return self.facts

    def analyses(self, jobs: int = 1, workers=None) -> None:
        """Nothing to do: every analysis was made when the corpus was read."""

    def retriever(self, spec=None) -> Retriever:
        return shared_retriever(spec)

    def release(self, spec: SplitterSpec | str) -> None:
        """Nothing to do: no chunk is held."""

    def queries(self) -> list[Query]:
        """The article's 200 lexical queries, drawn as a workspace holding the corpus draws them,
        their words read from the batches holding them."""
        if self._queries is None:
            chosen = drawn(self.candidates)
            asked: dict[int, list[int]] = {}
            for i, (doc, _) in enumerate(chosen):
                asked.setdefault(self.spill.batch_of(doc)[0], []).append(i)
            words: dict[int, tuple[str, ...]] = {}
            for batch, mine in asked.items():
                documents = self.spill.read(batch)[0]
                for i in mine:
                    doc, span = chosen[i]
                    words[i] = chosen_words(documents[self.spill.batch_of(doc)[1]].text, span, every_script(self.mode))
            self._queries = [Query(self.ids[doc], span, words[i]) for i, (doc, span) in enumerate(chosen)]
        return self._queries

    # -- measuring ------------------------------------------------------------------------

    def measure_ahead(self, summaries: Iterable[tuple[SplitterSpec | str, int | None]] = (),
                      probes: Iterable[SplitterSpec | str] = (), headers: Iterable[SplitterSpec | str] = (),
                      k: int = 5) -> None:
        """Measure these in one pass over the batches (what is measured already is not again)."""
        asked = Asked(tuple(dict.fromkeys(key for key in ((str(self._built_in(s)), f) for s, f in summaries)
                                          if key not in self._summaries)),
                      tuple(dict.fromkeys(s for s in map(str, map(self._built_in, probes))
                                          if (s, k) not in self._probes)),
                      tuple(dict.fromkeys(s for s in map(str, map(self._built_in, headers)) if s not in self._headers)))
        if not (asked.summaries or asked.probes or asked.headers):
            return
        asked = replace(asked, tag=len(self.passes))
        if asked.probes:
            asked = replace(asked, wanted=frozenset(w for q in self.queries() for w in q.words))
        parts: dict[tuple[str, int | None], list[SplitSummary]] = {key: [] for key in asked.summaries}
        carried = {spec: HeaderCarry() for spec in asked.headers}
        statistics: dict[str, list[Statistics]] = {spec: [] for spec in asked.probes}
        jobs = [(self.spill, batch, self.mode, asked) for batch in range(len(self.spill))]
        self.passes.append(("measure", len(jobs)))
        for batch, measures in enumerate(_mapped(_measured, jobs, self.jobs)):
            for key, summary in measures.summaries.items():
                parts[key].append(summary)
            for spec, carry in measures.headers.items():
                carried[spec].add(carry)
            for spec, found in measures.statistics.items():
                statistics[spec].append(found)
            if self.progress is not None:
                self.progress("documents measured", self.spill.bounds[batch + 1], len(self))
        for key, found in parts.items():
            self._summaries[key] = SplitSummary.total(parse_spec(key[0]), found)
        self._headers.update(carried)
        if statistics:
            try:
                self._probes.update(((spec, k), found) for spec, found in self._probed(asked, statistics, k).items())
            finally:
                self.spill.drop("counted")

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """A configuration's counts; measured with its probe when first asked, as ``check`` asks both."""
        key = (str(self._built_in(spec)), fits)
        if key not in self._summaries:
            self.measure_ahead([key], [key[0]])
        return self._summaries[key]

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        key = str(self._built_in(spec))
        if key not in self._headers:
            self.measure_ahead(headers=[key])
        return self._headers[key]

    def probe(self, spec: SplitterSpec | str, *, k: int = 5, retriever=None, expand: int = 0) -> ProbeResult:
        """answer@k, cut and context of a built-in splitter, ranked by BM25, each chunk read alone."""
        key = str(self._built_in(spec))
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        if expand or type(retriever) is not BM25Retriever:
            raise EngineError("a streamed corpus is probed with BM25, each chunk read alone")
        if (key, k) not in self._probes:
            self.measure_ahead(probes=[key], k=k)
        return self._probes[key, k]

    def export(self, spec: SplitterSpec | str, stream: IO[str]) -> int:
        """``export_chunks`` of every document, batch by batch in corpus order."""
        key, written = str(self._built_in(spec)), 0
        self.passes.append(("export", len(self.spill)))
        for lines in _mapped(_exported, [(self.spill, b, self.mode, key) for b in range(len(self.spill))], self.jobs):
            stream.write(lines)
            written += lines.count("\n")
        return written

    def _built_in(self, spec: SplitterSpec | str) -> SplitterSpec:
        spec = parse_spec(spec)
        if spec.is_imported or spec.is_adapter or spec.context:
            raise EngineError(f"{spec} needs the corpus in memory; a streamed corpus measures built-in splitters")
        return spec

    # -- the probe, ranked over the batches ------------------------------------------------

    def _probed(self, asked: Asked, statistics: dict[str, list[Statistics]], k: int) -> dict[str, ProbeResult]:
        """Each probed spec's probe from every batch's statistics: summed into the pool's, each
        batch ranked with them by the workers (its counts taken back from disk), the best ``k``
        merged, and the winners read back and judged."""
        queries = self.queries()
        found = {spec: ProbeResult(len(queries), 0, 0, 0.0, 0.0) if queries else ProbeResult(0, 0, 0, 0.0, 0.0)
                 for spec in statistics}
        if not queries:
            return found
        words = [tuple(q.words) for q in queries]
        pools = {spec: Statistics.total(parts) for spec, parts in statistics.items()}
        offsets = {spec: [0, *accumulate(part.chunks for part in parts)] for spec, parts in statistics.items()}
        holding = {batch: {spec: asked.counts(spec) for spec, parts in statistics.items() if parts[batch].chunks}
                   for batch in range(len(self.spill))}
        jobs = [(self.spill, batch, names, words, k, pools) for batch, names in holding.items() if names]
        self.passes.append(("rank", len(jobs)))
        ranked: dict[str, list[list[Ranked]]] = {spec: [] for spec in statistics}
        for job, mine in zip(jobs, _mapped(_ranks, jobs, self.jobs)):
            for spec, rankings in mine.items():
                base = offsets[spec][job[1]]
                ranked[spec].append([Ranked(r.scores, r.seen, r.chunks + base) for r in rankings])
        picked = {spec: merge_ranked(parts, k) for spec, parts in ranked.items() if parts}
        reads = self._read_back(asked, {spec: (sorted({j for top in tops for j in top}), offsets[spec])
                                        for spec, tops in picked.items()})
        homes = {doc_id: i for i, doc_id in enumerate(self.ids)}
        for spec, tops in picked.items():
            chunks, tokens = reads[spec]
            found[spec] = judge(queries, tops, tops, chunks, [homes.get(q.doc_id, -1) for q in queries], tokens)
        return found

    def _read_back(self, asked: Asked, winners: dict[str, tuple[list[int], list[int]]]
                   ) -> dict[str, tuple[dict[int, Read], dict[int, int] | None]]:
        """Chunks of each spec's pool (``(positions over every batch, the batches' offsets)``) as
        the probe reads them, and their o200k tokens outside seed mode (which counts characters /
        4, as the article): one more pass over the batches holding some, splitting only their
        documents."""
        wanted: dict[int, dict[str, tuple[str, list[int]]]] = {}  # batch -> spec -> (counts, chunks there)
        chunk_of: dict[tuple[int, str], list[int]] = {}
        for spec, (chunks, offsets) in winners.items():
            for j in chunks:
                batch = bisect_right(offsets, j) - 1
                wanted.setdefault(batch, {}).setdefault(spec, (asked.counts(spec), []))[1].append(j - offsets[batch])
                chunk_of.setdefault((batch, spec), []).append(j)
        counting = self.mode != "seed"
        if counting and wanted:
            get_length("o200k")  # built once here, before the workers fork
        out = {spec: ({}, {} if counting else None) for spec in winners}
        jobs = [(self.spill, batch, self.mode, places, counting) for batch, places in wanted.items()]
        self.passes.append(("read back", len(jobs)))
        for batch, found in zip(wanted, _mapped(_reads, jobs, self.jobs)):
            for spec, (chunks, tokens) in found.items():
                out[spec][0].update(zip(chunk_of[batch, spec], chunks))
                if counting:
                    out[spec][1].update(zip(chunk_of[batch, spec], tokens))
        return out
