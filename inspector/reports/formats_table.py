"""Survival broken down by a property of the documents: their source format (``Document.format``:
markdown, text, and what was converted: PDF, DOCX, PPTX, XLSX, HTML, EPUB) or their language.
The same splitters are measured over the documents of each group (``summaries_by`` of any
workspace: held, streamed or on the cluster), every atom counted."""

from __future__ import annotations

from ..model import ATOM_KINDS
from .decide import bounds_line, percent_cell


def formats_section(workspace, specs) -> list[dict]:
    """One row per (format, splitter): documents, chunks and the share of each atom kind kept whole."""
    return _groups_section(workspace, specs, "format")


def languages_section(workspace, specs) -> list[dict]:
    """One row per (language, splitter), as ``formats_section``."""
    return _groups_section(workspace, specs, "language")


def _groups_section(workspace, specs, key: str) -> list[dict]:
    rows = []
    for name, (documents, summaries) in sorted(workspace.summaries_by(key, specs).items()):
        for spec in specs:
            summary = summaries[str(spec)]
            rows.append({key: name, "documents": documents, "splitter": spec.label, "spec": str(spec),
                         "chunks": summary.chunks,
                         "survival": {kind: summary.kept(kind, every=True) for kind in ATOM_KINDS},
                         # A group of a few documents says little: its bounds say how little.
                         "intervals": {"survival": {
                             kind: summary.interval(kind, every=True).as_dict() if summary.survival_all[kind][1]
                             else None for kind in ATOM_KINDS}}})
    return rows


def format_formats(rows: list[dict], intervals: bool = False) -> list[str]:
    """Table g's lines; with ``intervals``, each rate's 95% interval on the line below."""
    return _format_groups(rows, "format", "g. atoms kept whole by source format, every atom counted", intervals)


def format_languages(rows: list[dict], intervals: bool = False) -> list[str]:
    """Table h's lines, as ``format_formats``."""
    return _format_groups(rows, "language", "h. atoms kept whole by language, every atom counted", intervals)


def _format_groups(rows: list[dict], key: str, title: str, intervals: bool) -> list[str]:
    cell = 12 if intervals else 7
    lines = [title + (", 95% intervals below (documents resampled)" if intervals else ""),
             f"{key:9s}{'docs':>5s} {'splitter':16s}{'chunks':>7s}"
             + "".join(f"{kind:>{cell}s}" for kind in ATOM_KINDS)]
    for row in rows:
        cells = "".join(percent_cell(row["survival"][k], cell)
                        for k in ATOM_KINDS)
        lines.append(f"{row[key]:9s}{row['documents']:5d} {row['splitter']:16s}{row['chunks']:7d}{cells}")
        if intervals and "intervals" in row:
            lines.append(bounds_line([(cell, row["intervals"]["survival"][k]) for k in ATOM_KINDS], 38))
    return lines
