"""The splitters: each turns a document into chunk spans under a ``SplitterSpec``.

Every splitter returns offsets, never strings. In ``seed`` mode the article's splitters are
reproduced exactly (including that its paragraph and sentence packers leave the whitespace
between chunks out of every chunk); in ``markdown`` mode chunks tile the text, overlap is
carried at piece boundaries, prefixes are paid for out of the budget, and ``structured``
splits an over-budget table between rows (repeating its header) or a fence between lines.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import chain, repeat

from .analysis import Analysis
from .atoms import analyze
from .lengths import Length, get_length
from .model import Chunk, Document, Span, make_chunks
from .packing import Measure, Packed, Piece, SeedPieces, pack, pack_seed, tile_text
from .packing_fast import Columns, packed_columns
from .errors import SpecError
from .spec import SplitterSpec, parse_spec


@dataclass(frozen=True, slots=True)
class SplitResult:
    """The chunks of one document under one configuration."""

    doc_id: str
    """The document split."""

    spec: SplitterSpec
    """The configuration used."""

    mode: str
    """Atom mode the structure came from (``markdown`` or ``seed``)."""

    chunks: tuple[Chunk, ...]
    """Chunks in document order."""

    oversized: tuple[int, ...] = ()
    """Indexes of chunks over the budget because one indivisible piece (a row, a code line) is."""

    problems: tuple[str, ...] = ()
    """For an ``ext-`` library splitter: each chunk whose own offsets did not hold its text
    and was placed again by its text (reported, never silently trusted)."""

    @property
    def spans(self) -> list[Span]:
        """``(start, end)`` of every chunk."""
        return [(c.start, c.end) for c in self.chunks]


def split_document(
    document: Document,
    spec: SplitterSpec | str,
    analysis: Analysis | None = None,
    length: Length | None = None,
    *,
    mode: str = "markdown",
) -> SplitResult:
    """Split one document. Pass a precomputed ``analysis`` to reuse its atoms."""
    spec = parse_spec(spec)
    if spec.is_imported:
        raise SpecError(f"{spec} names imported chunks, which are not split: register the chunk set with a "
                        "Workspace (Workspace.add_chunk_set) and use Workspace.split")
    length = length or get_length(spec.unit)
    if spec.kind.startswith("ext-"):
        return _split_with_library(document, spec, length, analysis.mode if analysis else mode)
    analysis = analysis or analyze(document.text, mode)
    columns, oversized = split_columns(document.text, spec, analysis, length)
    tag = str(spec) if analysis.mode == "markdown" else f"{spec}@seed"
    chunks = make_chunks(document.id, columns.starts, columns.ends, columns.prefixes, tag,
                         analysis.heading_index.paths_at(columns.starts))
    return SplitResult(document.id, spec, analysis.mode, chunks, tuple(oversized))


def chunk_spans(text: str, spec: SplitterSpec, analysis: Analysis, length: Length
                ) -> tuple[list[Span], list[str] | None, int]:
    """What ``split_document`` puts in its chunks, without building them: the spans, their
    prefixes (None when no chunk has one) and how many chunks are oversized.

    Measuring many configurations over a corpus needs only these; the article's character
    splitters go straight from pieces to spans.
    """
    if analysis.mode == "seed" and length.unit == "characters" and not (spec.prefixes_path or spec.table_header):
        spans = _seed_char_spans(text, spec, analysis)
        if spans is not None:
            return spans, None, sum(1 for a, b in spans if b - a > spec.budget)
    columns, oversized = split_columns(text, spec, analysis, length)
    prefixes = columns.prefixes
    return (list(zip(columns.starts, columns.ends)), prefixes if prefixes and any(prefixes) else None,
            len(oversized))


def _seed_char_spans(text: str, spec: SplitterSpec, analysis: Analysis) -> list[Span] | None:
    """``split_spans``'s own result for an article splitter in characters without prefixes."""
    if spec.kind == "fixed":
        step = max(1, spec.budget - spec.overlap)
        n = len(text)
        return [(i, min(i + spec.budget, n)) for i in range(0, n, step)]
    if spec.overlap:
        return None
    return _seed_spans(text, spec, analysis, Measure(text))


def _split_with_library(document: Document, spec: SplitterSpec, length: Length, mode: str) -> SplitResult:
    """An installed library's splitter (an ``ext-`` adapter), its offsets checked against the text."""
    from .adapters import split_with_adapter  # optional libraries load only when asked for

    chunks = split_with_adapter(spec.kind, document, spec.budget, spec.overlap, unit=length)
    packed = [Packed(c.start, c.end, c.prefix) for c in chunks]
    made = tuple(Chunk(document.id, i, c.start, c.end, c.prefix, str(spec), c.heading_path)
                 for i, c in enumerate(chunks))
    return SplitResult(document.id, spec, mode, made, tuple(_oversized(document.text, packed, spec.budget, length)),
                       tuple(f"{p.chunk_id}: {p.message}" for p in chunks.problems))


def _oversized(text: str, packed: list[Packed], budget: int, length: Length) -> list[int]:
    """Chunks whose embedded text is over budget (only an indivisible piece can cause it)."""
    if length.unit == "characters":
        return [i for i, p in enumerate(packed) if len(p.prefix) + p.end - p.start > budget]
    unknown = [i for i, p in enumerate(packed) if p.size < 0]
    sizes = [p.size for p in packed]
    for i, size in zip(unknown, length.count_many([packed[i].prefix + text[packed[i].start:packed[i].end]
                                                  for i in unknown])):
        sizes[i] = size
    return [i for i, size in enumerate(sizes) if size > budget]


def split_columns(text: str, spec: SplitterSpec, analysis: Analysis, length: Length
                  ) -> tuple[Columns, list[int]]:
    """Chunk spans and prefixes for one text as columns, with the indexes of the oversized
    chunks; the engine behind ``split_document``."""
    measure = Measure(text, length)
    columns = _fast_columns(text, spec, analysis, measure)
    if columns is not None:
        budget = spec.budget
        if columns.prefixes is None:
            oversized = [i for i, (a, b) in enumerate(zip(columns.starts, columns.ends)) if b - a > budget]
        else:
            oversized = [i for i, (a, b, p) in enumerate(zip(columns.starts, columns.ends, columns.prefixes))
                         if len(p) + b - a > budget]
        return columns, oversized
    packed = _split_packed(text, spec, analysis, measure)
    prefixes = [p.prefix for p in packed]
    columns = Columns([p.start for p in packed], [p.end for p in packed], prefixes if any(prefixes) else None)
    return columns, _oversized(text, packed, spec.budget, length)


def split_spans(text: str, spec: SplitterSpec, analysis: Analysis, length: Length) -> list[Packed]:
    """Chunk spans (with prefixes) for one text, as ``Packed`` values."""
    measure = Measure(text, length)
    columns = _fast_columns(text, spec, analysis, measure)
    if columns is None:
        return _split_packed(text, spec, analysis, measure)
    # The packer flags a chunk oversized exactly when one piece alone overfills its room.
    return [Packed(a, b, p, b - a > max(1, spec.budget - len(p)))
            for a, b, p in zip(columns.starts, columns.ends, columns.prefixes or repeat(""))]


_FAST_KINDS = frozenset({"structured", "paragraph", "sentence"})


def _fast_columns(text: str, spec: SplitterSpec, analysis: Analysis, measure: Measure) -> Columns | None:
    """``packing_fast``'s result where it applies: markdown structured, paragraph and sentence
    splits under a character budget without overlap."""
    if spec.kind not in _FAST_KINDS or spec.overlap or not measure.is_chars or analysis.mode != "markdown":
        return None
    return packed_columns(text, spec, analysis, measure, _prefixer(text, spec, analysis, False, measure))


def _split_packed(text: str, spec: SplitterSpec, analysis: Analysis, measure: Measure) -> list[Packed]:
    """Every splitter's general path: pieces built and packed one by one."""
    seed = analysis.mode == "seed"
    prefix_at = _prefixer(text, spec, analysis, seed, measure)
    if spec.kind == "fixed":
        return _fixed(text, spec, measure, prefix_at, seed)
    if seed and not spec.overlap:
        spans = _seed_spans(text, spec, analysis, measure)
        if spans is not None:
            return [Packed(a, b, prefix_at(a) if prefix_at else "") for a, b in spans]
    if not text:
        return []
    if spec.kind == "heading":
        return _heading(text, spec, analysis, measure, prefix_at)
    pieces = _pieces(text, spec, analysis, measure, prefix_at)
    return pack(pieces, spec.budget, measure, overlap=spec.overlap, prefix_at=prefix_at,
                separators=spec.separators[1:] or spec.separators)


# -- the article's splitters ----------------------------------------------------------------

def _seed_spans(text: str, spec: SplitterSpec, analysis: Analysis, measure: Measure) -> list[Span] | None:
    budget = spec.budget
    if spec.kind == "paragraph":
        return pack_seed(_seed_pieces(analysis, "paragraph", lambda: analysis.paragraphs), budget, measure)
    if spec.kind == "sentence":
        return pack_seed(_seed_pieces(analysis, "sentence", lambda: analysis.sentences), budget, measure)
    if spec.kind == "recursive":
        return pack_seed(split_recursive(text, 0, len(text), spec.separators, budget, measure), budget, measure)
    if spec.kind == "structured":
        pieces = _seed_pieces(analysis, "structured", lambda: _seed_structured_pieces(text, analysis))
        return pack_seed(pieces, budget, measure)
    return None


def _seed_pieces(analysis: Analysis, kind: str, make) -> SeedPieces:
    """A splitter's pieces, made once per document and reused for every budget."""
    key = f"seed_pieces:{kind}"
    found = analysis.memo.get(key)
    if found is None:
        found = analysis.memo[key] = SeedPieces(make())
    return found


def split_recursive(text: str, a: int, b: int, separators: tuple[str, ...], budget: int,
                    measure: Measure) -> list[Span]:
    """Cut ``[a, b)`` after each occurrence of the first separator, recursing into pieces
    still over budget with the remaining separators; separators stay with the piece before."""
    if measure.size(a, b) <= budget or not separators:
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
        out += split_recursive(text, x, y, rest, budget, measure)
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

def _fixed(text, spec, measure, prefix_at, seed) -> list[Packed]:
    n = len(text)
    if measure.is_chars and prefix_at is None:
        step = max(1, spec.budget - spec.overlap)
        if seed:
            return [Packed(i, min(i + spec.budget, n)) for i in range(0, n, step)]
    out: list[Packed] = []
    pos = 0
    while pos < n:
        prefix = prefix_at(pos) if prefix_at else ""
        room = max(1, spec.budget - (measure.exact(prefix) if prefix else 0))
        end = measure.cut(pos, n, room)
        size = -1
        while not measure.is_chars:
            size = measure.exact(prefix + text[pos:end])
            if size <= spec.budget or end - pos <= 1:
                break
            shorter = measure.cut(pos, n, max(1, measure.size(pos, end) - 1))
            end = shorter if shorter < end else end - 1
        out.append(Packed(pos, end, prefix, size=size))
        if end >= n:
            break
        step = max(1, room - spec.overlap)
        nxt = measure.cut(pos, n, step)
        pos = nxt if nxt > pos else pos + 1
    return out


# -- the default, markdown-aware pieces ----------------------------------------------------

def _units(analysis: Analysis) -> list[Span]:
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


def _pieces(text, spec, analysis, measure, prefix_at) -> list[Piece]:
    n = len(text)
    if spec.kind == "paragraph":
        return [Piece(a, b) for a, b in tile_text(text, analysis.paragraphs, 0, n)]
    if spec.kind == "sentence":
        return [Piece(a, b) for a, b in tile_text(text, _units(analysis), 0, n)]
    if spec.kind == "recursive":
        return [Piece(a, b) for a, b in split_recursive(text, 0, n, spec.separators, spec.budget, measure)]
    if spec.kind == "structured":
        return _structured_pieces(text, spec, analysis, measure, prefix_at)
    raise ValueError(f"no pieces for splitter kind {spec.kind!r}")


def _structured_pieces(text, spec, analysis, measure, prefix_at) -> list[Piece]:
    tables = {t.start: t for t in analysis.tables}
    hard = sorted(set(analysis.atoms["code"]) | set(analysis.atoms["table"]))
    units = _units(analysis)
    pieces: list[Piece] = []
    pos = 0
    for a, b in hard:
        if a < pos:
            continue
        if a > pos:
            pieces += [Piece(x, y) for x, y in tile_text(text, units, pos, a)]
        prefix = prefix_at(a) if prefix_at else ""
        room = spec.budget - (measure.exact(prefix) if prefix else 0)
        if measure.size(a, b) <= room:
            pieces.append(Piece(a, b, atomic=True))
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


def _heading(text, spec, analysis, measure, prefix_at) -> list[Packed]:
    starts = sorted({h.start for h in analysis.headings if h.start > 0})
    if starts and not text[:starts[0]].strip():
        starts = starts[1:]  # blank lines before the first heading belong to its section
    bounds = [0] + starts + [len(text)]
    out: list[Packed] = []
    for a, b in zip(bounds, bounds[1:]):
        if a >= b:
            continue
        pieces = [Piece(x, y) for x, y in split_recursive(text, a, b, spec.separators, spec.budget, measure)]
        out += pack(pieces, spec.budget, measure, overlap=spec.overlap, prefix_at=prefix_at,
                    separators=spec.separators[1:] or spec.separators)
    return out


# -- prefixes -------------------------------------------------------------------------------

def _prefixer(text: str, spec: SplitterSpec, analysis: Analysis, seed: bool, measure: Measure):
    """A function from a chunk's start offset to its prefix, or None when nothing is added.

    A heading path may use at most half the budget: outer headings are dropped first, so the
    innermost title (the most specific address) is the last to go.
    """
    with_path = spec.prefixes_path
    with_header = spec.table_header if seed else spec.repeats_header
    if not with_path and not with_header:
        return None
    tables = analysis.tables
    if not with_path and not tables:
        return None  # only table headers would be added, and there are no tables
    paths = analysis.heading_index
    table_starts = [t.start for t in tables]
    if not with_path:
        return _header_prefixer(text, tables, table_starts)

    def prefix_at(start: int) -> str:
        parts = []
        if with_path:
            path = paths.ancestors(start)
            while path and measure.exact(" > ".join(path) + "\n") > spec.budget // 2:
                path = path[1:]
            if path:
                parts.append(" > ".join(path) + "\n")
        if with_header:
            k = bisect_right(table_starts, start) - 1
            if k >= 0 and tables[k].header[1] <= start < tables[k].end:
                header = text[tables[k].header[0]:tables[k].header[1]]
                parts.append(header if header.endswith("\n") else header + "\n")
        return "".join(parts)

    return prefix_at


def _header_prefixer(text: str, tables, table_starts: list[int]):
    """``_prefixer``'s function when only table headers are added (a chunk's most common case):
    the header rows sliced once, each lookup one bisection."""
    body_starts = [t.header[1] for t in tables]
    table_ends = [t.end for t in tables]
    headers = []
    for table in tables:
        header = text[table.header[0]:table.header[1]]
        headers.append(header if header.endswith("\n") else header + "\n")

    def header_at(start: int) -> str:
        k = bisect_right(table_starts, start) - 1
        if k >= 0 and body_starts[k] <= start < table_ends[k]:
            return headers[k]
        return ""

    return header_at
