"""The markdown splitters' fast path for character budgets without overlap (the common case).

There pieces tile the text, so a chunk's size is its end minus its start, and greedy packing
only needs the last piece end within the chunk's room. That end is found by bisection, and the
pieces made of sentences (the stretches between atoms) are never built: their boundaries are
worked out from the unit spans at the few offsets the packer asks about, following the rules
of ``packing._tile`` (whitespace after a unit joins it, any other text between units is a
piece of its own). Results are exactly those of ``packing.pack`` over the general path's
pieces (tests/test_split_fast_paths.py checks it); where a precondition does not hold (units
out of order, pieces not tiling) the functions return None and the general path runs instead.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from operator import eq, le, lt
from typing import Callable, Sequence

from .analysis import Analysis
from .packing import Measure, Packed, refine, tile_text


def _columns(spans: Sequence[tuple[int, int]]) -> tuple[Sequence[int], Sequence[int]]:
    """Starts and ends of some spans (transposed in C)."""
    return tuple(zip(*spans)) or ((), ())


def unit_lists(analysis: Analysis) -> tuple[Sequence[int], Sequence[int]] | None:
    """``splitters._units`` as start and end lists: sentences where a paragraph has some, the
    paragraph where not. A sentence counts for the paragraph its start lies in (paragraphs do
    not overlap, so that is the first paragraph ending after it) and for none otherwise.
    None when the sentences are out of order (the bisection needs them sorted).

    Kept in the analysis's memo: like the atoms, it depends on the document only, so every
    splitter and budget after the first reuses it."""
    if "unit_lists" not in analysis.memo:
        analysis.memo["unit_lists"] = _unit_lists(analysis)
    return analysis.memo["unit_lists"]


def _unit_lists(analysis: Analysis) -> tuple[Sequence[int], Sequence[int]] | None:
    sentences, paragraphs = analysis.sentences, analysis.paragraphs
    s_starts, s_ends = _columns(sentences)
    if not all(map(le, s_starts, s_starts[1:])):
        return None
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
    return tuple(starts), tuple(ends)


class Segments:
    """A text cut into consecutive segments: gaps tiled by units, and runs of atom pieces
    (a whole atom, or a table cut into header and rows, or a fence cut into lines)."""

    __slots__ = ("text", "us", "ue", "starts", "ends", "los", "his", "cuts", "broken")

    def __init__(self, text: str, unit_starts: Sequence[int], unit_ends: Sequence[int]) -> None:
        self.text = text
        self.us, self.ue = unit_starts, unit_ends
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.los: list[int] = []
        self.his: list[int] = []
        self.cuts: list[list[int] | None] = []  # a run's inner piece bounds; None for a gap
        self.broken = False  # a run's pieces did not tile it

    @classmethod
    def over(cls, text: str, unit_starts: Sequence[int], unit_ends: Sequence[int]) -> "Segments | None":
        """Segments to be filled, or None when the units are not non-empty, sorted and
        non-overlapping (bisection needs both their starts and their ends in order)."""
        if all(map(lt, unit_starts, unit_ends)) and all(map(le, unit_ends, unit_starts[1:])):
            return cls(text, unit_starts, unit_ends)
        return None

    def add_run(self, a: int, b: int, cuts: list[int]) -> None:
        """Atom pieces tiling ``[a, b)``, the later ones starting at ``cuts``."""
        self.starts.append(a)
        self.ends.append(b)
        self.los.append(0)
        self.his.append(0)
        self.cuts.append(cuts)

    def add_pieces(self, pieces: list[tuple[int, int]]) -> None:
        """Atom pieces as spans (marked broken unless each starts where the one before ends)."""
        starts = [x for x, _ in pieces]
        ends = [y for _, y in pieces]
        if not all(map(eq, starts[1:], ends)):
            self.broken = True
        self.add_run(starts[0], ends[-1], starts[1:])

    def add_gap(self, a: int, b: int) -> None:
        """``[a, b)`` as ``tile_text`` over the units would cut it (``a < b``)."""
        self.starts.append(a)
        self.ends.append(b)
        lo = bisect_right(self.ue, a)
        self.los.append(lo)
        self.his.append(bisect_left(self.us, b, lo))
        self.cuts.append(None)

    def tiling(self) -> bool:
        """Whether the segments are non-empty and each starts where the one before ends."""
        starts, ends = self.starts, self.ends
        return not self.broken and all(map(lt, starts, ends)) and all(map(eq, starts[1:], ends))

    def is_atom(self, g: int) -> bool:
        return self.cuts[g] is not None

    # Inside gap g the piece boundaries are, in order: the first unit's start when the gap
    # starts before it, then for every later unit k the end of the piece before it (``_split``)
    # and its start. The gap's own start and end bound its first and last piece.

    def _split(self, k: int) -> int:
        """Where the piece holding unit k - 1 ends: after the whitespace that follows it."""
        before, at = self.ue[k - 1], self.us[k]
        if at <= before:
            return at
        gap = self.text[before:at]
        return before + len(gap) - len(gap.lstrip())

    def piece_end(self, g: int, s: int) -> int:
        """End of the piece that starts at ``s`` inside segment g."""
        cuts = self.cuts[g]
        if cuts is not None:
            k = bisect_right(cuts, s)
            return cuts[k] if k < len(cuts) else self.ends[g]
        lo, hi = self.los[g], self.his[g]
        k = bisect_right(self.us, s, lo, hi)  # first unit starting after s
        if k == hi:
            return self.ends[g]
        if k == lo:
            return self.us[k]
        split = self._split(k)
        return split if split > s else self.us[k]

    def last_end(self, limit: int) -> int:
        """The last piece end at or before ``limit`` (the text's end past it)."""
        g = bisect_right(self.starts, limit) - 1
        if limit >= self.ends[g]:
            return self.ends[g]
        best = self.starts[g]
        cuts = self.cuts[g]
        if cuts is not None:
            k = bisect_right(cuts, limit)
            return cuts[k - 1] if k else best
        lo, hi = self.los[g], self.his[g]
        k = bisect_right(self.us, limit, lo, hi) - 1  # last unit starting at or before limit
        if k >= lo:
            split = self._split(k + 1) if k + 1 < hi else limit + 1
            if split <= limit:
                best = split
            elif k > lo or self.us[k] > best:
                best = self.us[k]
        return best


def structured_segments(text: str, budget: int, analysis: Analysis, measure: Measure,
                        prefix_at: Callable[[int], str] | None) -> Segments | None:
    """``splitters._structured_pieces`` as segments (None when the units are out of order)."""
    units = unit_lists(analysis)
    segments = units and Segments.over(text, *units)
    if segments is None:
        return None
    tables = {t.start: t for t in analysis.tables}
    hard = sorted(set(analysis.atoms["code"]) | set(analysis.atoms["table"]))
    pos = 0
    for a, b in hard:
        if a < pos:
            continue
        if a > pos:
            segments.add_gap(pos, a)
        prefix = prefix_at(a) if prefix_at else ""
        room = budget - (measure.exact(prefix) if prefix else 0)
        if measure.size(a, b) <= room:
            segments.add_run(a, b, [])
        elif a in tables:
            table = tables[a]
            segments.add_pieces([table.header, *tile_text(text, table.rows, table.header[1], b)])
        else:
            cuts = []  # one piece per line, as ``splitters._lines``
            nl = text.find("\n", a, b - 1)
            while nl != -1:
                cuts.append(nl + 1)
                nl = text.find("\n", nl + 1, b - 1)
            segments.add_run(a, b, cuts)
        pos = b
    if pos < len(text):
        segments.add_gap(pos, len(text))
    return segments


def unit_segments(text: str, unit_starts: Sequence[int], unit_ends: Sequence[int]) -> Segments | None:
    """The whole text as one gap tiled by the units (the paragraph and sentence splitters)."""
    segments = Segments.over(text, unit_starts, unit_ends)
    if segments is not None and text:
        segments.add_gap(0, len(text))
    return segments


def pack_chars(segments: Segments, budget: int, measure: Measure, prefix_at: Callable[[int], str] | None,
               separators: tuple[str, ...]) -> list[Packed] | None:
    """``packing.pack`` without overlap under a character budget (None when the segments do
    not tile the text). A chunk ends at the last piece end within its room of its start."""
    if not measure.is_chars:
        raise ValueError("pack_chars measures characters only")
    if not segments.tiling():
        return None
    out: list[Packed] = []
    if not segments.starts:
        return out
    seg_starts, n = segments.starts, segments.ends[-1]
    piece_end, last_end = segments.piece_end, segments.last_end
    # Pieces cut from one too large for its chunk: they come before any other piece.
    cut_ends: list[int] = []
    cut = 0
    last_start, prefix, room = -1, "", max(1, budget)
    s = seg_starts[0]
    while s < n:
        if prefix_at is not None and s != last_start:
            last_start, prefix = s, prefix_at(s)
            room = max(1, budget - len(prefix))
        g = -1
        if cut < len(cut_ends):
            e = cut_ends[cut]
        else:
            g = bisect_right(seg_starts, s) - 1
            e = piece_end(g, s)
        if e - s > room:
            if (g >= 0 and segments.is_atom(g)) or e - s <= 1:
                out.append(Packed(s, e, prefix, True))
                s = e
                cut = bisect_right(cut_ends, s, cut)
                continue
            cut_ends[cut:cut + 1] = [y for _, y in refine(s, e, room, measure, separators)]
            continue
        limit = s + room
        if cut < len(cut_ends) and limit < cut_ends[-1]:
            e = cut_ends[bisect_right(cut_ends, limit, cut) - 1]
        else:
            e = last_end(limit)
        out.append(Packed(s, e, prefix))
        s = e
        cut = bisect_right(cut_ends, s, cut)
    return out


def packed_chars(text: str, spec, analysis: Analysis, measure: Measure,
                 prefix_at: Callable[[int], str] | None) -> list[Packed] | None:
    """What ``splitters.split_spans`` gives for a markdown paragraph, sentence or structured
    splitter under a character budget without overlap; None for other splitters and where
    the shortcut does not apply."""
    if spec.kind == "structured":
        segments = structured_segments(text, spec.budget, analysis, measure, prefix_at)
    elif spec.kind == "paragraph":
        segments = unit_segments(text, *_columns(analysis.paragraphs))
    elif spec.kind == "sentence":
        units = unit_lists(analysis)
        segments = units and unit_segments(text, *units)
    else:
        return None
    if segments is None:
        return None
    return pack_chars(segments, spec.budget, measure, prefix_at, spec.separators[1:] or spec.separators)
