"""Ranking over a streamed corpus's batches (``StreamWorkspace``): the probe's 200 queries
and the user's own questions, by BM25, a dense retriever or both fused (``stream.fusion``).

A measuring pass has parked each batch's counts (and, for a dense retriever, its chunks' grid
vectors) beside it and sent their statistics; here the statistics are summed into the pool's,
the workers rank each batch's chunks with them or by their vectors (*rank*), the best ``k`` of
all batches are merged, and the batches holding the winners are split again, their documents
alone, for the winners' spans, prefixes, tokens and atom fragments (*read back*). BM25 scores
use the pool's statistics in the article's order, dense scores are exact (``ranking.on_grid``),
and ties are broken by the same keys, so the rankings are those of the corpus held in memory. ``work`` is the
``StreamWorkspace`` (its batches, passes, ids and queries)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

from ...lengths import get_length
from ...measure.asking import AskResult
from ...model import every_script
from ...retrieval.bm25 import Ranked, Statistics, merge_ranked
from ...retrieval.probe import ProbeResult, Read, judge
from ...retrieval.questions import QuestionSet
from ...retrieval.ranking import BM25Retriever, Question
from ...retrieval.terms import TermTable
from .batches import Asked, Queries, measure_batch, rank_batch, read_back_batch
from .fusion import fused_over_batches

#: Per spec: each query's best ``k`` chunks (positions over every batch) and the batches' offsets.
Picked = dict[str, tuple[list[list[int]], list[int]]]


@dataclass(frozen=True, slots=True)
class ReadBack:
    """A spec's chunks read back (positions over every batch): each as the probe reads it, its
    tokens (None: not counted), whether it holds part, not all, of an atom, and, for each chunk
    asked for, the first and last chunk of its window (itself alone when read without neighbours)."""

    chunks: dict[int, Read] = field(default_factory=dict)
    tokens: dict[int, int] | None = None
    cut: dict[int, bool] = field(default_factory=dict)
    windows: dict[int, tuple[int, int]] = field(default_factory=dict)

    def judged(self, queries: list, tops: list[list[int]], homes: list[int], width: int = 0) -> ProbeResult:
        """The probe's result with each top-k chunk read with ``width`` neighbours either side
        (at most the width read back), as ``probe.probe_pool`` judges it."""
        if not width:
            return judge(queries, tops, tops, self.chunks, homes, self.tokens)
        chunks = self.chunks

        def window(j: int) -> range:
            low, high = self.windows[j]
            return range(max(low, j - width), min(high, j + width) + 1)

        def holds(j: int, start: int, end: int) -> bool:
            read = window(j)
            return chunks[read[0]].start <= start and end <= max(chunks[p].end for p in read)

        reads = [sorted({p for j in top for p in window(j)}) for top in tops]
        return judge(queries, tops, reads, chunks, homes, self.tokens, holds, width)


def probed_over_batches(work, asked: Asked, statistics: dict[str, list[Statistics]], k: int,
                        widths: tuple[int, ...] = (0,), retriever=None) -> dict[tuple[str, int], ProbeResult]:
    """Each probed spec's probe from every batch's statistics (and vectors), ranked by
    ``retriever`` (default BM25), with each top-k chunk read alone and with each of ``widths``
    neighbours either side: ranked over the batches, the winners (with their widest windows)
    read back and judged."""
    queries = work.queries()
    if not queries:
        return {(spec, width): ProbeResult(0, 0, 0, 0.0, 0.0, expand=width) for spec in statistics for width in widths}
    found = {(spec, width): ProbeResult(len(queries), 0, 0, 0.0, 0.0, expand=width)
             for spec in statistics for width in widths}
    asks = Queries.of([q.text for q in queries], [tuple(q.words) for q in queries], retriever or BM25Retriever())
    picked = ranked_over_batches(work, asked, statistics, asks, k)
    reads = read_back(work, asked, {spec: (sorted({j for top in tops for j in top}), offsets)
                                    for spec, (tops, offsets) in picked.items()}, work.mode != "seed", max(widths))
    homes = {doc_id: i for i, doc_id in enumerate(work.ids)}
    for spec, (tops, _) in picked.items():
        places = [homes.get(q.doc_id, -1) for q in queries]
        found.update(((spec, width), reads[spec].judged(queries, tops, places, width)) for width in widths)
    return found


def asked_of_batches(work, spec: str, questions: QuestionSet, retriever, k: int) -> AskResult:
    """``asking.ask`` of a built-in ``spec`` ranked by ``retriever``: one measuring pass counting
    the questions' words (and embedding the chunks), then ranked and read back."""
    table = TermTable((), scripts=every_script(work.mode))  # terms found by the mode's rules alone
    words = [Question.of(text, table).words for text in questions.texts]
    asked = Asked(probes=(spec,), wanted=frozenset(w for found in words for w in found), tag=len(work.passes),
                  embedding=work.embedding(retriever))
    jobs = [(work.batches, batch, work.mode, asked) for batch in range(len(work.batches))]
    statistics = {spec: [measures.statistics[spec] for measures in work.crossed("measure", measure_batch, jobs)]}
    try:
        asks = Queries.of(list(questions.texts), words, retriever)
        tops, offsets = ranked_over_batches(work, asked, statistics, asks, k).get(spec, ([[] for _ in words], [0]))
        chunks = sorted({j for top in tops for j in top})
        back = read_back(work, asked, {spec: (chunks, offsets)}, True)[spec]
    finally:
        work.batches.drop("counted")
    place = {j: i for i, j in enumerate(chunks)}
    reads, tokens = back.chunks, back.tokens
    return AskResult(spec, str(retriever.spec), k, tuple(tuple(place[j] for j in top) for top in tops),
                     tuple((work.ids[reads[j].doc], reads[j].start, reads[j].end) for j in chunks),
                     tuple(sum(tokens[j] for j in top) for top in tops), tuple(back.cut[j] for j in chunks))


def ranked_over_batches(work, asked: Asked, statistics: dict[str, list[Statistics]], queries: Queries,
                        k: int) -> Picked:
    """Per spec with a chunk, each query's best ``k`` chunks and the batches' offsets: the batches'
    statistics summed into the pool's, each batch ranked with them by the workers (its counts, or
    its vectors, taken back from disk), the best merged; hybrid rankings fused over two passes
    (``stream.fusion``)."""
    if queries.hybrid:
        return fused_over_batches(work, asked, statistics, queries, k)
    pools = {spec: Statistics.total(parts) for spec, parts in statistics.items()}
    offsets = {spec: [0, *accumulate(part.chunks for part in parts)] for spec, parts in statistics.items()}
    holding = {batch: {spec: asked.counts(spec) for spec, parts in statistics.items() if parts[batch].chunks}
               for batch in range(len(work.batches))}
    jobs = [(work.batches, batch, names, queries, k, pools) for batch, names in holding.items() if names]
    ranked: dict[str, list[list[Ranked]]] = {spec: [] for spec in statistics}
    for job, mine in zip(jobs, work.crossed("rank", rank_batch, jobs)):
        for spec, rankings in mine.items():
            base = offsets[spec][job[1]]
            ranked[spec].append([Ranked(r.scores, r.seen, r.chunks + base) for r in rankings])
    return {spec: (merge_ranked(parts, k), offsets[spec]) for spec, parts in ranked.items() if parts}


def read_back(work, asked: Asked, winners: dict[str, tuple[list[int], list[int]]],
              counting: bool, width: int = 0) -> dict[str, ReadBack]:
    """Chunks of each spec's pool (``(positions over every batch, the batches' offsets)``) as they
    are read, each with ``width`` neighbours either side, their o200k tokens when ``counting``
    (seed mode's probe counts characters / 4, as the article), and whether each holds part, not
    all, of an atom: one more pass over the batches holding some, splitting only their documents."""
    wanted: dict[int, dict[str, tuple[str, list[int]]]] = {}  # batch -> spec -> (counts, chunks there)
    for spec, (chunks, offsets) in winners.items():
        for j in chunks:
            batch = bisect_right(offsets, j) - 1
            wanted.setdefault(batch, {}).setdefault(spec, (asked.counts(spec), []))[1].append(j - offsets[batch])
    if counting and wanted:
        get_length("o200k")  # built once here, before the workers fork
    out = {spec: ReadBack(tokens={} if counting else None) for spec in winners}
    jobs = [(work.batches, batch, work.mode, places, counting, width) for batch, places in wanted.items()]
    for batch, found in zip(wanted, work.crossed("read back", read_back_batch, jobs)):
        first = work.batches.bounds[batch]
        for spec, part in found.items():
            base, back = winners[spec][1][batch], out[spec]
            positions = [base + j for j in part.positions]
            back.chunks.update(zip(positions, (Read(first + r.doc, r.start, r.end, r.prefix) for r in part.reads)))
            back.cut.update(zip(positions, part.cut))
            if counting:
                back.tokens.update(zip(positions, part.tokens))
            asked_here = [base + j for j in wanted[batch][spec][1]]
            back.windows.update((j, (base + a, base + b)) for j, (a, b) in zip(asked_here, part.windows))
    return out
