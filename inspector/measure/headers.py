"""Table rows that keep or lose their header: a row read without its header row is a list
of values with no names.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from ..atoms.analysis import Analysis
from ..model import Chunk, Span


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

    @classmethod
    def total(cls, parts: Iterable["HeaderCarry"]) -> "HeaderCarry":
        """The counts of a corpus from those of its parts (documents, batches or partitions,
        measured apart): every count is a sum over documents. Every engine totals here."""
        total = cls()
        for part in parts:
            total.rows += part.rows
            total.rows_with_header += part.rows_with_header
            total.rows_mid_table += part.rows_mid_table
            total.mid_table_chunks += part.mid_table_chunks
        return total

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
