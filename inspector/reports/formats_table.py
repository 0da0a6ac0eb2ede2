"""Survival by source format: the same splitters measured over the documents of each format
(markdown, text, and what was converted: PDF, DOCX, PPTX, XLSX, HTML, EPUB), every atom counted."""

from __future__ import annotations

from collections import defaultdict

from ..model import ATOM_KINDS


def format_of(document) -> str:
    """A document's source format: its converter's kind, else ``markdown`` or ``text``."""
    if document.source_format:
        return document.source_format
    return "text" if document.id.lower().endswith(".txt") else "markdown"


def formats_section(workspace, specs) -> list[dict]:
    """One row per (format, splitter): documents, chunks and the share of each atom kind kept whole."""
    groups: dict[str, list[str]] = defaultdict(list)
    for document in workspace.documents:
        groups[format_of(document)].append(document.id)
    rows = []
    for name, ids in sorted(groups.items()):
        part = workspace.subset(ids)
        for spec in specs:
            summary = part.summarize(spec)
            rows.append({"format": name, "documents": len(ids), "splitter": spec.label, "spec": str(spec),
                         "chunks": summary.chunks,
                         "survival": {kind: summary.kept(kind, every=True) for kind in ATOM_KINDS}})
    return rows


def format_formats(rows: list[dict]) -> list[str]:
    lines = ["g. atoms kept whole by source format, every atom counted",
             f"{'format':9s}{'docs':>5s} {'splitter':16s}{'chunks':>7s}"
             + "".join(f"{kind:>7s}" for kind in ATOM_KINDS)]
    for row in rows:
        cells = "".join(f"{'n/a':>7s}" if row["survival"][k] is None else f"{row['survival'][k]:7.1%}"
                        for k in ATOM_KINDS)
        lines.append(f"{row['format']:9s}{row['documents']:5d} {row['splitter']:16s}{row['chunks']:7d}{cells}")
    return lines
