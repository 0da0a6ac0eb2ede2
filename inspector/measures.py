"""What a split costs, measured from exact spans: survival, sizes, duplication, header carry.

An atom survives when one chunk's span contains it whole. Sizes are judged on what is
embedded (prefix + span); survival and duplication on the span alone.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

from .analysis import Analysis
from .model import ATOM_KINDS, Chunk, Span


class Containment:
    """Answers "does one chunk hold this span whole?" in O(log n) for one document's chunks."""

    __slots__ = ("starts", "reach")

    def __init__(self, chunks: list[Span]) -> None:
        ordered = chunks if all(chunks[i] <= chunks[i + 1] for i in range(len(chunks) - 1)) else sorted(chunks)
        self.starts = [a for a, _ in ordered]
        self.reach = list(accumulate((b for _, b in ordered), max))

    def holds(self, a: int, b: int) -> bool:
        """True when some chunk span contains ``[a, b)``."""
        k = bisect_right(self.starts, a)
        return k > 0 and self.reach[k - 1] >= b


def contained(atoms: tuple[Span, ...] | list[Span], chunks: list[Span]) -> list[bool]:
    """For each atom, whether some chunk span holds it whole (chunks in any order)."""
    if not chunks:
        return [False] * len(atoms)
    index = Containment(chunks)
    return [index.holds(a, b) for a, b in atoms]


def survival(atoms: dict[str, tuple[Span, ...]], chunks: list[Span],
             fits: int | None = None, size=None) -> dict[str, tuple[int, int]]:
    """``kind -> (intact, counted)``; with ``fits``, only atoms whose size is at most ``fits``
    count (``size(a, b)`` measures them, characters by default)."""
    return survival_pair(atoms, chunks, fits, size)[0 if fits is not None else 1]


def survival_pair(atoms: dict[str, tuple[Span, ...]], chunks: list[Span], fits: int | None,
                  size=None) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Survival over atoms that fit (``fits``; all of them when None) and over every atom."""
    index = Containment(chunks) if chunks else None
    fit_out, all_out = {}, {}
    for kind in ATOM_KINDS:
        spans = atoms.get(kind, ())
        flags = [index.holds(a, b) for a, b in spans] if index else [False] * len(spans)
        all_out[kind] = (sum(flags), len(flags))
        if fits is None:
            fit_out[kind] = all_out[kind]
        else:
            measure = size or (lambda a, b: b - a)
            chosen = [flag for flag, (a, b) in zip(flags, spans) if measure(a, b) <= fits]
            fit_out[kind] = (sum(chosen), len(chosen))
    return fit_out, all_out


@dataclass(slots=True)
class HeaderCarry:
    """Table rows and whether the chunk holding them also holds (or is prefixed with) their header."""

    rows: int = 0
    """Rows that lie whole inside some chunk (each counted once per chunk holding it)."""

    rows_with_header: int = 0
    """Of those, rows whose chunk also holds their table's header row."""

    rows_mid_table: int = 0
    """Rows in chunks that begin inside a table after its header and carry no header."""

    mid_table_chunks: int = 0
    """Chunks that begin inside a table and carry no header."""

    def add(self, other: "HeaderCarry") -> None:
        """Accumulate another document's counts."""
        self.rows += other.rows
        self.rows_with_header += other.rows_with_header
        self.rows_mid_table += other.rows_mid_table
        self.mid_table_chunks += other.mid_table_chunks

    def as_dict(self) -> dict[str, int]:
        """Plain counts."""
        return {"rows": self.rows, "rows_with_header": self.rows_with_header,
                "rows_mid_table": self.rows_mid_table, "mid_table_chunks": self.mid_table_chunks}


def header_carry(text: str, analysis: Analysis, chunks: list[Chunk]) -> HeaderCarry:
    """The article's header-carry count, generalised to prefixes.

    A chunk's table is the first table its span starts in or overlaps from the left; the rows
    held whole by the chunk count as carried when that table's header line lies in the span,
    or (outside seed mode) when the chunk's prefix repeats it.
    """
    return header_carry_spans(text, analysis, [(c.start, c.end) for c in chunks], [c.prefix for c in chunks])


def header_carry_spans(text: str, analysis: Analysis, spans: list[Span],
                       prefixes: list[str] | tuple[str, ...] | None) -> HeaderCarry:
    """``header_carry`` for chunk spans and their prefixes (None: no chunk has one)."""
    rows = analysis.atoms["row"]
    row_starts = [a for a, _ in rows]
    row_ends = [b for _, b in rows]
    tables = analysis.tables
    out = HeaderCarry()
    for j, (a, b) in enumerate(spans):
        held = max(0, bisect_right(row_ends, b) - bisect_left(row_starts, a))
        out.rows += held
        table = next((t for t in tables if t.start <= a < t.end or a <= t.start < b), None)
        if table is None:
            continue
        h0, h1 = table.header
        if a <= h0 and h1 <= b:
            out.rows_with_header += held
        elif h0 < a:
            prefix = prefixes[j] if prefixes is not None else ""
            if analysis.mode != "seed" and prefix and text[h0:h1].rstrip("\n") in prefix:
                out.rows_with_header += held
            else:
                out.mid_table_chunks += 1
                out.rows_mid_table += held
    return out


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile, as the article computes it (0 for no values)."""
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


@dataclass(frozen=True, slots=True)
class SizeStats:
    """Distribution of chunk sizes in one unit."""

    count: int
    """Number of chunks."""

    mean: float
    """Mean size."""

    p50: float
    """Median size."""

    p90: float
    """90th percentile."""

    p99: float
    """99th percentile."""

    max: int
    """Largest size."""

    @classmethod
    def of(cls, sizes: list[int]) -> "SizeStats":
        """Summarise a list of sizes."""
        if not sizes:
            return cls(0, 0.0, 0.0, 0.0, 0.0, 0)
        return cls(len(sizes), sum(sizes) / len(sizes), percentile(sizes, 50),
                   percentile(sizes, 90), percentile(sizes, 99), max(sizes))


@dataclass(frozen=True, slots=True)
class CapReport:
    """How chunk token counts sit against an embedder's input cap."""

    cap: int
    """The embedder's limit in tokens (special tokens included)."""

    runt_tokens: int
    """Chunks under this many tokens are runts."""

    runt_ratio: float
    """Fraction of chunks that are runts."""

    over_cap: tuple[int, ...] = field(default=())
    """Positions (in the list given) of chunks an embedder would truncate."""


def cap_report(token_counts: list[int], cap: int, *, runt_tokens: int = 32, overhead: int = 0) -> CapReport:
    """Runts and over-cap chunks from token counts (``overhead``: special tokens per input)."""
    n = len(token_counts)
    runts = sum(1 for t in token_counts if t < runt_tokens)
    over = tuple(i for i, t in enumerate(token_counts) if t + overhead > cap)
    return CapReport(cap, runt_tokens, runts / n if n else 0.0, over)


@dataclass(frozen=True, slots=True)
class CutAtom:
    """An atom no single chunk holds whole, and the chunks that hold its pieces."""

    kind: str
    """Atom kind (see ``ATOM_KINDS``)."""

    start: int
    """Offset of the atom's first character."""

    end: int
    """Offset one past the atom's last character."""

    chunks: tuple[int, ...]
    """Positions (in the chunk list given) of the chunks overlapping the atom, in order."""


def cut_atoms(atoms: dict[str, tuple[Span, ...]], chunks: list[Span]) -> list[CutAtom]:
    """Every atom that no chunk span contains whole, ordered by start then kind."""
    if not chunks:
        return [CutAtom(kind, a, b, ()) for kind in ATOM_KINDS for a, b in atoms.get(kind, ())]
    index = Containment(chunks)
    order = sorted(range(len(chunks)), key=lambda i: chunks[i])
    starts = [chunks[i][0] for i in order]
    out = []
    for kind in ATOM_KINDS:
        for a, b in atoms.get(kind, ()):
            if index.holds(a, b):
                continue
            stop = bisect_left(starts, b)
            touching = tuple(sorted(i for i in order[:stop] if chunks[i][1] > a))
            out.append(CutAtom(kind, a, b, touching))
    out.sort(key=lambda c: (c.start, ATOM_KINDS.index(c.kind)))
    return out
