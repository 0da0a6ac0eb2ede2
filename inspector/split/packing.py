"""Sizing spans in a budget's unit, and packing pieces into chunks.

Splitters first cut a document into pieces (paragraphs, sentences, atoms, gaps) and then
pack consecutive pieces into chunks under the budget. The default packer (``pack``) lives
here: it keeps the pieces tiling the text, carries overlap, reserves room for prefixes and
checks token budgets against the real tokenizer. The article's own packer is in
``packing_seed``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Callable, Sequence

from ..lengths import CharLength, Length
from ..model import Span


class Sizer:
    """Sizes of spans of one document in a length unit, fast enough to call per piece.

    For tokens the size of ``text[a:b]`` is estimated from the document's own token
    boundaries (one tokenizer pass per document); ``exact`` asks the tokenizer itself, and
    the packer uses it to confirm every chunk it emits.
    """

    def __init__(self, text: str, length: Length | None = None, bounds: Sequence[int] | None = None) -> None:
        self.text = text
        self.length = length or CharLength()
        self.is_chars = self.length.unit == "characters"
        if self.is_chars:
            bounds = []
        elif bounds is None:
            bounds = self.length.boundaries(text)
        self.bounds: Sequence[int] = bounds
        """Offsets where tokens start (empty for characters)."""

    @classmethod
    def of(cls, text: str, length: Length, memo: dict) -> "Sizer":
        """A sizer whose token boundaries are kept in ``memo`` (an analysis's), so the
        document is tokenized once per tokenizer, not once per splitter and budget. They are
        kept as a packed array: a quarter of a list's memory, and bisected faster."""
        if length.unit == "characters" or not length.key:
            return cls(text, length)
        key = ("token_boundaries", length.key)
        bounds = memo.get(key)
        if bounds is None:
            bounds = memo[key] = array("q", length.boundaries(text))
        return cls(text, length, bounds)

    def size(self, a: int, b: int) -> int:
        """Size of ``text[a:b]`` (estimated for tokens)."""
        if self.is_chars or b <= a:
            return max(0, b - a)
        bounds = self.bounds
        first = bisect_left(bounds, a)
        count = bisect_left(bounds, b) - first
        if first >= len(bounds) or bounds[first] != a:
            count += 1  # a span starting inside a token still spends a token on its head
        return count

    def cut(self, a: int, b: int, limit: int) -> int:
        """The furthest offset ``c`` in ``(a, b]`` with ``size(a, c) <= limit`` (at least ``a + 1``)."""
        limit = max(1, limit)
        if self.is_chars:
            return min(b, a + limit)
        bounds = self.bounds
        # Whether or not a token starts at a, the limit-th token start after a (counting a
        # partial head token as one) sits at index first + limit - 1.
        first = bisect_right(bounds, a)
        index = first + limit - 1
        if index >= len(bounds) or bounds[index] >= b:
            return b
        return max(a + 1, bounds[index])

    def exact(self, text: str) -> int:
        """The real size of any string."""
        return len(text) if self.is_chars else self.length.count(text)


@dataclass(frozen=True, slots=True)
class Piece:
    """A unit the default packer never cuts, unless it alone exceeds the budget."""

    start: int
    """Offset of the first character."""

    end: int
    """Offset one past the last character."""

    atomic: bool = False
    """True for an atom (or one line of a split atom): never cut, reported when oversized."""


@dataclass(frozen=True, slots=True)
class Packed:
    """A chunk span as packed, with its prefix and whether it overflows the budget."""

    start: int
    """Offset of the first character."""

    end: int
    """Offset one past the last character."""

    prefix: str = ""
    """Text prepended to the span for embedding."""

    oversized: bool = False
    """True when one indivisible piece alone is larger than the budget."""

    size: int = -1
    """Exact size of prefix + span in the budget's unit when the packer measured it, else -1."""


def tile(spans: list[Span] | tuple[Span, ...], start: int, end: int) -> list[Span]:
    """Extend sorted, non-overlapping spans so they cover ``[start, end)`` exactly; the text
    between two spans joins the span after it. Spans outside the range are ignored."""
    text_spans = [(max(a, start), min(b, end)) for a, b in spans if a < end and b > start]
    return _tile(text_spans, start, end, None)


def tile_text(text: str, spans: list[Span] | tuple[Span, ...], start: int, end: int) -> list[Span]:
    """``tile`` that sends the whitespace after each span back to it and keeps anything else
    between spans (a list or quote marker) as a piece of its own."""
    text_spans = [(max(a, start), min(b, end)) for a, b in spans if a < end and b > start]
    return _tile(text_spans, start, end, text)


def _tile(spans: list[Span], start: int, end: int, text: str | None) -> list[Span]:
    out: list[list[int]] = []
    pos = start
    for a, b in spans:
        if b <= pos:
            continue
        a = max(a, pos)
        if a > pos:
            split = pos
            if text is not None and out:
                gap = text[pos:a]
                split = pos + len(gap) - len(gap.lstrip())
                out[-1][1] = split
            if split < a:
                if text is not None:
                    # A list or quote marker stays a piece of its own, so the sentence after it
                    # keeps its own size and is never refined because of the marker.
                    out.append([split, a])
                else:
                    a = split
        out.append([a, b])
        pos = b
    if pos < end:
        if out:
            out[-1][1] = end
        else:
            out.append([start, end])
    if out and out[0][0] > start:
        out[0][0] = start
    return [(a, b) for a, b in out]


def refine(a: int, b: int, budget: int, sizer: Sizer, separators: tuple[str, ...]) -> list[Span]:
    """Cut one over-budget stretch at the coarsest separator that helps, then by size."""
    text = sizer.text
    if sizer.size(a, b) <= budget:
        return [(a, b)]
    content_end = a + len(text[a:b].rstrip())
    if a < content_end < b and sizer.size(a, content_end) <= budget:
        # Only the trailing whitespace overflows: move it, keep the content whole.
        return [(a, content_end)] + refine(content_end, b, budget, sizer, separators)
    for index, sep in enumerate(separators):
        cuts: list[Span] = []
        pos = a
        found = text.find(sep, a, b)
        while found != -1:
            stop = found + len(sep)
            if stop < b:
                cuts.append((pos, stop))
                pos = stop
            found = text.find(sep, stop, b) if stop < b else -1
        if not cuts:
            continue
        cuts.append((pos, b))
        out: list[Span] = []
        for x, y in cuts:
            out += refine(x, y, budget, sizer, separators[index + 1:])
        return out
    out = []
    while a < b:
        c = sizer.cut(a, b, budget)
        out.append((a, c))
        a = c
    return out


def pack(
    pieces: list[Piece],
    budget: int,
    sizer: Sizer,
    *,
    overlap: int = 0,
    prefix_at: Callable[[int], str] | None = None,
    separators: tuple[str, ...] = ("\n", ". ", " "),
) -> list[Packed]:
    """Pack tiling pieces greedily into chunks of at most ``budget`` (prefix included).

    Divisible pieces larger than the room left are refined at separators first; atomic ones
    are emitted whole and marked oversized. With ``overlap``, each new chunk starts with the
    trailing pieces of the previous one that fit in ``overlap``. For token budgets every chunk
    is confirmed with the real tokenizer and shrunk piece by piece if the estimate was short.
    """
    queue = list(pieces)
    out: list[Packed] = []
    prefixes: dict[int, tuple[str, int]] = {}

    def prefix_for(start: int) -> tuple[str, int]:
        if prefix_at is None:
            return "", 0
        if start not in prefixes:
            prefix = prefix_at(start)
            prefixes[start] = (prefix, sizer.exact(prefix) if prefix else 0)
        return prefixes[start]

    text = sizer.text
    i = j = 0  # i: next piece not yet in any chunk; j <= i: first piece of the next chunk
    while i < len(queue):
        first = queue[j]
        prefix, prefix_size = prefix_for(first.start)
        room = max(1, budget - prefix_size)
        if sizer.size(first.start, queue[i].end) > room:
            if j < i:
                j = i  # the carried overlap leaves no room: start fresh
                continue
            piece = queue[i]
            if piece.atomic or piece.end - piece.start <= 1:
                out.append(Packed(piece.start, piece.end, prefix, True))
                i = j = i + 1
                continue
            queue[i:i + 1] = [Piece(x, y) for x, y in refine(piece.start, piece.end, room, sizer, separators)]
            continue
        m = i + 1
        while m < len(queue) and sizer.size(first.start, queue[m].end) <= room:
            m += 1
        excess = -1
        if not sizer.is_chars:
            excess = sizer.exact(prefix + text[first.start:queue[m - 1].end]) - budget
            while excess > 0 and m - 1 > i:
                m -= 1
                excess = sizer.exact(prefix + text[first.start:queue[m - 1].end]) - budget
            if excess > 0:
                if j < i:
                    j = i
                    continue
                piece = queue[i]
                smaller = refine(piece.start, piece.end, max(1, sizer.size(piece.start, piece.end) - excess),
                                 sizer, separators) if not piece.atomic else [(piece.start, piece.end)]
                if len(smaller) > 1:
                    queue[i:i + 1] = [Piece(x, y) for x, y in smaller]
                    continue
                out.append(Packed(piece.start, piece.end, prefix, True))
                i = j = i + 1
                continue
        out.append(Packed(first.start, queue[m - 1].end, prefix, False, budget + excess if excess != -1 else -1))
        chunk_first = j
        i = j = m
        if overlap:
            end = queue[m - 1].end
            while j - 1 > chunk_first and sizer.size(queue[j - 1].start, end) <= overlap:
                j -= 1
    return out
