"""Hybrid retrieval over a streamed corpus's batches: reciprocal rank fusion of BM25 and a dense
retriever, each chunk at its ranks among the whole corpus's, in one or two passes over the batches.

A chunk's fused score, ``1/(RRF_K + its BM25 rank) + 1/(RRF_K + its dense rank)``, needs its
ranks among every batch's chunks, which no batch knows alone. Only chunks near the top of one
of the two rankings can win: with ``D = 2 (k + RRF_K)``, a chunk below the D-th place of both
scores at most ``2 / (RRF_K + D + 1)``, less than any of the best ``k`` of BM25's scores (each
at least ``1 / (RRF_K + k)`` and a dense term; when BM25 ranks fewer than ``k`` chunks, all
of them are among its D best and the dense ranking's first ``k`` do the same).

1. *candidates*: each batch sends, per question, its chunks among its own D best of either
   ranking with both their scores; merged, the corpus's D best of each are the candidates, and
   their places there are their ranks.
2. *ahead*, for the candidates among one ranking's D best only that may still win (bounds: a
   rank past D adds at most ``1/(RRF_K + D + 1)`` and at least ``1/(RRF_K + chunks)``; a
   candidate whose best falls below the k-th best of the others' worst cannot win): each batch
   counts its chunks ranked before each of them in the other ranking (BM25: score, then first
   word, then position; dense: score, then position); summed, they are its rank there. When no
   candidate needs it (the first k are in both rankings' D best, as usual), this pass is skipped.

The best ``k`` fused scores win, ties to the earlier chunk, as ``ranking.HybridRetriever``
ranks a held pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from ...retrieval.bm25 import Ranked, Statistics
from ...retrieval.ranking import RRF_K, fused
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
    def merged(cls, parts: list["Candidates"], depth: int) -> tuple["Candidates", np.ndarray]:
        """The corpus's ``depth`` best of each ranking among the batches' candidates, with their
        ranks there: ``(2, candidates)``, BM25's then the dense one's, from 1 (0: past
        ``depth``; -1: BM25 does not rank the chunk)."""
        every = cls(*(np.concatenate(column) for column in zip(*((p.chunks, p.lexical, p.seen, p.dense)
                                                                   for p in parts))))
        ranked = np.flatnonzero(every.seen >= 0)
        by_terms = ranked[np.lexsort((every.chunks[ranked], every.seen[ranked], -every.lexical[ranked]))[:depth]]
        by_vectors = np.lexsort((every.chunks, -every.dense))[:depth]
        ranks = np.zeros((2, len(every.chunks)), dtype=np.int64)
        ranks[0, every.seen < 0] = -1
        for row, order in zip(ranks, (by_terms, by_vectors)):
            row[order] = np.arange(1, len(order) + 1)
        chosen = np.union1d(by_terms, by_vectors)
        return every.pick(chosen), ranks[:, chosen]


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
    (positions over every batch) and the batches' offsets, as ``stream.ranking.ranked_over_batches``."""
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
    unsure = {spec: [_unsure(ranks, k, depth, pools[spec].chunks) for _, ranks in per_question]
              for spec, per_question in chosen.items()}
    asked_about = {spec: [candidates.pick(which) for (candidates, _), which in zip(chosen[spec], unsure[spec])]
                   for spec in chosen if any(len(which) for which in unsure[spec])}
    if asked_about:
        before = {spec: [np.zeros((2, len(c.chunks)), dtype=np.int64) for c in per_question]
                  for spec, per_question in asked_about.items()}
        jobs = []
        for batch, names in holding.items():
            mine = {spec: names[spec] for spec in asked_about if spec in names}
            if mine:
                jobs.append((work.batches, batch, mine, queries, pools, {spec: offsets[spec][batch] for spec in mine},
                             {spec: asked_about[spec] for spec in mine}))
        for mine in work.crossed("rank", ahead_batch, jobs):
            for spec, per_question in mine.items():
                for total, counted in zip(before[spec], per_question):
                    total += counted
        for spec, per_question in before.items():
            for (_, ranks), which, counted in zip(chosen[spec], unsure[spec], per_question):
                ranks[:, which] = np.where(ranks[:, which] == 0, counted + 1, ranks[:, which])
    out = {}
    for spec, per_question in chosen.items():
        tops = []
        for candidates, ranks in per_question:
            sure = np.flatnonzero(~(ranks == 0).any(axis=0))  # the others cannot win
            score = fused(np.maximum(ranks[0, sure], 0), ranks[1, sure])
            tops.append(candidates.chunks[sure][np.lexsort((candidates.chunks[sure], -score))[:k]].tolist())
        out[spec] = (tops, offsets[spec])
    return out


def _unsure(ranks: np.ndarray, k: int, depth: int, chunks: int) -> np.ndarray:
    """The candidates with a rank not known (past ``depth``) that may still be among the best
    ``k``: whose fused score at best (the rank just past ``depth``) reaches the k-th best of
    every candidate's at worst (the last rank of ``chunks``)."""
    past = ranks == 0
    known = np.where(ranks > 0, 1.0 / (RRF_K + ranks.astype(np.float64)), 0.0)

    def fused_if(rank: float) -> np.ndarray:  # the dense term first, as ``ranking.fused`` adds them
        value = 1.0 / (RRF_K + rank)
        return np.where(past[1], value, known[1]) + np.where(past[0], value, known[0])

    best, worst = fused_if(depth + 1.0), fused_if(float(chunks))
    floor = np.sort(worst)[::-1][min(k, len(worst)) - 1] if len(worst) else 0.0
    return np.flatnonzero(past.any(axis=0) & (best >= floor))


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
            if not len(c.chunks):
                mine.append(np.zeros((2, 0), dtype=np.int64))
                continue
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
