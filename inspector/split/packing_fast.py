"""The markdown splitters' fast path for character budgets without overlap (the common case).

There pieces tile the text, so a chunk's size is its end minus its start, and greedy packing
only needs the last piece end within the chunk's room: one bisection per chunk over a sorted
list of piece ends. For the paragraph, sentence and structured splitters that list comes
from ``piece_ends``, worked out once per document and reused by every splitter and budget.
The recursive and heading splitters' pieces (cuts after separators, recursing where a piece
is over budget) depend on the budget and are made per split, then packed the same way.

Results are exactly those of ``packing.pack`` over the general path's pieces
(tests/test_split_fast_paths.py checks it); where a precondition does not hold (units out of
order or overlapping, atom pieces not tiling their atom) the functions return None and the
general path runs instead.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Callable

from ..atoms.analysis import Analysis
from .packing import Sizer, refine
from .piece_ends import StructuredBounds, structured_ends, unit_bounds


class Columns:
    """Chunks as parallel lists: the packers' output before any ``Chunk`` is built."""

    __slots__ = ("starts", "ends", "prefixes")

    def __init__(self, starts: list[int], ends: list[int], prefixes: list[str] | None) -> None:
        self.starts = starts
        """Each chunk's first offset."""
        self.ends = ends
        """Each chunk's end offset."""
        self.prefixes = prefixes
        """Each chunk's prefix, or None when no chunk can have one."""


def pack_chars(ends: list[int], budget: int, sizer: Sizer, prefix_at: Callable[[int], str] | None,
               separators: tuple[str, ...], atomic: Callable[[int], bool] | None = None) -> Columns:
    """``packing.pack`` without overlap under a character budget, over pieces given by their
    sorted ends (``ends[0]`` the text's start, ``ends[-1]`` its end). A chunk ends at the last
    piece end within its room of its start; ``atomic(s)`` tells whether the piece starting at
    ``s`` may not be cut when it is too large alone."""
    if not sizer.is_chars:
        raise ValueError("pack_chars measures characters only")
    # Chunks tile the text, so each starts where the one before ends: only ends are kept.
    ends_out: list[int] = []
    emit = ends_out.append
    prefixes: list[str] | None = [] if prefix_at is not None else None
    last_end = bisect_right
    n = ends[-1]
    # Pieces cut from one too large for its chunk: they come before any other piece.
    cut_ends: list[int] = []
    cut = 0
    last_start, prefix, room = -1, "", max(1, budget)
    s = ends[0]
    while s < n:
        if prefix_at is not None and s != last_start:
            last_start, prefix = s, prefix_at(s)
            room = max(1, budget - len(prefix))
        limit = s + room
        if cut < len(cut_ends):
            e = cut_ends[cut]
            if e - s > room:
                if e - s > 1:
                    cut_ends[cut:cut + 1] = [y for _, y in refine(s, e, room, sizer, separators)]
                    continue
            elif limit < cut_ends[-1]:
                e = cut_ends[last_end(cut_ends, limit, cut) - 1]
            else:
                e = ends[last_end(ends, limit) - 1]
        else:
            j = last_end(ends, limit) - 1
            e = ends[j]
            if e <= s:  # the piece starting at s is larger than the room
                e = ends[j + 1]
                if e - s > 1 and (atomic is None or not atomic(s)):
                    cut_ends = [y for _, y in refine(s, e, room, sizer, separators)]
                    cut = 0
                    continue
        emit(e)
        if prefixes is not None:
            prefixes.append(prefix)
        s = e
        if cut_ends:
            cut = last_end(cut_ends, s, cut)
    return Columns([ends[0], *ends_out[:-1]] if ends_out else [], ends_out, prefixes)


def _in_atom(bounds: StructuredBounds) -> Callable[[int], bool]:
    starts, ends = bounds.atom_starts, bounds.atom_ends

    def atomic(s: int) -> bool:
        k = bisect_right(starts, s) - 1
        return k >= 0 and s < ends[k]

    return atomic


def packed_units(text: str, budget: int, analysis: Analysis, sizer: Sizer, prefix_at: Callable[[int], str] | None,
                 separators: tuple[str, ...], key: str) -> Columns | None:
    """The ``paragraphs`` or sentence ``units`` tiling the text, packed; None where the
    shortcut does not apply (units out of order or overlapping)."""
    if not text:
        return Columns([], [], None)
    units = unit_bounds(text, analysis, key)
    if units is None:
        return None
    ends = [0]
    units.gap_ends(0, len(text), ends)
    return pack_chars(ends, budget, sizer, prefix_at, separators)


def packed_structured(text: str, budget: int, analysis: Analysis, sizer: Sizer,
                      prefix_at: Callable[[int], str] | None, separators: tuple[str, ...]) -> Columns | None:
    """The structured pieces (atoms whole, units between them) packed; None where the shortcut
    does not apply (atom pieces not tiling their atom)."""
    if not text:
        return Columns([], [], None)
    found = structured_ends(text, budget, analysis, prefix_at)
    if found is None:
        return None
    ends, bounds = found
    return pack_chars(ends, budget, sizer, prefix_at, separators, _in_atom(bounds))


def packed_sections(text: str, sections: list[tuple[int, int]], recursive: Callable[[int, int], list[tuple[int, int]]],
                    budget: int, sizer: Sizer, prefix_at: Callable[[int], str] | None,
                    separators: tuple[str, ...]) -> Columns:
    """Each section's ``recursive`` pieces packed on its own, so a chunk never runs across a heading."""
    starts: list[int] = []
    chunk_ends: list[int] = []
    prefixes: list[str] | None = [] if prefix_at is not None else None
    for a, b in sections:
        columns = pack_chars([a, *(y for _, y in recursive(a, b))], budget, sizer, prefix_at, separators)
        starts += columns.starts
        chunk_ends += columns.ends
        if prefixes is not None:
            prefixes += columns.prefixes
    return Columns(starts, chunk_ends, prefixes)
