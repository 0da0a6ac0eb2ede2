"""Hybrid retrieval over a streamed corpus's batches: reciprocal rank fusion of BM25 and a dense
retriever, each chunk at its ranks among the whole corpus's, in two passes over the batches.

A chunk's fused score, ``1/(RRF_K + its BM25 rank) + 1/(RRF_K + its dense rank)``, needs its
ranks among every batch's chunks, which no batch knows alone. Only chunks near the top of one
of the two rankings can win: with ``D = 2 (k + RRF_K)``, a chunk below the D-th place of both
scores at most ``2 / (RRF_K + D + 1)``, less than any of the best ``k`` of BM25's scores (each
at least ``1 / (RRF_K + k)`` and a dense term; when BM25 ranks fewer than ``k`` chunks, all
of them are among its D best and the dense ranking's first ``k`` do the same).

1. *candidates*: each batch sends, per question, its chunks among its own D best of either
   ranking with both their scores; merged, the corpus's D best of each are the candidates.
2. *ahead*: each batch counts, per candidate, its chunks ranked before it in each ranking
   (BM25: score, then first word, then position; dense: score, then position); summed, they
   are the candidates' ranks, and the best ``k`` fused scores win, ties to the earlier chunk,
   as ``ranking.HybridRetriever`` ranks a held pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ..retrieval.bm25 import Ranked, Statistics
from ..retrieval.ranking import RRF_K, fused
from .batches import Asked, Held, Queries


@dataclass(frozen=True, slots=True)
class Candidates:
    """One question's chunks that may win, each with its BM25 score and first word (``seen``
    -1: BM25 does not rank it) and its dense score; chunks as positions in the batch, or over
    every batch once merged."""

    chunks: np.ndarray
    lexical: np.ndarray
    seen: np.ndarray
    dense: np.ndarray

    def pick(self, which: np.ndarray) -> "Candidates":
        return Candidates(self.chunks[which], self.lexical[which], self.seen[which], self.dense[which])

    @classmethod
    def merged(cls, parts: list["Candidates"], depth: int) -> "Candidates":
        """The corpus's ``depth`` best of each ranking among the batches' candidates."""
        every = cls(*(np.concatenate(column) for column in zip(*((p.chunks, p.lexical, p.seen, p.dense)
                                                                   for p in parts))))
        ranked = np.flatnonzero(every.seen >= 0)
        by_terms = ranked[np.lexsort((every.chunks[ranked], every.seen[ranked], -every.lexical[ranked]))[:depth]]
        by_vectors = np.lexsort((every.chunks, -every.dense))[:depth]
        return every.pick(np.union1d(by_terms, by_vectors))


@dataclass(frozen=True, slots=True)
class Given:
    """A batch's share of a ranking made over every batch (in a worker, ranked as ``Lexical`` or
    ``Dense`` are): per question, its chunks (positions in the batch), best first, with their
    places in the whole ranking, scored so that the better place scores higher."""

    questions: list[tuple]

    def ranked(self, k: int) -> list[Ranked]:
        out = []
        for chunks, places in self.questions:
            chunks, places = np.asarray(chunks, dtype=np.int64)[:k], np.asarray(places, dtype=np.int64)[:k]
            out.append(Ranked(-places.astype(np.float64), np.zeros(len(chunks), dtype=np.int64), chunks))
        return out


def fused_over_batches(work, asked: Asked, statistics: dict[str, list[Statistics]], queries: Queries,
                       k: int) -> dict[str, tuple[list[list[int]], list[int]]]:
    """Per spec with a chunk, each question's best ``k`` chunks by reciprocal rank fusion
    (positions over every batch) and the batches' offsets, as ``stream_ranking.ranked_over_batches``."""
    pools = {spec: Statistics.total(parts) for spec, parts in statistics.items()}
    offsets = {spec: [0, *accumulate(part.chunks for part in parts)] for spec, parts in statistics.items()}
    holding = {batch: {spec: asked.counts(spec) for spec, parts in statistics.items() if parts[batch].chunks}
               for batch in range(len(work.batches))}
    depth = 2 * (k + RRF_K)
    jobs = [(work.batches, batch, names, queries, depth, pools) for batch, names in holding.items() if names]
    found: dict[str, list[list[Candidates]]] = {spec: [[] for _ in queries.words] for spec in statistics}
    for job, mine in zip(jobs, work.crossed("rank", candidates_batch, jobs)):
        for spec, per_question in mine.items():
            base = offsets[spec][job[1]]
            for parts, one in zip(found[spec], per_question):
                parts.append(Candidates(one.chunks + base, one.lexical, one.seen, one.dense))
    chosen = {spec: [Candidates.merged(parts, depth) for parts in per_question]
              for spec, per_question in found.items() if any(per_question)}
    bases = {batch: {spec: offsets[spec][batch] for spec in names} for batch, names in holding.items()}
    jobs = [(work.batches, batch, names, queries, pools, bases[batch], chosen) for batch, names in holding.items()
            if names]
    ahead = {spec: [np.zeros((2, len(c.chunks)), dtype=np.int64) for c in per_question]
             for spec, per_question in chosen.items()}
    for mine in work.crossed("rank", ahead_batch, jobs):
        for spec, per_question in mine.items():
            for total, counted in zip(ahead[spec], per_question):
                total += counted
    out = {}
    for spec, per_question in chosen.items():
        tops = []
        for candidates, (before_terms, before_vectors) in zip(per_question, ahead[spec]):
            lexical = np.where(candidates.seen >= 0, before_terms + 1, 0)
            score = fused(lexical, before_vectors + 1)
            tops.append(candidates.chunks[np.lexsort((candidates.chunks, -score))[:k]].tolist())
        out[spec] = (tops, offsets[spec])
    return out


def candidates_batch(job: tuple[Held, int, dict[str, str], Queries, int, dict[str, Statistics]]
                     ) -> dict[str, list[Candidates]]:
    """Per probed spec and question, one batch's chunks among its ``depth`` best of BM25's
    ranking (the pool's statistics) or of the dense one, with both scores (in a worker)."""
    held, batch, names, queries, depth, pools = job
    out = {}
    for spec, name in names.items():
        dense = queries.dense(held, batch, name)
        n = len(dense.chunks)
        mine = []
        for question, by_terms in enumerate(queries.lexical(held, batch, name, pools[spec]).ranked(n)):
            scores = dense.scores(question)
            chunks = np.union1d(by_terms.chunks[:depth], np.argsort(-scores, kind="stable")[:depth])
            lexical, seen = np.zeros(n), np.full(n, -1, dtype=np.int64)
            lexical[by_terms.chunks], seen[by_terms.chunks] = by_terms.scores, by_terms.seen
            mine.append(Candidates(chunks, lexical[chunks], seen[chunks], scores[chunks]))
        out[spec] = mine
    return out


def ahead_batch(job) -> dict[str, list[np.ndarray]]:
    """Per probed spec and question, how many of one batch's chunks each candidate comes after
    in BM25's ranking and in the dense one (in a worker): a ``(2, candidates)`` array each."""
    held, batch, names, queries, pools, bases, chosen = job
    out = {}
    for spec, name in names.items():
        dense = queries.dense(held, batch, name)
        n, base = len(dense.chunks), bases[spec]
        positions = np.arange(n, dtype=np.int64) + base
        mine = []
        for question, by_terms in enumerate(queries.lexical(held, batch, name, pools[spec]).ranked(n)):
            c = chosen[spec][question]
            terms = _before((-by_terms.scores, by_terms.seen, by_terms.chunks + base), (-c.lexical, c.seen, c.chunks))
            vectors = _before((-dense.scores(question), positions), (-c.dense, c.chunks))
            mine.append(np.stack([terms, vectors]))
        out[spec] = mine
    return out


def _before(items: tuple[np.ndarray, ...], probes: tuple[np.ndarray, ...]) -> np.ndarray:
    """For each probe key, how many item keys come strictly before it (keys compared column by
    column, the first deciding); a probe sorts before an item with its very key (itself)."""
    flag = np.concatenate([np.ones(len(items[0]), dtype=np.int8), np.zeros(len(probes[0]), dtype=np.int8)])
    keys = [np.concatenate([a, b]) for a, b in zip(items, probes)]
    order = np.lexsort((flag, *reversed(keys)))
    is_item = flag[order] == 1
    before = np.cumsum(is_item) - is_item
    out = np.empty(len(probes[0]), dtype=np.int64)
    out[order[~is_item] - len(items[0])] = before[~is_item]
    return out
