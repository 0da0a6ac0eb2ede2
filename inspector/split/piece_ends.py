"""Where a markdown document's pieces end, worked out once per document and kept.

The fast packer (``packing_fast``) needs the sorted ends of the pieces the general path would
build (``pieces.markdown_pieces``), following ``packing._tile``'s rules: whitespace after a
unit joins it, any other text between units is a piece of its own. Those ends depend on the
sentence units and the atoms only, so they are computed once and kept in the analysis's memo,
like the atoms; a budget only splices in the inner cuts of blocks too large for it: around the
atom when it fits without the block's edge whitespace, else a table's rows or a fence's lines
(kept as well). Each function returns None where its
preconditions fail (units out of order or overlapping, an atom's pieces not tiling it), and
the general path runs instead.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import partial
from itertools import chain, compress, count
from operator import eq, itemgetter, le, lt, sub
from typing import Callable, Sequence

from ..atoms.analysis import Analysis, visible_span
from .packing import tile_text


def _columns(spans: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Starts and ends of some spans."""
    return [a for a, _ in spans], [b for _, b in spans]


def unit_lists(analysis: Analysis) -> tuple[Sequence[int], Sequence[int]] | None:
    """``pieces.markdown_units`` as start and end lists: sentences where a paragraph has some, the
    paragraph where not. A sentence counts for the paragraph its start lies in (paragraphs do
    not overlap, so that is the first paragraph ending after it) and for none otherwise.
    None when the sentences are out of order (the bisection needs them sorted).

    Kept in the analysis's memo: it depends on the document only."""
    if "unit_lists" not in analysis.memo:
        analysis.memo["unit_lists"] = _unit_lists(analysis)
    return analysis.memo["unit_lists"]


def _unit_lists(analysis: Analysis) -> tuple[list[int], list[int]] | None:
    sentences, paragraphs = analysis.sentences, analysis.paragraphs
    s_starts, s_ends = _columns(sentences)
    if not all(map(le, s_starts, s_starts[1:])):
        return None
    p_starts, p_ends = _columns(paragraphs)
    if all(map(lt, p_starts, p_ends)) and all(map(le, p_ends, p_starts[1:])):
        # Paragraphs sorted, non-empty and apart: when every sentence starts inside one, the
        # units are the sentences and the paragraphs holding none, in order of their starts.
        firsts = list(map(partial(bisect_left, s_starts), p_starts))
        stops = list(map(partial(bisect_left, s_starts), p_ends))
        if sum(map(sub, stops, firsts)) == len(s_starts):
            bare = compress(paragraphs, map(eq, firsts, stops))
            return _columns(sorted(chain(sentences, bare), key=itemgetter(0)))
    starts: list[int] = []
    ends: list[int] = []
    k = 0
    for a, b in paragraphs:
        stop = bisect_left(s_starts, b, k)
        first = bisect_left(s_starts, a, k, stop)
        if first < stop:
            starts += s_starts[first:stop]
            ends += s_ends[first:stop]
        else:
            starts.append(a)
            ends.append(b)
        k = stop
    return starts, ends


class UnitBounds:
    """Where ``tile_text`` over one document's units may cut, found once per unit list.

    ``cand`` holds, strictly increasing, every unit's start and, before it, the end of the
    piece holding the unit before (that unit's end plus the whitespace after it) where that
    differs from the start (when other text, a list marker say, lies between). Such a split
    lies strictly between the two units' starts, since units are non-empty."""

    __slots__ = ("us", "ue", "cand")

    def __init__(self, text: str, us: Sequence[int], ue: Sequence[int]) -> None:
        self.us, self.ue = us, ue
        # Units k whose gap from unit k - 1 holds more than whitespace (str.strip leaves
        # something); found without a Python-level step per unit, as most gaps are blank.
        gaps = map(text.__getitem__, map(slice, ue, us[1:]))
        splits = []
        for k in compress(count(1), map(str.strip, gaps)):
            before = ue[k - 1]
            gap = text[before:us[k]]
            splits.append(before + len(gap) - len(gap.lstrip()))
        self.cand = sorted(chain(us, splits)) if splits else list(us)

    @classmethod
    def of(cls, text: str, us: Sequence[int], ue: Sequence[int]) -> "UnitBounds | None":
        """None unless the units are non-empty, sorted and non-overlapping."""
        if all(map(lt, us, ue)) and all(map(le, ue, us[1:])):
            return cls(text, us, ue)
        return None

    def gap_ends(self, p: int, q: int, out: list[int]) -> None:
        """Append the ends of the pieces ``tile_text(text, units, p, q)`` makes (``p < q``)."""
        us, cand = self.us, self.cand
        k0 = bisect_right(self.ue, p)  # the first unit ending after p
        last = bisect_left(us, q, k0) - 1  # the last unit starting before q
        if last >= k0:
            first_start = us[k0]
            if first_start > p:
                out.append(first_start)  # text before the first unit is a piece of its own
            i = bisect_right(cand, first_start)
            out += cand[i:bisect_right(cand, us[last], i)]
        out.append(q)  # text after the last unit joins its piece


def unit_bounds(text: str, analysis: Analysis, key: str) -> UnitBounds | None:
    """The analysis's ``UnitBounds`` for sentence units (``units``) or paragraphs, memoized."""
    memo_key = f"unit_bounds:{key}"
    if memo_key not in analysis.memo:
        columns = unit_lists(analysis) if key == "units" else _columns(analysis.paragraphs)
        analysis.memo[memo_key] = columns and UnitBounds.of(text, *columns)
    return analysis.memo[memo_key]


class StructuredBounds:
    """A document's structured pieces with every atom whole: the hard atoms taken (code and
    tables; one nested in another is skipped), the sorted ends of all pieces after a leading
    0, and the inner cuts of the atoms some budget has needed so far."""

    __slots__ = ("atom_starts", "atom_ends", "largest", "ends", "cuts")

    def __init__(self, text: str, analysis: Analysis, units: UnitBounds) -> None:
        self.atom_starts: list[int] = []
        self.atom_ends: list[int] = []
        ends: list[int] = [0]
        pos = 0
        for a, b in analysis.blocks:
            if a < pos:
                continue
            if a > pos:
                units.gap_ends(pos, a, ends)
            self.atom_starts.append(a)
            self.atom_ends.append(b)
            ends.append(b)
            pos = b
        if pos < len(text):
            units.gap_ends(pos, len(text), ends)
        self.ends = ends
        self.largest = max(map(sub, self.atom_ends, self.atom_starts), default=0)
        self.cuts: dict[int, list[int] | None] = {}


def _structured_bounds(text: str, analysis: Analysis) -> StructuredBounds | None:
    """The document's ``StructuredBounds``, memoized; None unless its pieces tile the text."""
    if "structured_bounds" not in analysis.memo:
        units = unit_bounds(text, analysis, "units")
        bounds = units and StructuredBounds(text, analysis, units)
        if bounds is not None:
            ends = bounds.ends
            if len(ends) < 2 or ends[-1] != len(text) or not all(map(lt, ends, ends[1:])):
                bounds = None
        analysis.memo["structured_bounds"] = bounds
    return analysis.memo["structured_bounds"]


def _characters(start: int, end: int) -> int:
    return end - start


def fitting_part(text: str, a: int, b: int, size: Callable[[int, int], int], room: int) -> list[int]:
    """Where to cut a block too large for ``room`` so that its visible text (the atom) stays whole
    when that fits (``size(start, end)`` measures a span): after it, and before it too when its
    first line's indentation does not fit with it; no cut (empty) when even the atom does not fit."""
    start, end = visible_span(text, a, b)
    if (start, end) == (a, b) or size(start, end) > room:
        return []
    return [x for x in ((a if size(a, end) <= room else start), end) if a < x < b]


def _atom_cuts(text: str, a: int, b: int, analysis: Analysis) -> list[int] | None:
    """The inner piece bounds of an over-budget atom: between a table's header and rows, or
    between a fence's lines (as ``pieces.structured_pieces``). None when the table's
    pieces would not tile it."""
    for table in analysis.tables:
        if table.start == a:
            rows = table.rows
            body = table.header[1]
            if table.header[0] == a < body and rows and rows[0][0] == body and rows[-1][1] == b:
                starts = [x for x, _ in rows]
                if all(map(eq, starts[1:], (y for _, y in rows))) and all(map(lt, starts, (y for _, y in rows))):
                    return starts  # the rows tile the body: they are the pieces
            pieces = [table.header, *tile_text(text, rows, body, b)]
            starts = [x for x, _ in pieces]
            ends = [y for _, y in pieces]
            if (starts[0] != a or ends[-1] != b or not all(map(eq, starts[1:], ends))
                    or not all(map(lt, starts, ends))):
                return None
            return starts[1:]
    cuts = []
    nl = text.find("\n", a, b - 1)
    while nl != -1:
        cuts.append(nl + 1)
        nl = text.find("\n", nl + 1, b - 1)
    return cuts


def structured_ends(text: str, budget: int, analysis: Analysis, prefix_at: Callable[[int], str] | None
                    ) -> tuple[list[int], StructuredBounds] | None:
    """The piece ends of ``pieces.structured_pieces`` under a character budget, with 0 in
    front (None when the units are out of order or a split table does not tile)."""
    bounds = _structured_bounds(text, analysis)
    if bounds is None:
        return None
    ends = bounds.ends
    if bounds.largest <= budget and prefix_at is None:
        return ends, bounds  # every atom fits: nothing to splice
    spliced = False
    known = bounds.cuts
    for a, b in zip(bounds.atom_starts, bounds.atom_ends):
        size = b - a
        room = budget if prefix_at is None else budget - len(prefix_at(a))
        if size <= budget and size <= room:
            continue
        cuts = fitting_part(text, a, b, _characters, room)
        if cuts:
            pass  # the atom fits without the block's edge whitespace (depends on the budget: not kept)
        elif a in known:
            cuts = known[a]
        else:
            cuts = known[a] = _atom_cuts(text, a, b, analysis)
        if cuts is None:
            return None
        if cuts:
            if not spliced:
                ends, spliced = list(ends), True
            at = bisect_left(ends, b)
            ends[at:at] = cuts
    return ends, bounds
