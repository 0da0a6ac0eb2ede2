"""Context lines written elsewhere, read from JSON Lines into the store under a name.

One object per line: the line as ``line`` (or ``context``), and the chunk it belongs to either
as ``chunk_id`` (an id from ``export`` of the same splitter) or as ``doc_id`` with ``start``
and ``end`` offsets. Lines are kept under ``name``, so ``+context;llm=NAME`` uses them. A line
that cannot be read or placed is reported with its number and reason; the rest are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..chunks.matching import DocumentMatcher
from ..chunks.records import as_offset, iter_lines, read_source
from ..limits import MAX_CHUNK_FILE_BYTES, read_json
from ..model import Chunk, Document, Span
from .store import ContextStore, document_hash
from .writer import MAX_LINE_CHARS


@dataclass(frozen=True, slots=True)
class ImportedLines:
    """What reading a file of lines did."""

    name: str
    """The name the lines are kept under (``+context;llm=NAME``)."""

    stored: int
    """Lines kept."""

    unmatched: int
    """Lines kept whose span is no chunk of the splitter they were read for."""

    problems: tuple[tuple[int, str], ...]
    """``(line number, reason)`` of each line left out."""


def import_lines(source: str | Path | bytes, documents: Sequence[Document], chunks: Sequence[Chunk],
                 store: ContextStore, name: str) -> ImportedLines:
    """Keep the lines of ``source`` under ``name``; ``chunks`` (the splitter's, in corpus
    order) resolve ``chunk_id`` and tell placed spans from unmatched ones."""
    text, _ = read_source(source, None, "file of context lines", MAX_CHUNK_FILE_BYTES)
    by_id: Mapping[str, Chunk] = {c.id: c for c in chunks}
    spans = {(c.doc_id, c.start, c.end) for c in chunks}
    matcher = DocumentMatcher(list(documents))
    found: dict[str, list[tuple[int, int, str]]] = {}
    texts = {d.id: d.text for d in documents}
    problems: list[tuple[int, str]] = []
    unmatched = 0
    for number, raw in iter_lines(text):
        placed = _placed(raw, by_id, matcher, texts)
        if isinstance(placed, str):
            problems.append((number, placed))
            continue
        doc_id, (start, end), line = placed
        unmatched += (doc_id, start, end) not in spans
        found.setdefault(doc_id, []).append((start, end, line))
    stored = sum(store.put(name, document_hash(texts[doc_id]), rows) for doc_id, rows in found.items())
    return ImportedLines(name, stored, unmatched, tuple(problems))


def _placed(raw: str, by_id: Mapping[str, Chunk], matcher: DocumentMatcher,
            texts: Mapping[str, str]) -> tuple[str, Span, str] | str:
    """``(doc_id, span, line)`` of one record, or why it is left out."""
    try:
        record = read_json(raw)
    except ValueError as exc:
        return f"not valid JSON ({exc})"
    if not isinstance(record, dict):
        return "not a JSON object"
    line = record.get("line", record.get("context"))
    if not isinstance(line, str) or not line.strip():
        return "needs a non-empty 'line' (or 'context') string"
    line = " ".join(line.split())[:MAX_LINE_CHARS]
    chunk_id = record.get("chunk_id")
    if chunk_id is not None:
        chunk = by_id.get(str(chunk_id))
        if chunk is None:
            return f"chunk_id {str(chunk_id)[:40]!r} is no chunk of this splitter (ids come from export)"
        return chunk.doc_id, (chunk.start, chunk.end), line
    doc_ref, start, end = record.get("doc_id"), as_offset(record.get("start")), as_offset(record.get("end"))
    if not isinstance(doc_ref, str) or start is None or end is None:
        return "needs a 'chunk_id', or a 'doc_id' with whole-number 'start' and 'end'"
    document = matcher.resolve(doc_ref)
    if isinstance(document, str):
        return document
    if not 0 <= start < end <= len(texts[document.id]):
        return f"span {start}–{end} is not inside {document.id} ({len(texts[document.id]):,} characters)"
    return document.id, (start, end), line
