"""Which characters make terms, in every script: classes of code points, case folding, and the
bigrams of scripts written without spaces, without numpy (the probe chooses its words in
forked workers that have not imported it)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..atoms.language import HAN, HANGUL, KANA, character_class

#: Character classes: not in a term, a connector inside one (``.+-``), a letter or digit, a
#: character of a script written without spaces (bigrams).
OTHER, CONNECTOR, LETTER, BIGRAM = 0, 1, 2, 3

#: Han, kana and Hangul (``atoms.language``'s ranges), in order.
BIGRAM_RANGES = tuple(sorted(HAN + KANA + HANGUL))
#: A regex class of the characters of scripts written without spaces (the bigram ranges).
BIGRAM_CHARACTERS = character_class(BIGRAM_RANGES)


@lru_cache(maxsize=None)
def class_of(cp: int) -> int:
    """The class of one code point."""
    ch = chr(cp)
    if any(a <= cp <= b for a, b in BIGRAM_RANGES):
        return BIGRAM if ch.isalnum() or unicodedata.category(ch).startswith("L") else OTHER
    if ch in ".+-":
        return CONNECTOR
    if ch.isalnum():
        return LETTER
    if unicodedata.category(ch) in ("Mn", "Mc"):  # vowel signs and accents that follow a letter
        return LETTER
    return OTHER


def lower(text: str) -> str:
    """``text`` lowercased character by character (one character for one, so offsets stay put)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)  # "İ" and the few like it


_BIGRAM_RUN = re.compile(f"[{BIGRAM_CHARACTERS}]+")


def bigrams(text: str) -> list[tuple[int, str]]:
    """The bigrams of ``text``'s runs of Han, kana and Hangul (a lone character: itself), with
    their offsets, lowercased: the terms ``unicode_terms`` finds there."""
    out: list[tuple[int, str]] = []
    for match in _BIGRAM_RUN.finditer(text):
        at, run = match.start(), match.group()
        start = 0
        for k in range(len(run) + 1):  # a character of the ranges that is no letter ends a run
            if k == len(run) or class_of(ord(run[k])) != BIGRAM:
                if k - start == 1:
                    out.append((at + start, lower(run[start])))
                out += [(at + i, lower(run[i:i + 2])) for i in range(start, k - 1)]
                start = k + 1
    return out
