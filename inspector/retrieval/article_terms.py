"""The article's terms: what its ``[A-Za-z0-9][A-Za-z0-9.+-]*`` finds, lowercased, found in a
whole corpus with array operations over one byte per character (seed mode's ranking, and
every ASCII text in the other mode, where ``unicode_terms`` finds the same)."""

from __future__ import annotations

import re

import numpy as np

TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


def term_runs(text: str, block: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of every term of ``text``.

    A term is a run of ``[A-Za-z0-9.+-]`` trimmed to begin at its first letter or digit,
    which is exactly the regex's greedy scan, located with array operations, ``block``
    characters at a time (default ``TEXT_BLOCK``).
    """
    return runs_of_bytes(one_byte_per_char(text), block or TEXT_BLOCK)


#: Per byte: 2 for an ASCII letter or digit, 1 for ``.``, ``+`` or ``-``, 0 for anything else
#: (the classes ``unicode_terms`` gives those characters too).
TERM_CLASS = np.zeros(256, dtype=np.uint8)
TERM_CLASS[[ord(c) for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]] = 2
TERM_CLASS[[ord(c) for c in ".+-"]] = 1


def one_byte_per_char(text: str) -> bytes:
    """``text`` as ASCII with every other character (surrogates too) replaced by '?': offsets
    stay put, terms (ASCII only) keep their bytes, and no term character is invented."""
    return text.encode("ascii", "replace")


#: An ASCII letter or digit, where a term begins.
LETTER_BYTE = re.compile(rb"[0-9A-Za-z]")
_NOT_TERM = re.compile(rb"[^0-9A-Za-z.+-]")
#: Bytes of text per block when finding terms.
TEXT_BLOCK = 1 << 24


def offset_type(size: int) -> type:
    """The narrowest integer type that holds every offset of a text of ``size`` bytes."""
    return np.int32 if size < 2**31 - 1 else np.int64


def runs_of_bytes(data: bytes, block: int = TEXT_BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """Term starts and ends of ``data``, found block by block: no pass holds an array per byte
    of a whole corpus. Blocks end on a byte no term holds, so no term is cut."""
    kind = offset_type(len(data))
    starts: list[np.ndarray] = [np.zeros(0, dtype=kind)]
    ends: list[np.ndarray] = [np.zeros(0, dtype=kind)]
    at = 0
    while at < len(data):
        stop = min(len(data), at + block)
        if stop < len(data):
            found = _NOT_TERM.search(data, stop)
            stop = found.end() if found else len(data)
        first, last = _block_runs(data, at, stop)
        starts.append(first.astype(kind))
        ends.append(last.astype(kind))
        at = stop
    return np.concatenate(starts), np.concatenate(ends)


def _block_runs(data: bytes, at: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """The terms of ``data[at:stop]``, which begins and ends outside any term, as offsets into ``data``."""
    codes = np.frombuffer(data, dtype=np.uint8, count=stop - at, offset=at)
    inside = np.zeros(stop - at + 2, dtype=bool)
    inside[1:-1] = TERM_CLASS[codes] != 0
    edges = np.flatnonzero(inside[1:] != inside[:-1])
    first, run_ends = edges[0::2], edges[1::2]
    # Nearly every run starts on its first letter or digit; only runs led by '.', '+' or '-'
    # need their first letter looked for (a lone one has none).
    led = np.flatnonzero(TERM_CLASS[codes[first]] != 2)
    lone = run_ends[led] - first[led] == 1
    first[led[lone]] = run_ends[led[lone]]
    for k in led[~lone].tolist():
        found = LETTER_BYTE.search(data, at + int(first[k]), at + int(run_ends[k]))
        first[k] = found.start() - at if found else run_ends[k]
    keep = first < run_ends
    return first[keep] + at, run_ends[keep] + at


def terms_of(text: str) -> list[str]:
    """The lowercased terms of any string (prefixes, cut pieces)."""
    return [m.lower() for m in TERM.findall(text)]
