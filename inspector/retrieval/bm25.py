"""Okapi BM25 over chunk term statistics, scored exactly as the article's script scores it.

The statistics (chunk lengths in terms, and per word the chunks holding it with how often)
come from ``terms.TermTable``; this module only ranks.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

#: About how many (query, word, chunk) contributions ``top_many`` ranks in one pass.
TRIPLES = 1 << 19


class BM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over chunk term statistics, scored as the article does.

    Each term's contribution is evaluated in the article's operation order in float64, and
    terms are summed in query order, so scores are bit-identical to its pure-Python loop;
    ties keep the order in which chunks were first scored (``Counter.most_common``'s order).
    """

    def __init__(self, lens: np.ndarray, postings: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:
        self.n = len(lens)
        self.postings = postings
        avg = int(lens.sum()) / self.n if self.n else 1.0
        self.norm = 1.2 * ((1 - 0.75) + 0.75 * lens.astype(np.float64) / avg)

    def top(self, words: Iterable[str], k: int) -> list[int]:
        """Positions of the ``k`` best chunks for the query ``words`` (fewer if fewer match)."""
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        for word in words:
            posting = self.postings.get(word)
            if posting is not None:
                ids, counts = posting
                df = len(ids)
                idf = math.log(1 + (self.n - df + 0.5) / (df + 0.5))
                parts.append((ids, idf * counts * 2.2 / (counts + self.norm[ids])))
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
        out: list[list[int]] = [[] for _ in queries]
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
        idf = np.array([math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for d in df.tolist()])
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
              chunk_all: np.ndarray, value_all: np.ndarray, kth: np.ndarray, k: int, out: list[list[int]]) -> None:
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
        query, chunk = query[ranked], chunk[ranked]
        asked = sorted({q for q, _, _ in pairs})
        starts = np.searchsorted(query, asked)
        stops = np.minimum(np.searchsorted(query, asked, side="right"), starts + k)
        chunks = chunk.tolist()
        for q, a, b in zip(asked, starts.tolist(), stops.tolist()):
            out[q] = chunks[a:b]
