"""Term statistics for BM25 over chunk spans, computed for a whole corpus at once.

Terms are what the article's ``[A-Za-z0-9][A-Za-z0-9.+-]*`` finds, lowercased (seed mode), or
the terms of every script (``unicode_terms``: the same on ASCII text). A chunk's
terms are the document's terms inside its span, plus the pieces of any term the span cuts
through (re-tokenised exactly as the article would tokenise the sliced text). Every
document is tokenised once; each configuration then costs a few array operations. The table
keeps each term's bounds (and, for the article's terms, the lowered text); every script's
codes, two bytes a character once a corpus holds Chinese, are made again from the texts where
ranking reads them, so the index stays near what the article's terms cost.
"""

from __future__ import annotations

import bisect
from typing import Callable, Iterable, NamedTuple, Sequence

import numpy as np

from .article_terms import LETTER_BYTE, TERM_CLASS, offset_type, one_byte_per_char, runs_of_bytes, terms_of
from .lookup import occurrences
from .scripts import lower
from .unicode_terms import BIGRAM, LETTER, class_of_codes, codes_of, narrowest, top_code, unicode_terms
from .unicode_terms import term_runs as unicode_runs

#: Chunks per pass when counting terms in chunks.
CHUNK_PART = 1 << 17
#: About how many characters' codes are made at once when looking words up.
CODE_BLOCK = 1 << 24


class _Index(NamedTuple):
    """What a table keeps of its terms."""

    starts: np.ndarray
    ends: np.ndarray
    lowered: bytes | None  # the article's terms: the joined text lowered, a byte per character


class TermTable:
    """Every term of a corpus in one coordinate space (document ``i`` starts at ``base[i]``):
    the article's terms, or with ``scripts`` the terms of every script (``unicode_terms``)."""

    def __init__(self, texts: Iterable[tuple[str, str]], scripts: bool = False,
                 runs: Callable[[], Iterable[tuple[np.ndarray, np.ndarray]]] | None = None) -> None:
        self.scripts = scripts
        self._runs = runs  # every script's terms per document (``runs_of``), found elsewhere: kept
        self.texts: dict[str, str] = {}
        self.base: dict[str, int] = {}
        offset = 0
        for doc_id, text in texts:
            self.texts[doc_id] = text
            self.base[doc_id] = offset
            offset += len(text) + 1
        self._index: _Index | None = None
        self._ordered: tuple[list[str], list[int]] | None = None
        self.code_type: type = np.uint8
        """The type of a character's code (every script's: the narrowest that holds the corpus's)."""
        self._selected: dict[frozenset, tuple[np.ndarray, np.ndarray, list[str]]] = {}

    def index(self) -> "TermTable":
        """Find every term now (else on first use: a table whose chunks are ranked elsewhere,
        on a cluster's partitions, never finds them)."""
        if self._index is not None:
            return self
        # Global offsets index the documents joined by a newline, which no term spans, so one
        # pass over the joined text finds every document's terms. Only what ranking needs is
        # kept: each term's start and end and, for the article's terms, the lowered text, one
        # byte per character (bytes.lower() changes only A-Z, so the terms are where they were).
        # Every script's codes (two bytes a character once the corpus holds Chinese) are not
        # kept: the few that ranking reads are made again from the texts.
        if self.scripts:
            self._index = self._index_scripts()
        else:
            lowered = b"\n".join(one_byte_per_char(t).lower() for t in self.texts.values())
            self._index = _Index(*runs_of_bytes(lowered), lowered)
        return self

    def _built(self) -> "_Index":
        self.index()
        assert self._index is not None
        return self._index

    @property
    def starts(self) -> np.ndarray:
        """Every term's start, in order."""
        return self._built().starts

    @property
    def ends(self) -> np.ndarray:
        """Every term's end."""
        return self._built().ends

    @property
    def lowered(self) -> bytes | None:
        """The joined documents, lowered, one byte per character (the article's terms only)."""
        return self._built().lowered

    @property
    def codes(self) -> np.ndarray | None:
        """The article's terms: the lowered text as codes, one byte per character (every
        script's codes are not kept: ``_codes_of_documents`` makes them again)."""
        lowered = self.lowered
        return np.frombuffer(lowered, dtype=np.uint8) if lowered is not None else None

    def _index_scripts(self) -> "_Index":
        """Every term's start and end, bigrams included, found document by document from its
        codes (``unicode_terms.codes_of``); the codes' type is chosen from each text's set of
        characters."""
        texts = list(self.texts.values())
        self.code_type = narrowest(max(map(top_code, texts), default=0))
        total = sum(map(len, texts)) + max(len(texts) - 1, 0)
        offset_kind = offset_type(total)
        starts, ends = [np.zeros(0, dtype=offset_kind)], [np.zeros(0, dtype=offset_kind)]
        runs = self._runs() if self._runs is not None else map(self.runs_of, texts)
        for (first, last), at in zip(runs, self.base.values()):
            starts.append((first + at).astype(offset_kind))
            ends.append((last + at).astype(offset_kind))
        return _Index(np.concatenate(starts), np.concatenate(ends), None)

    @staticmethod
    def runs_of(text: str) -> tuple[np.ndarray, np.ndarray]:
        """The start and end of every term of one text, every script's (bigrams included)."""
        return unicode_runs(codes_of(text))

    def _codes_of_documents(self, first: int, stop: int) -> np.ndarray:
        """The codes of documents ``first`` to ``stop`` (by position), joined by a newline as the
        table's offsets join them."""
        texts = self._in_order()[0][first:stop]
        codes = np.full(sum(map(len, texts)) + max(len(texts) - 1, 0), ord("\n"), dtype=self.code_type)
        at = 0
        for text in texts:
            codes[at:at + len(text)] = codes_of(text)
            at += len(text) + 1
        return codes

    def _in_order(self) -> tuple[list[str], list[int]]:
        """The documents' texts and where each starts, in order."""
        if self._ordered is None:
            self._ordered = list(self.texts.values()), list(self.base.values())
        return self._ordered

    def _text(self, start: int, stop: int) -> str:
        """The joined documents' text from ``start`` to ``stop``, inside one document."""
        texts, bases = self._in_order()
        doc = bisect.bisect_right(bases, start) - 1
        return texts[doc][start - bases[doc]:stop - bases[doc]]

    def _characters(self, positions: np.ndarray) -> str:
        """The character at each position (a separator between documents reads as a newline)."""
        texts, bases = self._in_order()
        starts = np.array(bases, dtype=np.int64)
        docs = np.searchsorted(starts, positions, "right") - 1
        offsets = (positions - starts[docs]).tolist()
        return "".join([texts[d][o] if o < len(texts[d]) else "\n" for d, o in zip(docs.tolist(), offsets)])

    def terms_of(self, text: str) -> list[str]:
        """The lowercased terms of any string (a question, a prefix), as this table finds them."""
        return unicode_terms(text) if self.scripts else terms_of(text)

    def _key(self, word: str) -> bytes | None:
        """A word's codes as bytes in the table's code type; None when no term can equal it."""
        if not self.scripts:
            return word.encode("ascii") if word.isascii() and word else None
        codes = codes_of(word)
        self.index()  # which sets the codes' type
        if not len(codes) or int(codes.max()) > np.iinfo(self.code_type).max:
            return None
        return codes.astype(self.code_type).tobytes()

    def _kinds(self, positions: np.ndarray) -> np.ndarray:
        """The character class (``unicode_terms``) at each position."""
        if not self.scripts:
            return TERM_CLASS[self.codes[positions]]
        return class_of_codes(codes_of(self._characters(positions)))

    def _first_letter(self, start: int, stop: int) -> int | None:
        """The first letter or digit in ``[start, stop)``, if any."""
        if not self.scripts:
            found = LETTER_BYTE.search(self.lowered, start, stop)
            return found.start() if found else None
        letters = np.flatnonzero(class_of_codes(codes_of(self._text(start, stop))) == LETTER)
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

    def _occurrences(self, ids: dict[bytes, int]) -> tuple[np.ndarray, np.ndarray]:
        """``lookup.occurrences`` over the table: every script's codes made again block by block
        of documents (about ``CODE_BLOCK`` characters each), so they are never all held at once."""
        if not self.scripts:
            return occurrences(self.codes, self.starts, self.ends, ids)
        starts, ends, bases = self.starts, self.ends, self._in_order()[1]
        found, first = [], 0
        while first < len(bases):
            stop = bisect.bisect_right(bases, bases[first] + CODE_BLOCK, first + 1)
            codes, at = self._codes_of_documents(first, stop), bases[first]
            a, b = np.searchsorted(starts, [at, at + len(codes)]).tolist()
            terms, words = occurrences(codes, starts[a:b] - at, ends[a:b] - at, ids)
            found.append((terms + a, words))
            first = stop
        if not found:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate([t for t, _ in found]), np.concatenate([w for _, w in found])

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
        positions, word_ids = self._occurrences(ids)
        found = (positions, word_ids, vocabulary)
        self._selected[wanted] = found
        return found

    def add_selection(self, wanted: frozenset[str], positions: np.ndarray, word_ids: np.ndarray) -> None:
        """Use what ``select(wanted)`` gave this table's terms before (kept between runs)."""
        self._selected[wanted] = (positions, word_ids, sorted(wanted))

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
        # A cut piece is looked up by its lowered text (every script: a piece holds only term
        # characters, whose codes are their lowered code points) or its lowered bytes.
        piece_ids = ids if self.scripts else {w.encode("ascii"): i for w, i in ids.items() if w.isascii()}
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
        text = self.lowered
        for j, x, y in pieces:
            word_id = piece_ids.get(text[x:y] if text is not None else lower(self._text(x, y)))
            if word_id is not None:
                extra_chunks.append(j)
                extra_words.append(word_id)
        terms_of_prefix: dict[str, list[str]] = {}  # chunks under one heading share its prefix
        for j, prefix in enumerate(prefixes or ()):
            if prefix:
                prefix_terms = terms_of_prefix.get(prefix)
                if prefix_terms is None:
                    prefix_terms = terms_of_prefix[prefix] = self.terms_of(prefix)
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
