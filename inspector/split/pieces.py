"""The pieces the kinds cut a text into before packing (``split.job`` hands them out).

The article's splitters (``seed`` mode) cut into its paragraphs, sentences, recursive
separators or structured pieces (``article_structured_pieces``) and pack them with its own
packer, quirks included. The markdown-aware ones cut into pieces that tile the text (sentence
units, atoms whole, an over-budget table between rows, an over-budget fence between lines) and
pack them with ``packing.pack``, which carries overlap, pays for prefixes and checks token
budgets. ``fixed_windows`` needs no pieces.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import chain

from ..atoms.analysis import Analysis
from ..model import Span
from ..spec import SplitterSpec
from .packing import Packed, Piece, Sizer, tile_text
from .piece_ends import fitting_part

# -- cuts by separator, and the article's structured pieces ---------------------------------

def split_recursive(text: str, a: int, b: int, separators: tuple[str, ...], budget: int,
                    sizer: Sizer) -> list[Span]:
    """Cut ``[a, b)`` after each occurrence of the first separator, recursing into pieces
    still over budget with the remaining separators; separators stay with the piece before."""
    if sizer.size(a, b) <= budget or not separators:
        return [(a, b)]
    sep, rest = separators[0], separators[1:]
    cuts: list[Span] = []
    pos = a
    found = text.find(sep, a, b)
    while found != -1:
        stop = found + len(sep)
        cuts.append((pos, stop))
        pos = stop
        found = text.find(sep, stop, b)
    if pos < b:
        cuts.append((pos, b))
    out: list[Span] = []
    for x, y in cuts:
        out += split_recursive(text, x, y, rest, budget, sizer)
    return out


def article_structured_pieces(text: str, analysis: Analysis) -> list[Span]:
    """Fences and tables whole, sentences (and the gaps between them) elsewhere."""
    hard = sorted(list(analysis.atoms["code"]) + list(analysis.atoms["table"]))
    sentences = analysis.sentences
    pieces: list[Span] = []
    pos = 0
    for a, b in hard:
        if a > pos:
            pieces += _gap_pieces(sentences, pos, a)
        pieces.append((a, min(b, len(text))))
        pos = max(pos, b)
    if pos < len(text):
        pieces += _gap_pieces(sentences, pos, len(text))
    return pieces


def _gap_pieces(sentences: tuple[Span, ...], a: int, b: int) -> list[Span]:
    """Sentences lying whole inside ``[a, b]`` and the stretches between them, in order."""
    first = bisect_left(sentences, (a, -1))
    stop = bisect_left(sentences, (b, -1), first)  # sentences starting before b
    if stop > first and sentences[stop - 1][1] > b:
        stop -= 1  # sentences do not overlap, so only the last can run past b
    bounds = [a, *chain.from_iterable(sentences[first:stop]), b]
    return [(x, y) for x, y in zip(bounds, bounds[1:]) if y > x]  # sentences are never empty


# -- fixed windows --------------------------------------------------------------------------

def fixed_windows(text: str, spec: SplitterSpec, sizer: Sizer, prefix_at, seed: bool) -> list[Packed]:
    """Windows of the budget (prefix included), each starting ``budget - overlap`` after the one before."""
    n = len(text)
    if sizer.is_chars and prefix_at is None:
        step = max(1, spec.budget - spec.overlap)
        if seed:
            return [Packed(i, min(i + spec.budget, n)) for i in range(0, n, step)]
    out: list[Packed] = []
    pos = 0
    while pos < n:
        prefix = prefix_at(pos) if prefix_at else ""
        room = max(1, spec.budget - (sizer.exact(prefix) if prefix else 0))
        end = sizer.cut(pos, n, room)
        size = -1
        while not sizer.is_chars:
            size = sizer.exact(prefix + text[pos:end])
            if size <= spec.budget or end - pos <= 1:
                break
            shorter = sizer.cut(pos, n, max(1, sizer.size(pos, end) - 1))
            end = shorter if shorter < end else end - 1
        out.append(Packed(pos, end, prefix, size=size))
        if end >= n:
            break
        step = max(1, room - spec.overlap)
        # Never past this chunk's end: a window shortened to fit its real token count (a
        # character that is several tokens) would otherwise leave a gap before the next.
        nxt = min(sizer.cut(pos, n, step), end)
        pos = nxt if nxt > pos else pos + 1
    return out


# -- the default, markdown-aware pieces ----------------------------------------------------

def markdown_units(analysis: Analysis) -> list[Span]:
    """Sentences where a block has prose, the whole block where it has none."""
    sentences = analysis.sentences
    out: list[Span] = []
    k = 0
    for a, b in analysis.paragraphs:
        inside = []
        while k < len(sentences) and sentences[k][0] < b:
            if sentences[k][0] >= a:
                inside.append(sentences[k])
            k += 1
        out += inside or [(a, b)]
    return out


def structured_pieces(text, spec, analysis, sizer, prefix_at, units: list[Span] | None = None) -> list[Piece]:
    """Code blocks and tables as atomic pieces (an over-budget one cut between lines or rows, its
    header repeated by the packer), ``units`` between them (default: ``markdown_units``)."""
    tables = {t.start: t for t in analysis.tables}
    hard = analysis.blocks
    units = markdown_units(analysis) if units is None else units
    pieces: list[Piece] = []
    pos = 0
    for a, b in hard:
        if a < pos:
            continue
        if a > pos:
            pieces += [Piece(x, y) for x, y in tile_text(text, units, pos, a)]
        prefix = prefix_at(a) if prefix_at else ""
        room = spec.budget - (sizer.exact(prefix) if prefix else 0)
        trimmed = None if sizer.size(a, b) <= room else fitting_part(text, a, b, sizer.size, room)
        if trimmed is None:
            pieces.append(Piece(a, b, atomic=True))
        elif trimmed:
            pieces += [Piece(x, y, atomic=True) for x, y in zip((a, *trimmed), (*trimmed, b))]
        elif a in tables:
            table = tables[a]
            pieces.append(Piece(table.header[0], table.header[1], atomic=True))
            pieces += [Piece(x, y, atomic=True) for x, y in tile_text(text, table.rows, table.header[1], b)]
        else:
            pieces += [Piece(x, y, atomic=True) for x, y in _lines(text, a, b)]
        pos = b
    if pos < len(text):
        pieces += [Piece(x, y) for x, y in tile_text(text, units, pos, len(text))]
    return pieces


def _lines(text: str, a: int, b: int) -> list[Span]:
    out: list[Span] = []
    while a < b:
        nl = text.find("\n", a, b)
        stop = b if nl == -1 else nl + 1
        out.append((a, stop))
        a = stop
    return out


def heading_sections(text: str, analysis: Analysis) -> list[Span]:
    """The heading splitter's sections: each heading to the next, the text before the first
    heading its own section unless it is blank."""
    starts = sorted({h.start for h in analysis.headings if h.start > 0})
    if starts and not text[:starts[0]].strip():
        starts = starts[1:]  # blank lines before the first heading belong to its section
    bounds = [0] + starts + [len(text)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if a < b]
