"""The article's greedy packer, reproduced exactly (``seed`` mode), quirks included.

A chunk grows while the span from its first piece's start to the next piece's end fits the
budget; a piece over the budget is cut into windows of the budget's size. Its pieces may
overlap (a table inside a fence is both), and then only a step-by-step replay gives its
results; ordered pieces take a bisection per chunk instead.
"""

from __future__ import annotations

from bisect import bisect_right
from operator import le

from ..model import Span
from .packing import Sizer


class SeedPieces:
    """Pieces for the article's packer, prepared once to be packed under several budgets."""

    __slots__ = ("pieces", "starts", "ends", "ordered")

    def __init__(self, pieces: list[Span] | tuple[Span, ...]) -> None:
        self.pieces = pieces
        self.starts = [a for a, _ in pieces]
        self.ends = [b for _, b in pieces]
        # The article's structured pieces can overlap (a table inside a fence is both), and
        # then its packer does odd things that only a step-by-step replay reproduces.
        self.ordered = all(map(le, self.starts, self.ends)) and all(map(le, self.ends, self.starts[1:]))

    def pack_chars(self, budget: int) -> list[Span]:
        """``pack_seed`` under a character budget."""
        if self.ordered:
            return _pack_seed_ordered(self.starts, self.ends, budget)
        return pack_seed_chars(self.pieces, budget)


def _pack_seed_ordered(starts: list[int], ends: list[int], budget: int) -> list[Span]:
    """``pack_seed_chars`` for pieces in order that do not overlap: a chunk then takes every
    following piece that ends within ``budget`` of its start, found by one bisection per
    chunk rather than one step per piece. (No over-budget piece can be among them: it starts
    at or after the chunk's start, so it ends too far.)"""
    out: list[Span] = []
    i, n = 0, len(starts)
    while i < n:
        a, b = starts[i], ends[i]
        while b - a > budget:
            out.append((a, a + budget))
            a += budget
        m = bisect_right(ends, a + budget, i + 1) - 1
        out.append((a, ends[m]))
        i = m + 1
    return out


def pack_seed(pieces: list[Span] | SeedPieces, budget: int, sizer: Sizer) -> list[Span]:
    """The article's greedy packer, kept exactly: over-budget pieces are cut into windows,
    and a chunk grows while its first start to the new piece's end fits the budget."""
    if sizer.is_chars:
        return (pieces if isinstance(pieces, SeedPieces) else SeedPieces(pieces)).pack_chars(budget)
    if isinstance(pieces, SeedPieces):
        pieces = pieces.pieces
    out: list[Span] = []
    current: list[int] | None = None
    for a, b in pieces:
        while sizer.size(a, b) > budget:
            if current is not None:
                out.append((current[0], current[1]))
                current = None
            c = sizer.cut(a, b, budget)
            out.append((a, c))
            a = c
        if current is None:
            current = [a, b]
        elif sizer.size(current[0], b) <= budget:
            current[1] = b
        else:
            out.append((current[0], current[1]))
            current = [a, b]
    if current is not None:
        out.append((current[0], current[1]))
    return out


def pack_seed_chars(pieces: list[Span], budget: int) -> list[Span]:
    """``pack_seed`` for character budgets, with sizes as plain subtraction (the hot path)."""
    out: list[Span] = []
    first = last = -1
    for a, b in pieces:
        while b - a > budget:
            if first >= 0:
                out.append((first, last))
                first = -1
            out.append((a, a + budget))
            a += budget
        if first < 0:
            first, last = a, b
        elif b - first <= budget:
            last = b
        else:
            out.append((first, last))
            first, last = a, b
    if first >= 0:
        out.append((first, last))
    return out
