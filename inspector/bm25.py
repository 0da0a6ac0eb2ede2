"""Term statistics for BM25 over chunk spans, computed for a whole corpus at once.

Terms are what the article's ``[A-Za-z0-9][A-Za-z0-9.+-]*`` finds, lowercased. A chunk's
terms are the document's terms inside its span, plus the pieces of any term the span cuts
through (re-tokenised exactly as the article would tokenise the sliced text). Every
document is tokenised once; each configuration then costs a few array operations.
"""

from __future__ import annotations

import math
import re
from typing import Iterable

import numpy as np

TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def term_runs(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of every term of ``text``.

    A term is a run of ``[A-Za-z0-9.+-]`` trimmed to begin at its first letter or digit,
    which is exactly the regex's greedy scan, located with array operations.
    """
    starts, ends, _ = _runs(text)
    return starts, ends


def _runs(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Term starts, term ends, and the offset of every ASCII letter or digit."""
    if not text:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alnum = ((codes >= 48) & (codes <= 57)) | ((codes >= 65) & (codes <= 90)) | ((codes >= 97) & (codes <= 122))
    inside = alnum | (codes == 46) | (codes == 43) | (codes == 45)
    edges = np.diff(np.concatenate(([False], inside, [False])).astype(np.int8))
    run_starts = np.flatnonzero(edges == 1)
    run_ends = np.flatnonzero(edges == -1)
    letters = np.flatnonzero(alnum).astype(np.int64)
    k = np.searchsorted(letters, run_starts)
    first = np.full(len(run_starts), len(text), dtype=np.int64)
    found = k < len(letters)
    first[found] = letters[k[found]]
    keep = first < run_ends
    return first[keep].astype(np.int64), run_ends[keep].astype(np.int64), letters


def _ascii_lower(text: str) -> str:
    """``text`` with only A-Z lowercased, so every offset stays put (``str.lower`` can change
    lengths; ``str.translate`` is slow on megabytes)."""
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    codes[(codes >= 65) & (codes <= 90)] += 32
    return codes.tobytes().decode("utf-32-le", "surrogatepass")


def terms_of(text: str) -> list[str]:
    """The lowercased terms of any string (prefixes, cut pieces)."""
    return [m.lower() for m in TERM.findall(text)]


class TermTable:
    """Every term of a corpus in one coordinate space (document ``i`` starts at ``base[i]``)."""

    def __init__(self, texts: Iterable[tuple[str, str]]) -> None:
        self.texts: dict[str, str] = {}
        self.base: dict[str, int] = {}
        offset = 0
        for doc_id, text in texts:
            self.texts[doc_id] = text
            self.base[doc_id] = offset
            offset += len(text) + 1
        # Global offsets index the documents joined by a newline, which no term spans, so one
        # pass over the joined text finds every document's terms.
        joined = "\n".join(self.texts.values())
        self.starts, self.ends, self.letters = _runs(joined)
        self.lowered = _ascii_lower(joined)
        self._selected: dict[frozenset, tuple[np.ndarray, np.ndarray, list[str]]] = {}

    def select(self, wanted: frozenset[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Term numbers of the occurrences of ``wanted`` words, their word ids, and the vocabulary."""
        found = self._selected.get(wanted)
        if found is not None:
            return found
        vocabulary = sorted(wanted)
        ids = {w: i for i, w in enumerate(vocabulary)}
        shortest = min((len(w) for w in vocabulary), default=0)
        candidates = np.flatnonzero(self.ends - self.starts >= shortest)
        lowered = self.lowered
        pairs = [(i, ids[lowered[a:b]]) for i, a, b in zip(candidates.tolist(), self.starts[candidates].tolist(),
                                                           self.ends[candidates].tolist()) if lowered[a:b] in ids]
        positions = np.fromiter((i for i, _ in pairs), np.int64, len(pairs))
        word_ids = np.fromiter((w for _, w in pairs), np.int64, len(pairs))
        found = (positions, word_ids, vocabulary)
        self._selected[wanted] = found
        return found

    def postings(self, spans: list[tuple[str, int, int, str]], wanted: frozenset[str]
                 ) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """Term counts (BM25 lengths) per chunk and, per wanted word, the chunks holding it
        (in chunk order) with how often. ``spans`` holds ``(doc_id, start, end, prefix)``."""
        n = len(spans)
        if not n:
            return np.zeros(0), {}
        base = np.fromiter((self.base[d] + a for d, a, _, _ in spans), np.int64, n)
        stop_at = np.fromiter((self.base[d] + b for d, _, b, _ in spans), np.int64, n)
        first = np.searchsorted(self.starts, base, side="left")
        stop = np.maximum(first, np.searchsorted(self.ends, stop_at, side="right"))
        lens = (stop - first).astype(np.int64)
        term_count = len(self.starts)
        head = np.zeros(n, dtype=bool)
        has_prev = first > 0
        head[has_prev] = self.ends[first[has_prev] - 1] > base[has_prev]
        tail = np.zeros(n, dtype=bool)
        has_next = stop < term_count
        nxt = stop[has_next]
        tail[has_next] = (self.starts[nxt] < stop_at[has_next]) & (self.starts[nxt] >= base[has_next])
        positions, word_ids, vocabulary = self.select(wanted)
        ids = {w: i for i, w in enumerate(vocabulary)}
        shortest = min((len(w) for w in vocabulary), default=1 << 30)
        # A term cut by the chunk's start leaves its tail [first letter at or after a, end):
        # one term if that tail holds a letter or digit. A term cut by the chunk's end leaves
        # its head [start, b): always one term. Only pieces long enough to be a wanted word
        # need their text looked at.
        pieces: list[tuple[int, int, int]] = []
        heads = np.flatnonzero(head)
        if len(heads):
            head_end = np.minimum(self.ends[first[heads] - 1], stop_at[heads])
            k = np.searchsorted(self.letters, base[heads])
            letter = np.full(len(heads), np.iinfo(np.int64).max, dtype=np.int64)
            inside = k < len(self.letters)
            letter[inside] = self.letters[k[inside]]
            real = letter < head_end
            lens[heads[real]] += 1
            long = real & (head_end - letter >= shortest)
            pieces += zip(heads[long].tolist(), letter[long].tolist(), head_end[long].tolist())
        tails = np.flatnonzero(tail)
        if len(tails):
            lens[tails] += 1
            tail_start = self.starts[stop[tails]]
            long = stop_at[tails] - tail_start >= shortest
            pieces += zip(tails[long].tolist(), tail_start[long].tolist(), stop_at[tails][long].tolist())
        extra_chunks: list[int] = []
        extra_words: list[int] = []
        for j, x, y in pieces:
            word_id = ids.get(self.lowered[x:y])
            if word_id is not None:
                extra_chunks.append(j)
                extra_words.append(word_id)
        for j, span in enumerate(spans):
            if span[3]:
                prefix_terms = terms_of(span[3])
                lens[j] += len(prefix_terms)
                for word in prefix_terms:
                    if word in ids:
                        extra_chunks.append(j)
                        extra_words.append(ids[word])
        lo = np.searchsorted(positions, first)
        hi = np.searchsorted(positions, stop)
        counts = hi - lo
        total = int(counts.sum())
        chunk_of = np.repeat(np.arange(n, dtype=np.int64), counts)
        offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(lo, counts)
        word_of = word_ids[offsets] if total else np.zeros(0, dtype=np.int64)
        if extra_chunks:
            chunk_of = np.concatenate((chunk_of, np.array(extra_chunks, dtype=np.int64)))
            word_of = np.concatenate((word_of, np.array(extra_words, dtype=np.int64)))
        keys, tf = np.unique(word_of * n + chunk_of, return_counts=True)  # sorted by word, then chunk
        words_sorted = keys // n
        chunks_sorted = keys % n
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        bounds = np.flatnonzero(np.diff(words_sorted)) + 1
        for group_chunks, group_tf, group_words in zip(np.split(chunks_sorted, bounds), np.split(tf, bounds),
                                                       np.split(words_sorted, bounds)):
            if len(group_words):
                out[vocabulary[int(group_words[0])]] = (group_chunks, group_tf.astype(np.float64))
        return lens, out


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
