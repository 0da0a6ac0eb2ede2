"""Terms of every script, for BM25 in the default (markdown) mode.

Alphabetic scripts: a term is a run of Unicode letters, digits and combining marks (with the
article's inner ``.``, ``+`` and ``-``: ``v4.2``, ``c++``, ``io-uring``), beginning at a letter
or digit, lowercased character by character; on ASCII text that is exactly the article's
``[A-Za-z0-9][A-Za-z0-9.+-]*``, so English terms do not change. Han, kana and Hangul, which
mark no word boundaries, give overlapping character bigrams, as Lucene's CJK analyzer does: a
run of n such characters gives its n - 1 bigrams, a lone one itself.

A text becomes an array of codes, one per character: the lowercased code point of a term
character, ``?`` for anything else, so offsets stay put and the array is one byte per
character when the corpus's term characters are Latin-1 (English, German, French, ...), two
when they are in the Basic Multilingual Plane (Chinese, Japanese, Greek, Cyrillic, ...).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import numpy as np

from .scripts import BIGRAM, BIGRAM_RANGES, CONNECTOR, LETTER, OTHER, class_of, lower

QUESTION = ord("?")


@lru_cache(maxsize=1)
def classes() -> np.ndarray:
    """The class (``scripts.class_of``) of every code point of the Basic Multilingual Plane,
    built with array operations (astral ones: ``class_of``, one by one)."""
    characters = [chr(cp) for cp in range(0x10000)]
    alnum = np.fromiter(map(str.isalnum, characters), bool, 0x10000)
    letter = np.fromiter(map(str.isalpha, characters), bool, 0x10000)  # categories L*
    mark = np.fromiter(map({"Mn", "Mc"}.__contains__, map(unicodedata.category, characters)), bool, 0x10000)
    table = np.full(0x10000, OTHER, dtype=np.uint8)
    table[alnum | mark] = LETTER
    table[[ord(c) for c in ".+-"]] = CONNECTOR
    spaceless = np.zeros(0x10000, dtype=bool)
    for first, last in BIGRAM_RANGES:
        if first <= 0xFFFF:
            spaceless[first:min(last, 0xFFFF) + 1] = True
    table[spaceless] = np.where((alnum | letter)[spaceless], BIGRAM, OTHER)
    return table


def class_of_codes(codes: np.ndarray) -> np.ndarray:
    """The class of each code of an array."""
    table = classes()
    if codes.dtype.itemsize <= 2:
        return table[codes]
    out = table[np.minimum(codes, 0xFFFF)]
    astral = np.flatnonzero(codes > 0xFFFF)
    if len(astral):
        out[astral] = [class_of(int(cp)) for cp in codes[astral]]
    return out


def codes_of(text: str) -> np.ndarray:
    """The lowercased code of each term character of ``text``, ``?`` for every other one."""
    lowered = lower(text)
    if lowered.isascii():
        return np.frombuffer(lowered.encode("ascii"), dtype=np.uint8)
    codes = np.frombuffer(lowered.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.where(class_of_codes(codes) == OTHER, QUESTION, codes)


def top_code(text: str) -> int:
    """At least the largest code ``codes_of(text)`` holds (ASCII: 127), from the text's distinct
    characters only."""
    if text.isascii():
        return 0x7F
    return max((ord(ch) for ch in set(lower(text)) if class_of(ord(ch)) != OTHER), default=QUESTION)


def narrowest(top: int) -> type:
    """The smallest unsigned type that holds codes up to ``top``."""
    return np.uint8 if top <= 0xFF else np.uint16 if top <= 0xFFFF else np.uint32


def term_runs(codes: np.ndarray, kinds: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of every term of a code array, bigrams included, sorted by start."""
    kind = kinds if kinds is not None else class_of_codes(codes)
    n = len(kind)
    words = (kind == LETTER) | (kind == CONNECTOR)
    first, last = _runs(words)
    # A run led by connectors starts at its first letter or digit (a run of connectors is none).
    for k in np.flatnonzero(kind[first] != LETTER).tolist():
        letters = np.flatnonzero(kind[first[k]:last[k]] == LETTER)
        first[k] = first[k] + letters[0] if len(letters) else last[k]
    keep = first < last
    first, last = first[keep], last[keep]
    cjk_first, cjk_last = _runs(kind == BIGRAM)
    size = cjk_last - cjk_first
    pairs = np.maximum(size - 1, 1)  # n characters: n - 1 bigrams; one character: itself
    starts = np.repeat(cjk_first, pairs) + (np.arange(int(pairs.sum())) - np.repeat(np.cumsum(pairs) - pairs, pairs))
    ends = np.minimum(starts + 2, np.repeat(cjk_last, pairs))
    if not len(starts):
        return first, last
    all_starts = np.concatenate((first, starts))
    order = np.argsort(all_starts, kind="stable")
    kind_of = np.int32 if n < 2**31 - 1 else np.int64
    return all_starts[order].astype(kind_of), np.concatenate((last, ends))[order].astype(kind_of)


def _runs(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    padded = np.zeros(len(inside) + 2, dtype=bool)
    padded[1:-1] = inside
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    return edges[0::2].astype(np.int64), edges[1::2].astype(np.int64)


def unicode_terms(text: str) -> list[str]:
    """The terms of any string (a query, a prefix, a cut piece), lowercased, bigrams included:
    found by ``term_runs``, so a string's terms are exactly those a table finds in it."""
    if not text:
        return []
    starts, ends = term_runs(codes_of(text))
    lowered = lower(text)
    return [lowered[a:b] for a, b in zip(starts.tolist(), ends.tolist())]

