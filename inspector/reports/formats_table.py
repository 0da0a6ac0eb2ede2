"""Survival broken down by a property of the documents: their source format (markdown, text, and
what was converted: PDF, DOCX, PPTX, XLSX, HTML, EPUB) or their language. The same splitters are
measured over the documents of each group, every atom counted."""

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
    return _groups_section(workspace, specs, "format", {d.id: format_of(d) for d in workspace.documents})


def languages_section(workspace, specs) -> list[dict]:
    """One row per (language, splitter), as ``formats_section``."""
    return _groups_section(workspace, specs, "language", workspace.languages())


def _groups_section(workspace, specs, key: str, group_of: dict[str, str]) -> list[dict]:
    groups: dict[str, list[str]] = defaultdict(list)
    for document in workspace.documents:
        groups[group_of[document.id]].append(document.id)
    rows = []
    for name, ids in sorted(groups.items()):
        part = workspace.subset(ids)
        for spec in specs:
            summary = part.summarize(spec)
            rows.append({key: name, "documents": len(ids), "splitter": spec.label, "spec": str(spec),
                         "chunks": summary.chunks,
                         "survival": {kind: summary.kept(kind, every=True) for kind in ATOM_KINDS}})
    return rows


def format_formats(rows: list[dict]) -> list[str]:
    return _format_groups(rows, "format", "g. atoms kept whole by source format, every atom counted")


def format_languages(rows: list[dict]) -> list[str]:
    return _format_groups(rows, "language", "h. atoms kept whole by language, every atom counted")


def _format_groups(rows: list[dict], key: str, title: str) -> list[str]:
    lines = [title, f"{key:9s}{'docs':>5s} {'splitter':16s}{'chunks':>7s}"
             + "".join(f"{kind:>7s}" for kind in ATOM_KINDS)]
    for row in rows:
        cells = "".join(f"{'n/a':>7s}" if row["survival"][k] is None else f"{row['survival'][k]:7.1%}"
                        for k in ATOM_KINDS)
        lines.append(f"{row[key]:9s}{row['documents']:5d} {row['splitter']:16s}{row['chunks']:7d}{cells}")
    return lines
