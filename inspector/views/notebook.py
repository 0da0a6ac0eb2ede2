"""``inspector.show(chunks, text)``: the overlay of one text and its chunks, for a notebook or a
script, with every bisected atom in red.

Chunks come as a splitter spec (``"structured:800"``), as ``(start, end)`` spans, or as what a
pipeline made: plain strings, LangChain ``Document``s, LlamaIndex nodes, Chonkie chunks, or
dicts in any form the chunk import reads. Objects are read through what they declare (a
dataclass, a pydantic model's ``model_dump``), then placed on ``text`` as an import places them:
by their offsets when they agree with the text, else by their text, and every chunk not placed
exactly as given is listed by kind above the overlay.

In Jupyter the result draws itself (``_repr_html_``); ``.save("x.html")`` writes a page whose
content security policy lets no script run, and the text is escaped either way.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..atoms.analysis import Analysis
from ..atoms.detect import analyze
from ..chunks.importer import place_records
from ..chunks.records import ChunkRecord, RecordProblem, to_record
from ..measure.survival import CutAtom
from ..model import Chunk, Document, ImportProblem
from ..spec import SplitterSpec, parse_spec
from ..split.splitters import split_document
from .render import cut_list_html, overlay_cuts, overlay_html, style_html

__all__ = ["Shown", "show"]

#: A saved page may show its own styles and nothing else: no script, no fetch, no frame.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


@runtime_checkable
class PydanticModel(Protocol):
    """What LangChain's ``Document`` and LlamaIndex's nodes are: pydantic models."""

    def model_dump(self) -> dict: ...


@dataclass(frozen=True, slots=True)
class Shown:
    """One text, its chunks and their bisected atoms, ready to draw."""

    document: Document
    chunks: tuple[Chunk, ...]
    analysis: Analysis
    cuts: tuple[CutAtom, ...]
    """The atoms a chunk boundary bisects, in text order."""

    problems: tuple[ImportProblem, ...] = ()
    """Every chunk not placed exactly as given (by kind), and those that could not be read."""

    def summary(self) -> str:
        """One line: chunks, bisected atoms, and what did not place as given."""
        cuts = len(self.cuts)
        line = (f"{len(self.chunks):,} chunk{'s' * (len(self.chunks) != 1)}, "
                f"{cuts:,} bisected atom{'s' * (cuts != 1)}")
        kinds = Counter(p.kind for p in self.problems)
        if kinds:
            line += "; not placed as given: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        return line

    def fragment(self) -> str:
        """The summary, the placement problems, the overlay and the cut list: escaped HTML."""
        problems = "".join(f"<li><b>{escape(p.kind)}</b> {escape(p.chunk_id)}: {escape(p.message)}</li>"
                           for p in self.problems)
        listed = f'<ul class="ci-problems" data-label="">{problems}</ul>' if problems else ""
        cuts = self.cuts
        return (f'<div class="ci-shown">{style_html()}'
                f'<p class="ci-summary" data-label="">{escape(self.summary())}</p>{listed}'
                f'{overlay_html(self.document, self.chunks, self.analysis, style=False)}'
                f'{cut_list_html(self.document, cuts, style=False) if cuts else ""}</div>')

    def page(self) -> str:
        """A whole HTML page (UTF-8; its policy lets no script run and nothing load)."""
        return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
                f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f'<title>{escape(self.document.title or "Chunk Inspector")}</title>'
                f'<style>body{{margin:0;padding:16px 24px;background:#fff}}</style></head>'
                f'<body>{self.fragment()}</body></html>')

    def save(self, path: str | Path) -> Path:
        """Write ``page()`` to ``path``; returns the path."""
        path = Path(path)
        path.write_text(self.page(), encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        return self.fragment()

    def __repr__(self) -> str:
        return f"<Shown {self.summary()}>"


def show(chunks: str | SplitterSpec | Iterable[Any], text: str, *, mode: str = "markdown",
         title: str = "") -> Shown:
    """``text`` with ``chunks`` drawn on it: a splitter spec, ``(start, end)`` spans, strings,
    LangChain documents, LlamaIndex nodes, Chonkie chunks or chunk dicts. ``mode`` is the atom
    detector (``markdown`` or ``seed``)."""
    if not isinstance(text, str):
        raise TypeError(f"show() draws chunks on a text (a str), got {type(text).__name__}")
    document = Document("text", text, title=title)
    analysis = analyze(text, mode)
    if isinstance(chunks, (str, SplitterSpec)):
        return _shown(document, split_document(document, parse_spec(chunks), mode=mode).chunks, analysis)
    records, problems = [], []
    for line, item in enumerate(chunks, 1):
        read = _record(line, item)
        if isinstance(read, RecordProblem):
            problems.append(ImportProblem(line, f"line {line}", "malformed", read.message))
        else:
            records.append(read)
    placed = place_records(records, [document], name="chunks", label="chunks")
    return _shown(document, placed.chunks.get(document.id, ()), analysis,
                  tuple(sorted(problems + list(placed.problems), key=lambda p: (p.line, p.kind))))


def _shown(document: Document, chunks: tuple[Chunk, ...], analysis: Analysis,
           problems: tuple[ImportProblem, ...] = ()) -> Shown:
    return Shown(document, chunks, analysis, tuple(overlay_cuts(analysis, chunks)), problems)


def _record(line: int, item: Any) -> ChunkRecord | RecordProblem:
    """One chunk as an import record, its document always the one text shown."""
    if isinstance(item, str):
        return ChunkRecord(line, f"line {line}", None, item)
    if isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, int) for x in item):
        return ChunkRecord(line, f"line {line}", None, None, item[0], item[1])
    if isinstance(item, PydanticModel):
        item = item.model_dump()
    elif dataclasses.is_dataclass(item) and not isinstance(item, type):
        item = dataclasses.asdict(item)
    if not isinstance(item, Mapping):
        return RecordProblem(line, f"a chunk is a string, a (start, end) pair, a dict or a LangChain, LlamaIndex "
                                   f"or Chonkie chunk; got {type(item).__name__}")
    read = to_record(line, dict(item))
    return read if isinstance(read, RecordProblem) else dataclasses.replace(read, doc_ref=None)
