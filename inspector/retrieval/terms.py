"""Term statistics for BM25 over chunk spans, computed for a whole corpus at once.

Terms are what the article's ``[A-Za-z0-9][A-Za-z0-9.+-]*`` finds, lowercased (seed mode), or
the terms of every script (``unicode_terms``: the same on ASCII text). A chunk's
terms are the document's terms inside its span, plus the pieces of any term the span cuts
through (re-tokenised exactly as the article would tokenise the sliced text). Every
document is tokenised once; each configuration then costs a few array operations.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .article_terms import LETTER_BYTE, TERM_CLASS, offset_type, one_byte_per_char, runs_of_bytes, terms_of
from .unicode_terms import BIGRAM, LETTER, class_of_codes, codes_of, narrowest, top_code, unicode_terms
from .unicode_terms import term_runs as unicode_runs

#: Terms per block when a whole-corpus pass would otherwise hold several arrays of every term.
_BLOCK = 1 << 20
#: Chunks per pass when counting terms in chunks.
CHUNK_PART = 1 << 17


def _fingerprints(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """A cheap key per term (length, first, second and last code) that equal terms share
    (unequal ones too, now and then: candidates are compared in full afterwards)."""
    starts, ends = starts.astype(np.int64), ends.astype(np.int64)
    second = np.minimum(starts + 1, ends - 1)
    return (((ends - starts) << 42) ^ (codes[starts].astype(np.int64) << 28)
            ^ (codes[second].astype(np.int64) << 14) ^ codes[ends - 1].astype(np.int64))


def _occurrences(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray, ids: dict[bytes, int]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Numbers of the terms equal to a word of ``ids`` (keyed by its codes' bytes, in the type
    of ``codes``), and that word's id, in term order.

    Fingerprints narrow half a million terms to the few that can equal a wanted word; those
    are then compared with their word code by code, all as array operations.
    """
    none = np.zeros(0, dtype=np.int64)
    if not ids or not len(starts):
        return none, none
    width = codes.dtype.itemsize
    words = list(ids)
    lengths = np.fromiter((len(w) // width for w in words), np.int64, len(words))
    word_ends = np.cumsum(lengths)
    spelling = np.frombuffer(b"".join(words), dtype=codes.dtype)
    keys = _fingerprints(spelling, word_ends - lengths, word_ends)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    # Block by block, so that no pass holds several arrays the size of the whole corpus's terms.
    hits, slots = [], []
    for at in range(0, len(starts), _BLOCK):
        found = _fingerprints(codes, starts[at:at + _BLOCK], ends[at:at + _BLOCK])
        slot = np.minimum(np.searchsorted(keys, found), len(keys) - 1)
        hit = np.flatnonzero(keys[slot] == found)
        hits.append(hit + at)
        slots.append(slot[hit])
    terms, slot = np.concatenate(hits), np.concatenate(slots)
    shared = np.flatnonzero(keys[1:] == keys[:-1])
    if len(shared):  # two wanted words with one fingerprint: compare those terms as text
        ambiguous = np.isin(keys[slot], keys[shared])
        exact = [(t, ids[codes[a:b].tobytes()]) for t, a, b in zip(
            terms[ambiguous].tolist(), starts[terms[ambiguous]].tolist(), ends[terms[ambiguous]].tolist())
            if codes[a:b].tobytes() in ids]
        terms, slot = terms[~ambiguous], slot[~ambiguous]
    word = order[slot]
    size = (ends[terms] - starts[terms]).astype(np.int64)
    fits = size == lengths[word]  # fingerprints of unequal lengths can meet
    terms, word, size = terms[fits], word[fits], size[fits]
    total = int(size.sum())
    within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    text = codes[np.repeat(starts[terms], size) + within]
    spelled = spelling[np.repeat(word_ends[word] - lengths[word], size) + within]
    same = np.logical_and.reduceat(text == spelled, np.cumsum(size) - size) if total else np.zeros(0, dtype=bool)
    terms, word = terms[same], word[same]
    word_ids = np.fromiter(ids.values(), np.int64, len(ids))[word]
    if len(shared) and exact:
        terms = np.concatenate((terms, np.fromiter((t for t, _ in exact), np.int64, len(exact))))
        word_ids = np.concatenate((word_ids, np.fromiter((w for _, w in exact), np.int64, len(exact))))
        sort = np.argsort(terms, kind="stable")
        terms, word_ids = terms[sort], word_ids[sort]
    return terms, word_ids


class TermTable:
    """Every term of a corpus in one coordinate space (document ``i`` starts at ``base[i]``):
    the article's terms, or with ``scripts`` the terms of every script (``unicode_terms``)."""

    def __init__(self, texts: Iterable[tuple[str, str]], scripts: bool = False) -> None:
        self.scripts = scripts
        self.texts: dict[str, str] = {}
        self.base: dict[str, int] = {}
        offset = 0
        for doc_id, text in texts:
            self.texts[doc_id] = text
            self.base[doc_id] = offset
            offset += len(text) + 1
        # Global offsets index the documents joined by a newline, which no term spans, so one
        # pass over the joined text finds every document's terms. Only what ranking needs is
        # kept: a code per character (the article's: the lowered text, one byte per character;
        # bytes.lower() changes only A-Z, so the terms are where they were) and each term's
        # start and end.
        if scripts:
            self._index_scripts()
        else:
            self.lowered = b"\n".join(one_byte_per_char(t).lower() for t in self.texts.values())
            self.codes = np.frombuffer(self.lowered, dtype=np.uint8)
            self.starts, self.ends = runs_of_bytes(self.lowered)
        self._selected: dict[frozenset, tuple[np.ndarray, np.ndarray, list[str]]] = {}

    def _index_scripts(self) -> None:
        """The codes (``unicode_terms.codes_of``) of every document, joined by a newline, in the
        narrowest type that holds them, and every term's start and end, bigrams included. The
        type is chosen from each text's set of characters first, so every document's codes go
        straight into the joined array (no second copy of the corpus's codes is held)."""
        texts = list(self.texts.values())
        kind = narrowest(max(map(top_code, texts), default=0))
        total = sum(map(len, texts)) + max(len(texts) - 1, 0)
        self.codes = np.full(total, ord("\n"), dtype=kind)
        offset_kind = offset_type(total)
        starts, ends = [np.zeros(0, dtype=offset_kind)], [np.zeros(0, dtype=offset_kind)]
        at = 0
        for text in texts:
            part = codes_of(text)
            self.codes[at:at + len(part)] = part
            first, last = unicode_runs(part)
            starts.append((first + at).astype(offset_kind))
            ends.append((last + at).astype(offset_kind))
            at += len(part) + 1
        self.starts, self.ends = np.concatenate(starts), np.concatenate(ends)
        self.lowered = None

    def terms_of(self, text: str) -> list[str]:
        """The lowercased terms of any string (a question, a prefix), as this table finds them."""
        return unicode_terms(text) if self.scripts else terms_of(text)

    def _key(self, word: str) -> bytes | None:
        """A word's codes as bytes in the table's code type; None when no term can equal it."""
        if not self.scripts:
            return word.encode("ascii") if word.isascii() and word else None
        codes = codes_of(word)
        if not len(codes) or int(codes.max()) > np.iinfo(self.codes.dtype).max:
            return None
        return codes.astype(self.codes.dtype).tobytes()

    def _kinds(self, positions: np.ndarray) -> np.ndarray:
        """The character class (``unicode_terms``) at each position."""
        if not self.scripts:
            return TERM_CLASS[self.codes[positions]]
        return class_of_codes(self.codes[positions])

    def _first_letter(self, start: int, stop: int) -> int | None:
        """The first letter or digit in ``[start, stop)``, if any."""
        if not self.scripts:
            found = LETTER_BYTE.search(self.lowered, start, stop)
            return found.start() if found else None
        letters = np.flatnonzero(class_of_codes(self.codes[start:stop]) == LETTER)
        return start + int(letters[0]) if len(letters) else None

    def _lone(self, at: np.ndarray, limit: np.ndarray, step: int) -> np.ndarray:
        """Whether the character after (``step`` 1) or before (-1) each position ``at`` is
        outside the chunk (``limit``: its end, or its start) or not of a bigram script."""
        neighbour = at + step
        outside = neighbour >= limit if step > 0 else neighbour < limit
        inside = np.flatnonzero(~outside)
        lone = outside.copy()
        lone[inside] = self._kinds(neighbour[inside]) != BIGRAM
        return lone

    def select(self, wanted: frozenset[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Term numbers of the occurrences of ``wanted`` words, their word ids, and the vocabulary."""
        found = self._selected.get(wanted)
        if found is not None:
            return found
        vocabulary = sorted(wanted)
        # Terms are lowercase here (ASCII ones in seed mode), so no other word can occur.
        ids = {}
        for i, word in enumerate(vocabulary):
            key = self._key(word)
            if key is not None:
                ids[key] = i
        positions, word_ids = _occurrences(self.codes, self.starts, self.ends, ids)
        found = (positions, word_ids, vocabulary)
        self._selected[wanted] = found
        return found

    def postings(self, spans: list[tuple[str, int, int, str]], wanted: frozenset[str]
                 ) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """Term counts (BM25 lengths) per chunk and, per wanted word, the chunks holding it
        (in chunk order) with how often. ``spans`` holds ``(doc_id, start, end, prefix)``."""
        n = len(spans)
        base = np.fromiter((self.base[d] + a for d, a, _, _ in spans), np.int64, n)
        stop_at = np.fromiter((self.base[d] + b for d, _, b, _ in spans), np.int64, n)
        return self.span_postings(base, stop_at, [span[3] for span in spans], wanted)

    def span_postings(self, base: np.ndarray, stop_at: np.ndarray, prefixes: Sequence[str] | None,
                      wanted: frozenset[str], part: int = CHUNK_PART
                      ) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
        """``postings`` for chunks given as global start and end offsets (``base[doc] +``
        offset) and their prefixes (None: no chunk has one), ``part`` chunks at a time."""
        if len(base) <= part:
            return self._postings_of(base, stop_at, prefixes, wanted)
        lens, found = [], {}
        for at in range(0, len(base), part):
            chunk_lens, postings = self._postings_of(base[at:at + part], stop_at[at:at + part],
                                                     prefixes[at:at + part] if prefixes is not None else None, wanted)
            lens.append(chunk_lens)
            for word, (chunks, tf) in postings.items():
                found.setdefault(word, []).append((chunks + at, tf))
        # Words in vocabulary order and each word's chunks in chunk order, as one pass gives them.
        return np.concatenate(lens), {word: (np.concatenate([c for c, _ in found[word]]),
                                             np.concatenate([t for _, t in found[word]])) for word in sorted(found)}

    def _postings_of(self, base: np.ndarray, stop_at: np.ndarray, prefixes: Sequence[str] | None,
                     wanted: frozenset[str]) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
        n = len(base)
        if not n:
            return np.zeros(0), {}
        # Needles of the terms' own type: numpy would otherwise copy every term offset to compare.
        kind = self.starts.dtype
        first = np.searchsorted(self.starts, base.astype(kind), "left")  # the first term not starting before
        stop = np.maximum(first, np.searchsorted(self.ends, stop_at.astype(kind), "right"))  # past the last in it
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
        piece_ids = {key: i for key, i in ((self._key(w), i) for w, i in ids.items()) if key is not None}
        shortest = min((len(w) for w in vocabulary), default=1 << 30)
        # A term cut by the chunk's start leaves its tail [first letter at or after a, end):
        # one term if that tail holds a letter or digit. A term cut by the chunk's end leaves
        # its head [start, b): always one term. Only pieces long enough to be a wanted word
        # need their text looked at. A cut bigram leaves one character, a term only when no
        # other character of its script is next to it inside the chunk.
        pieces: list[tuple[int, int, int]] = []
        heads = np.flatnonzero(head)
        lone_heads = np.zeros(0, dtype=np.int64)
        if len(heads):
            head_end = np.minimum(self.ends[first[heads] - 1], stop_at[heads])
            # The first letter or digit at or after the chunk's start: mostly the start itself.
            letter = base[heads].astype(np.int64)
            kinds = self._kinds(letter)
            for k in np.flatnonzero(kinds != LETTER).tolist():
                found = self._first_letter(int(letter[k]), int(head_end[k]))
                letter[k] = found if found is not None else np.iinfo(np.int64).max
            if self.scripts:
                lone = (kinds == BIGRAM) & self._lone(base[heads], stop_at[heads], 1)
                letter[lone] = base[heads][lone]  # the cut bigram's one character is a term
                lone_heads = heads[lone]
            real = letter < head_end
            lens[heads[real]] += 1
            long = real & (head_end - letter >= shortest)
            pieces += zip(heads[long].tolist(), letter[long].tolist(), head_end[long].tolist())
        tails = np.flatnonzero(tail)
        if len(tails):
            tail_start = self.starts[stop[tails]].astype(np.int64)
            if self.scripts:
                bigram = self._kinds(tail_start) == BIGRAM
                lone = self._lone(stop_at[tails] - 1, base[tails], -1)
                single = (stop_at[tails] - base[tails] == 1) & np.isin(tails, lone_heads)  # counted as a head
                keep = ~bigram | (lone & ~single)
                tails, tail_start = tails[keep], np.where(bigram[keep], stop_at[tails][keep] - 1, tail_start[keep])
            lens[tails] += 1
            long = stop_at[tails] - tail_start >= shortest
            pieces += zip(tails[long].tolist(), tail_start[long].tolist(), stop_at[tails][long].tolist())
        extra_chunks: list[int] = []
        extra_words: list[int] = []
        text = self.lowered if not self.scripts else None
        for j, x, y in pieces:
            word_id = piece_ids.get(text[x:y] if text is not None else self.codes[x:y].tobytes())
            if word_id is not None:
                extra_chunks.append(j)
                extra_words.append(word_id)
        for j, prefix in enumerate(prefixes or ()):
            if prefix:
                prefix_terms = self.terms_of(prefix)
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
        offsets = (np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
                   + np.repeat(lo, counts))
        word_of = word_ids[offsets] if total else np.zeros(0, dtype=np.int64)
        if extra_chunks:
            chunk_of = np.concatenate((chunk_of, np.array(extra_chunks, dtype=np.int64)))
            word_of = np.concatenate((word_of, np.array(extra_words, dtype=np.int64)))
        keys, tf = np.unique(word_of * n + chunk_of, return_counts=True)  # sorted by word, then chunk
        words_sorted = keys // n
        chunks_sorted = keys % n
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        bounds = np.flatnonzero(np.diff(words_sorted)) + 1
        tf = tf.astype(np.float64)
        for a, b in zip([0, *bounds.tolist()], [*bounds.tolist(), len(keys)]):
            if b > a:
                out[vocabulary[int(words_sorted[a])]] = (chunks_sorted[a:b], tf[a:b])
        return lens, out
