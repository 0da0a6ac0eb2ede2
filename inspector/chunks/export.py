"""Chunks as JSONL, so a configuration chosen here feeds an indexing pipeline unchanged.

One JSON object per line, in corpus order::

    {"chunk_id": "...", "doc_id": "blog/x.md", "index": 0, "start": 0, "end": 812,
     "prefix": "", "text": "...", "tokens": 190, "token_unit": "o200k",
     "heading_path": ["Title", "Section"], "spec": "structured:800"}

``text`` is the span ``document.text[start:end]``; what an embedder should see is
``prefix + text``, and ``tokens`` counts exactly that, in the spec's own unit when it counts
tokens, else in o200k. The file imports back (``inspector.chunks.importer``) to the same spans.
"""

from __future__ import annotations

import io
import json
from typing import IO, Iterable, Iterator

from ..lengths import CharLength, Length, get_length
from ..model import Chunk, Document
from ..spec import SplitterSpec, parse_spec

#: Field order of every exported record.
FIELDS: tuple[str, ...] = ("chunk_id", "doc_id", "index", "start", "end", "prefix", "text", "tokens",
                           "token_unit", "heading_path", "spec")
#: Added for chunks of documents with pages (converted PDF and PPTX files): first and last page, from 1.
PAGE_FIELDS: tuple[str, ...] = ("page_start", "page_end")


def export_length(spec: SplitterSpec | str | None) -> Length:
    """The unit exported token counts use: the spec's, when it counts tokens, else o200k."""
    spec = parse_spec(spec) if spec is not None else None
    length = get_length(spec.unit) if spec is not None else get_length("o200k")
    return get_length("o200k") if isinstance(length, CharLength) else length


def chunk_records(documents: Iterable[Document], chunks: Iterable[Chunk], length: Length) -> Iterator[dict]:
    """One export record per chunk (chunks of documents not given are refused)."""
    by_id = {d.id: d for d in documents}
    batch: list[Chunk] = []
    for chunk in chunks:
        if chunk.doc_id not in by_id:
            raise KeyError(f"chunk of unknown document {chunk.doc_id!r}")
        batch.append(chunk)
        if len(batch) >= 512:
            yield from _records(batch, by_id, length)
            batch = []
    yield from _records(batch, by_id, length)


def _records(batch: list[Chunk], documents: dict[str, Document], length: Length) -> Iterator[dict]:
    spans = [documents[c.doc_id].text[c.start:c.end] for c in batch]
    counts = length.count_many([c.prefix + s for c, s in zip(batch, spans)])
    for chunk, span, tokens in zip(batch, spans, counts):
        record = {"chunk_id": chunk.id, "doc_id": chunk.doc_id, "index": chunk.index, "start": chunk.start,
                  "end": chunk.end, "prefix": chunk.prefix, "text": span, "tokens": tokens,
                  "token_unit": length.name, "heading_path": list(chunk.heading_path), "spec": chunk.spec}
        pages = documents[chunk.doc_id].page_span(chunk.start, chunk.end)
        if pages is not None:
            record["page_start"], record["page_end"] = pages
        yield record


def write_jsonl(records: Iterable[dict], stream: IO[str]) -> int:
    """Write records one per line (UTF-8 text, not ASCII-escaped); returns how many."""
    n = 0
    for record in records:
        stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        n += 1
    return n


def export_chunks(workspace, spec: SplitterSpec | str, stream: IO[str], *, length: Length | None = None) -> int:
    """Write every chunk of ``workspace`` under ``spec`` (any splitter, or ``imported:ID``) to
    ``stream``; returns the number written."""
    length = length or export_length(spec)
    return write_jsonl(chunk_records(workspace.documents, workspace.chunks(spec), length), stream)


def export_text(workspace, spec: SplitterSpec | str, **options) -> str:
    """The export as one string."""
    buffer = io.StringIO()
    export_chunks(workspace, spec, buffer, **options)
    return buffer.getvalue()
