"""BM25 over a streamed corpus's batches (``stream.StreamWorkspace``): the probe's 200 queries and
the user's own questions.

A measuring pass has parked each batch's counts beside it and sent their statistics; here the
statistics are summed into the pool's, the workers rank each batch's chunks with them (*rank*),
the best ``k`` of all batches are merged, and the batches holding the winners are split again,
their documents alone, for the winners' spans, prefixes, tokens and atom fragments (*read
back*). Scores use the pool's statistics in the article's order and ties are broken by the same
keys, so the rankings are those of the corpus held in memory. ``work`` is the
``stream.StreamWorkspace`` (its spill, passes, ids and queries)."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from ..lengths import get_length
from ..model import every_script
from ..retrieval.bm25 import Ranked, Statistics, merge_ranked
from ..retrieval.probe import ProbeResult, Read, judge
from ..retrieval.questions import QuestionSet
from ..retrieval.ranking import Question
from ..retrieval.terms import TermTable
from .asking import AskResult
from .batches import Asked, measure_batch, rank_batch, read_back_batch

#: Per spec: each query's best ``k`` chunks (positions over every batch) and the batches' offsets.
Picked = dict[str, tuple[list[list[int]], list[int]]]
#: Per spec: the chunks read back, their tokens (None: not counted) and whether each holds part of an atom.
ReadBack = dict[str, tuple[dict[int, Read], dict[int, int] | None, dict[int, bool]]]


def probed_over_batches(work, asked: Asked, statistics: dict[str, list[Statistics]],
                        k: int) -> dict[str, ProbeResult]:
    """Each probed spec's probe from every batch's statistics: ranked over the batches, the
    winners read back and judged."""
    queries = work.queries()
    found = {spec: ProbeResult(len(queries), 0, 0, 0.0, 0.0) if queries else ProbeResult(0, 0, 0, 0.0, 0.0)
             for spec in statistics}
    if not queries:
        return found
    picked = ranked_over_batches(work, asked, statistics, [tuple(q.words) for q in queries], k)
    reads = read_back(work, asked, {spec: (sorted({j for top in tops for j in top}), offsets)
                                    for spec, (tops, offsets) in picked.items()}, work.mode != "seed")
    homes = {doc_id: i for i, doc_id in enumerate(work.ids)}
    for spec, (tops, _) in picked.items():
        chunks, tokens, _ = reads[spec]
        found[spec] = judge(queries, tops, tops, chunks, [homes.get(q.doc_id, -1) for q in queries], tokens)
    return found


def asked_of_batches(work, spec: str, questions: QuestionSet, retriever: str,
                     k: int) -> AskResult:
    """``asking.ask`` of a built-in ``spec`` with BM25 (named ``retriever``): one measuring pass
    counting the questions' words, then ranked and read back."""
    table = TermTable((), scripts=every_script(work.mode))  # terms found by the mode's rules alone
    words = [Question.of(text, table).words for text in questions.texts]
    asked = Asked(probes=(spec,), wanted=frozenset(w for found in words for w in found), tag=len(work.passes))
    jobs = [(work.spill, batch, work.mode, asked) for batch in range(len(work.spill))]
    statistics = {spec: [measures.statistics[spec] for measures in work.crossed("measure", measure_batch, jobs)]}
    try:
        tops, offsets = ranked_over_batches(work, asked, statistics, words, k).get(spec, ([[] for _ in words], [0]))
        chunks = sorted({j for top in tops for j in top})
        reads, tokens, cut = read_back(work, asked, {spec: (chunks, offsets)}, True)[spec]
    finally:
        work.spill.drop("counted")
    place = {j: i for i, j in enumerate(chunks)}
    return AskResult(spec, retriever, k, tuple(tuple(place[j] for j in top) for top in tops),
                     tuple((work.ids[reads[j].doc], reads[j].start, reads[j].end) for j in chunks),
                     tuple(sum(tokens[j] for j in top) for top in tops), tuple(cut[j] for j in chunks))


def ranked_over_batches(work, asked: Asked, statistics: dict[str, list[Statistics]],
                        words: list[tuple[str, ...]], k: int) -> Picked:
    """Per spec with a chunk, each query's best ``k`` chunks and the batches' offsets: the batches'
    statistics summed into the pool's, each batch ranked with them by the workers (its counts
    taken back from disk), the best merged."""
    pools = {spec: Statistics.total(parts) for spec, parts in statistics.items()}
    offsets = {spec: [0, *accumulate(part.chunks for part in parts)] for spec, parts in statistics.items()}
    holding = {batch: {spec: asked.counts(spec) for spec, parts in statistics.items() if parts[batch].chunks}
               for batch in range(len(work.spill))}
    jobs = [(work.spill, batch, names, words, k, pools) for batch, names in holding.items() if names]
    ranked: dict[str, list[list[Ranked]]] = {spec: [] for spec in statistics}
    for job, mine in zip(jobs, work.crossed("rank", rank_batch, jobs)):
        for spec, rankings in mine.items():
            base = offsets[spec][job[1]]
            ranked[spec].append([Ranked(r.scores, r.seen, r.chunks + base) for r in rankings])
    return {spec: (merge_ranked(parts, k), offsets[spec]) for spec, parts in ranked.items() if parts}


def read_back(work, asked: Asked, winners: dict[str, tuple[list[int], list[int]]],
              counting: bool) -> ReadBack:
    """Chunks of each spec's pool (``(positions over every batch, the batches' offsets)``) as they
    are read, their o200k tokens when ``counting`` (seed mode's probe counts characters / 4, as
    the article), and whether each holds part, not all, of an atom: one more pass over the
    batches holding some, splitting only their documents."""
    wanted: dict[int, dict[str, tuple[str, list[int]]]] = {}  # batch -> spec -> (counts, chunks there)
    chunk_of: dict[tuple[int, str], list[int]] = {}
    for spec, (chunks, offsets) in winners.items():
        for j in chunks:
            batch = bisect_right(offsets, j) - 1
            wanted.setdefault(batch, {}).setdefault(spec, (asked.counts(spec), []))[1].append(j - offsets[batch])
            chunk_of.setdefault((batch, spec), []).append(j)
    if counting and wanted:
        get_length("o200k")  # built once here, before the workers fork
    out: ReadBack = {spec: ({}, {} if counting else None, {}) for spec in winners}
    jobs = [(work.spill, batch, work.mode, places, counting) for batch, places in wanted.items()]
    for batch, found in zip(wanted, work.crossed("read back", read_back_batch, jobs)):
        for spec, (chunks, tokens, cut) in found.items():
            out[spec][0].update(zip(chunk_of[batch, spec], chunks))
            out[spec][2].update(zip(chunk_of[batch, spec], cut))
            if counting:
                out[spec][1].update(zip(chunk_of[batch, spec], tokens))
    return out
