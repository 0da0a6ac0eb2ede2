"""Okapi BM25 over chunk term statistics, scored exactly as the article's script scores it.

The statistics (chunk lengths in terms, and per word the chunks holding it with how often)
come from ``terms.TermTable``; this module only ranks. A pool too large for one machine is
ranked in partitions: each partition's ``Statistics`` are summed into the pool's, each
partition ranks its own chunks with them (``BM25.ranked``), and ``merge_ranked`` keeps the
best of all partitions in the order one ranking of the whole pool gives.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

#: About how many (query, word, chunk) contributions ``top_many`` ranks in one pass.
TRIPLES = 1 << 19


@dataclass(frozen=True, slots=True)
class Statistics:
    """What a BM25 score needs of the whole pool: its chunks, their terms in all (the mean
    chunk length is ``terms / chunks``) and how many chunks hold each word."""

    chunks: int
    terms: int
    df: dict[str, int]

    @classmethod
    def of(cls, lens: np.ndarray, postings: dict[str, tuple[np.ndarray, np.ndarray]]) -> "Statistics":
        """The statistics of one pool (or partition)."""
        return cls(len(lens), int(lens.sum()), {word: len(ids) for word, (ids, _) in postings.items()})

    @classmethod
    def total(cls, parts: Iterable["Statistics"]) -> "Statistics":
        """The statistics of the pool the partitions ``parts`` make up."""
        chunks, terms, df = 0, 0, {}
        for part in parts:
            chunks, terms = chunks + part.chunks, terms + part.terms
            for word, count in part.df.items():
                df[word] = df.get(word, 0) + count
        return cls(chunks, terms, df)


@dataclass(frozen=True, slots=True)
class Ranked:
    """One query's best chunks, best first, with what orders them: the score, then the first
    query word that reaches the chunk (``seen``), then the chunk's position."""

    scores: np.ndarray
    seen: np.ndarray
    chunks: np.ndarray


def merge_ranked(parts: Sequence[Sequence[Ranked]], k: int) -> list[list[int]]:
    """Per query, the ``k`` best chunks of all partitions' rankings (their chunks given as
    positions in the whole pool), in the order ``BM25.top_many`` over the whole pool gives."""
    out = []
    for query in zip(*parts):
        scores = np.concatenate([r.scores for r in query])
        seen = np.concatenate([r.seen for r in query])
        chunks = np.concatenate([r.chunks for r in query])
        out.append(chunks[np.lexsort((chunks, seen, -scores))[:k]].tolist())
    return out


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over chunk term statistics, scored as the article does.

    Each term's contribution is evaluated in the article's operation order in float64, and
    terms are summed in query order, so scores are bit-identical to its pure-Python loop;
    ties keep the order in which chunks were first scored (``Counter.most_common``'s order).
    ``pool``: the statistics of the whole pool when these chunks are one partition of it.
    """

    def __init__(self, lens: np.ndarray, postings: dict[str, tuple[np.ndarray, np.ndarray]],
                 pool: Statistics | None = None) -> None:
        self.n = len(lens)
        self.postings = postings
        self.pool = pool or Statistics.of(lens, postings)
        avg = self.pool.terms / self.pool.chunks if self.pool.chunks else 1.0
        self.norm = 1.2 * ((1 - 0.75) + 0.75 * lens.astype(np.float64) / avg)

    def idf(self, word: str) -> float:
        """The word's inverse document frequency over the pool, as the article computes it."""
        df = self.pool.df.get(word, 0)
        return math.log(1 + (self.pool.chunks - df + 0.5) / (df + 0.5))

    def top(self, words: Iterable[str], k: int) -> list[int]:
        """Positions of the ``k`` best chunks for the query ``words`` (fewer if fewer match)."""
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        for word in words:
            posting = self.postings.get(word)
            if posting is not None:
                ids, counts = posting
                parts.append((ids, self.idf(word) * counts * 2.2 / (counts + self.norm[ids])))
        if not parts:
            return []
        touched = np.concatenate([ids for ids, _ in parts])
        ids, first_seen = np.unique(touched, return_index=True)
        scores = np.zeros(len(ids), dtype=np.float64)
        for part_ids, values in parts:
            scores[np.searchsorted(ids, part_ids)] += values
        ranked = np.lexsort((first_seen, -scores))[:k]
        return [int(ids[i]) for i in ranked]

    def top_many(self, queries: list[tuple[str, ...]], k: int, batch: int = TRIPLES) -> list[list[int]]:
        """``top(words, k)`` for every query at once, with the same scores and order.

        Every (query, word, chunk) contribution goes in one array; a stable sort groups each
        query's chunks with their contributions still in word order, so each score is summed
        in the order ``top`` (and the article) adds it.
        """
        return [ranked.chunks.tolist() for ranked in self.ranked(queries, k, batch)]

    def ranked(self, queries: list[tuple[str, ...]], k: int, batch: int = TRIPLES) -> list[Ranked]:
        """``top_many``'s rankings with the scores and first words that order them."""
        none = Ranked(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        out: list[Ranked] = [none] * len(queries)
        words = [w for w, (ids, _) in self.postings.items() if len(ids)]
        if not words:
            return out
        position = {w: i for i, w in enumerate(words)}
        df = np.array([len(self.postings[w][0]) for w in words], dtype=np.int64)
        begin = np.cumsum(df) - df
        chunk_all = np.concatenate([self.postings[w][0] for w in words]).astype(np.int64)
        tf_all = np.concatenate([self.postings[w][1] for w in words])
        # Each word's idf with math.log, as ``top`` computes it, then every contribution in
        # ``top``'s operation order, element by element.
        idf = np.array([self.idf(w) for w in words])
        value_all = np.repeat(idf, df) * tf_all * 2.2 / (tf_all + self.norm[chunk_all])
        # Each word's k-th best contribution: k chunks score at least that on any query
        # holding the word (scores only grow as words add up), so a query's top k all
        # reach the best such floor among its words, and nothing below it needs ranking.
        kth = np.zeros(len(words))
        for w, (b, d) in enumerate(zip(begin.tolist(), df.tolist())):
            if d >= k:
                kth[w] = np.partition(value_all[b:b + d], d - k)[d - k]
        pairs = [(q, p, position[w]) for q, ws in enumerate(queries) for p, w in enumerate(ws) if w in position]
        # Queries go in batches of about ``batch`` contributions: each query is ranked on its
        # own, and no pass holds every (query, word, chunk) of a large corpus at once.
        group: list[tuple[int, int, int]] = []
        size = 0
        for at, pair in enumerate(pairs):
            group.append(pair)
            size += int(df[pair[2]])
            ends_query = at + 1 == len(pairs) or pairs[at + 1][0] != pair[0]
            if ends_query and (size >= batch or at + 1 == len(pairs)):
                self._rank(group, len(queries), df, begin, chunk_all, value_all, kth, k, out)
                group, size = [], 0
        return out

    def _rank(self, pairs: list[tuple[int, int, int]], queries: int, df: np.ndarray, begin: np.ndarray,
              chunk_all: np.ndarray, value_all: np.ndarray, kth: np.ndarray, k: int, out: list[Ranked]) -> None:
        """``top_many``'s ranking of the queries in ``pairs`` (query, word position, word id), into ``out``."""
        query_of = np.array([q for q, _, _ in pairs], dtype=np.int64)
        word_at = np.array([p for _, p, _ in pairs], dtype=np.int64)
        word_id = np.array([w for _, _, w in pairs], dtype=np.int64)
        floor = np.zeros(queries)
        np.maximum.at(floor, query_of, kth[word_id])
        sizes = df[word_id]
        total = int(sizes.sum())
        index = (np.repeat(begin[word_id], sizes) + np.arange(total, dtype=np.int64)
                 - np.repeat(np.cumsum(sizes) - sizes, sizes))
        chunk, value = chunk_all[index], value_all[index]
        query, word = np.repeat(query_of, sizes), np.repeat(word_at, sizes)
        order = np.argsort(query * self.n + chunk, kind="stable")
        chunk, value, query, word = chunk[order], value[order], query[order], word[order]
        key = query * self.n + chunk
        first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
        length = np.diff(np.append(first, len(key)))
        score = value[first].copy()
        for extra in range(1, int(length.max())):
            more = length > extra
            score[more] += value[first[more] + extra]
        query, chunk, seen = query[first], chunk[first], word[first]
        keep = score >= floor[query]
        query, chunk, seen, score = query[keep], chunk[keep], seen[keep], score[keep]
        # Best score first; ties in the order the chunks were first scored: by the first
        # query word that reaches them, then in chunk order.
        ranked = np.lexsort((chunk, seen, -score, query))
        query, chunk, seen, score = query[ranked], chunk[ranked], seen[ranked], score[ranked]
        asked = sorted({q for q, _, _ in pairs})
        starts = np.searchsorted(query, asked)
        stops = np.minimum(np.searchsorted(query, asked, side="right"), starts + k)
        for q, a, b in zip(asked, starts.tolist(), stops.tolist()):
            out[q] = Ranked(score[a:b], seen[a:b], chunk[a:b])
