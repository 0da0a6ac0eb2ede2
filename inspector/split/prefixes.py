"""Prefixes: the text a splitter puts before a chunk for embedding, looked up by chunk start.

A chunk that starts inside a table body gets the table's header rows again, so its rows keep
their column names; with ``+path`` it also gets the path of headings above it. The function is
made once per document and asked once per chunk, so lookups are bisections over tables built
in advance.
"""

from __future__ import annotations

from bisect import bisect_right

from ..atoms.analysis import Analysis
from ..spec import SplitterSpec
from .address import Address
from .packing import Sizer


def prefixer(text: str, spec: SplitterSpec, analysis: Analysis, seed: bool, sizer: Sizer,
             address: Address | None = None):
    """A function from a chunk's start offset to its prefix, or None when nothing is added.

    A heading path (or an address stamp, which holds it) may use at most half the budget:
    outer headings are dropped first, so the innermost title (the most specific address) is
    the last to go.
    """
    if spec.address:
        return _stamper(text, spec, analysis, seed, sizer, address or Address())
    with_path = spec.prefixes_path
    with_header = spec.repeats_header_in("seed" if seed else "markdown")
    if not with_path and not with_header:
        return None
    tables = analysis.tables
    if not with_path and not tables:
        return None  # only table headers would be added, and there are no tables
    table_starts = [t.start for t in tables]
    if not with_path:
        return header_prefixer(text, tables, table_starts)
    paths = analysis.heading_index

    def prefix_at(start: int) -> str:
        parts = []
        if with_path:
            path = paths.ancestors(start)
            while path and sizer.exact(" > ".join(path) + "\n") > spec.budget // 2:
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


def _stamper(text: str, spec: SplitterSpec, analysis: Analysis, seed: bool, sizer: Sizer, address: Address):
    """``prefixer``'s function with an address stamp: the stamp, then a repeated table header."""
    header_at = None
    if (spec.repeats_header_in("seed" if seed else "markdown")) and analysis.tables:
        header_at = header_prefixer(text, analysis.tables, [t.start for t in analysis.tables])
    paths = analysis.heading_index
    room = spec.budget // 2
    fits = lambda stamp: sizer.exact(stamp + "\n") <= room
    stamps: dict[tuple[str, ...], str] = {}

    def prefix_at(start: int) -> str:
        path = tuple(paths.ancestors(start))
        stamp = stamps.get(path)
        if stamp is None:
            stamp = stamps[path] = address.fitted(path, spec.stamp, fits)
        return (stamp + "\n" if stamp else "") + (header_at(start) if header_at else "")

    return prefix_at


def header_prefixer(text: str, tables, table_starts: list[int]):
    """``prefixer``'s function when only table headers are added (a chunk's most common case):
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
