"""The general path of every built-in splitter: cut the text into pieces, then pack them.

The article's splitters (``seed`` mode) cut into its paragraphs, sentences, recursive
separators or structured pieces and pack them with its own packer, quirks included. The
markdown-aware ones cut into pieces that tile the text (sentence units, atoms whole, an
over-budget table between rows, an over-budget fence between lines) and pack them with
``packing.pack``, which carries overlap, pays for prefixes and checks token budgets.
``splitters`` takes a faster road where it can (``packing_fast``) and comes here otherwise.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import chain

from ..atoms.analysis import Analysis
from ..model import Span
from ..spec import SplitterSpec
from .address import Address
from .packing import Packed, Piece, Sizer, pack, tile_text
from .packing_seed import SeedPieces, pack_seed
from .piece_ends import fitting_part
from .prefixes import prefixer


def split_general(text: str, spec: SplitterSpec, analysis: Analysis, sizer: Sizer,
                  address: Address | None = None) -> list[Packed]:
    """Any built-in splitter's chunks the general way: pieces built and packed one by one."""
    seed = analysis.mode == "seed"
    prefix_at = prefixer(text, spec, analysis, seed, sizer, address)
    if spec.kind == "fixed":
        return _fixed(text, spec, sizer, prefix_at, seed)
    if seed and not spec.overlap:
        spans = seed_spans(text, spec, analysis, sizer)
        if spans is not None:
            return [Packed(a, b, prefix_at(a) if prefix_at else "") for a, b in spans]
    if not text:
        return []
    if spec.kind == "heading":
        return _heading(text, spec, analysis, sizer, prefix_at)
    pieces = markdown_pieces(text, spec, analysis, sizer, prefix_at)
    return pack(pieces, spec.budget, sizer, overlap=spec.overlap, prefix_at=prefix_at,
                separators=spec.separators[1:] or spec.separators)


# -- the article's splitters ----------------------------------------------------------------

def seed_spans(text: str, spec: SplitterSpec, analysis: Analysis, sizer: Sizer) -> list[Span] | None:
    budget = spec.budget
    if spec.kind == "paragraph":
        return pack_seed(_seed_pieces(analysis, "paragraph", lambda: analysis.paragraphs), budget, sizer)
    if spec.kind == "sentence":
        return pack_seed(_seed_pieces(analysis, "sentence", lambda: analysis.sentences), budget, sizer)
    if spec.kind == "recursive":
        return pack_seed(split_recursive(text, 0, len(text), spec.separators, budget, sizer), budget, sizer)
    if spec.kind == "structured":
        pieces = _seed_pieces(analysis, "structured", lambda: _seed_structured_pieces(text, analysis))
        return pack_seed(pieces, budget, sizer)
    return None


def _seed_pieces(analysis: Analysis, kind: str, make) -> SeedPieces:
    """A splitter's pieces, made once per document and reused for every budget."""
    key = f"seed_pieces:{kind}"
    found = analysis.memo.get(key)
    if found is None:
        found = analysis.memo[key] = SeedPieces(make())
    return found


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


def _seed_structured_pieces(text: str, analysis: Analysis) -> list[Span]:
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

def _fixed(text, spec, sizer, prefix_at, seed) -> list[Packed]:
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


def markdown_pieces(text, spec, analysis, sizer, prefix_at) -> list[Piece]:
    n = len(text)
    if spec.kind == "paragraph":
        return [Piece(a, b) for a, b in tile_text(text, analysis.paragraphs, 0, n)]
    if spec.kind == "sentence":
        return [Piece(a, b) for a, b in tile_text(text, markdown_units(analysis), 0, n)]
    if spec.kind == "recursive":
        return [Piece(a, b) for a, b in split_recursive(text, 0, n, spec.separators, spec.budget, sizer)]
    if spec.kind == "structured":
        return structured_pieces(text, spec, analysis, sizer, prefix_at)
    raise ValueError(f"no pieces for splitter kind {spec.kind!r}")


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


def _heading(text, spec, analysis, sizer, prefix_at) -> list[Packed]:
    out: list[Packed] = []
    for a, b in heading_sections(text, analysis):
        pieces = [Piece(x, y) for x, y in split_recursive(text, a, b, spec.separators, spec.budget, sizer)]
        out += pack(pieces, spec.budget, sizer, overlap=spec.overlap, prefix_at=prefix_at,
                    separators=spec.separators[1:] or spec.separators)
    return out
