"""The values that flow through the engine: documents, atoms and chunks.

Every position is a character offset into ``Document.text``; text is always sliced
from offsets, never searched for.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import count, repeat
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from .spec import SplitterSpec

Span = tuple[int, int]

#: The ways of reading documents and finding atoms: markdown-it-py (the default), the same
#: prose rules on a text without markup (``plain``: no code block, table or heading), or the
#: article's exact regex rules (``seed``), which reproduce its numbers.
MODES: tuple[str, ...] = ("markdown", "seed", "plain")


def mode_tag(mode: str) -> str:
    """What a chunk's tag (and so its id) adds for ``mode``: nothing for markdown, ``@seed`` or
    ``@plain`` otherwise, so the same spec's chunks in two modes never share an id."""
    return "" if mode == "markdown" else f"@{mode}"


def every_script(mode: str) -> bool:
    """Whether ``mode`` reads every script: terms, queries and sentences of any language (the
    default mode), or only the article's English ones (seed mode, kept to its digits)."""
    return mode != "seed"


#: Atom kinds, in the order the article's tables print them.
ATOM_KINDS: tuple[str, ...] = ("code", "table", "row", "num", "cite")

#: Human names of the atom kinds.
ATOM_LABELS: dict[str, str] = {
    "code": "code block",
    "table": "table",
    "row": "table row",
    "num": "figure sentence",
    "cite": "citing sentence",
}


@dataclass(frozen=True, slots=True)
class Document:
    """One text of a corpus."""

    id: str
    """Stable identifier: the path relative to the corpus root, with ``/`` separators."""

    text: str
    """The text every offset indexes: front matter removed, newlines normalised."""

    title: str = ""
    """A human title: the first heading, the front-matter title, or the file name."""

    source: str = ""
    """Where the text came from (a path or an upload name), for messages only."""

    meta: tuple[tuple[str, str], ...] = ()
    """Scalar front-matter fields (key, value), kept for address stamps."""

    pages: tuple[int, ...] = ()
    """Where each page (or slide) starts in ``text``, for converted PDF and PPTX files; empty
    for formats without pages."""

    source_format: str = ""
    """The format the text was converted from (``pdf``, ``docx``, ...); empty for text files."""

    start_in_file: int = 0
    """Where ``text`` starts in the file's own text, newlines normalised (a byte-order mark and
    front matter removed before it): an offset another tool counted in the file is this much larger."""

    @property
    def size(self) -> int:
        """Length of the text in characters."""
        return len(self.text)

    @property
    def format(self) -> str:
        """The source format: the converter's kind (``source_format``), else ``markdown`` or
        ``text`` (a ``.txt`` file)."""
        if self.source_format:
            return self.source_format
        return "text" if self.id.lower().endswith(".txt") else "markdown"

    def page_span(self, start: int, end: int) -> tuple[int, int] | None:
        """The pages (from 1) that ``[start, end)`` runs over, or None without pages."""
        if not self.pages:
            return None
        first = bisect_right(self.pages, start)
        return max(1, first), max(1, bisect_right(self.pages, max(start, end - 1)))


@dataclass(frozen=True, slots=True)
class Atom:
    """A piece of text that has to arrive whole inside one chunk to be usable."""

    kind: str
    """One of ``ATOM_KINDS``."""

    start: int
    """Offset of the first character."""

    end: int
    """Offset one past the last character."""

    @property
    def length(self) -> int:
        """Length in characters."""
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Chunk:
    """A span of a document, plus the text a splitter prepends to it before embedding."""

    doc_id: str
    """The ``Document.id`` this chunk belongs to."""

    index: int
    """Position of the chunk within its document, from 0."""

    start: int
    """Offset of the first character of the span."""

    end: int
    """Offset one past the last character of the span."""

    prefix: str = ""
    """Text prepended for embedding (heading path, repeated table header); not part of the span."""

    spec: str = ""
    """The splitter specification that produced the chunk, as its short string."""

    heading_path: tuple[str, ...] = field(default=())
    """Headings enclosing the chunk's start, outermost first."""

    @property
    def span(self) -> Span:
        """``(start, end)``."""
        return (self.start, self.end)

    @property
    def id(self) -> str:
        """Deterministic id from document, span and configuration."""
        key = f"{self.doc_id}\x00{self.start}\x00{self.end}\x00{self.spec}\x00{self.prefix}"
        return hashlib.blake2b(key.encode("utf-8"), digest_size=8).hexdigest()

    def text(self, document: Document) -> str:
        """The chunk's own text, sliced from the document."""
        return document.text[self.start:self.end]

    def embedded_text(self, document: Document) -> str:
        """What an embedder sees: the prefix followed by the span's text."""
        return self.prefix + document.text[self.start:self.end]


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One chunk made elsewhere (a record of an imported file, or a library splitter's chunk)
    that could not be taken as given, or a document-wide problem of an import."""

    line: int
    """Line of the chunk file (from 1); 0 for problems of a whole document."""

    chunk_id: str
    """The producer's chunk id, ``"line N"`` when it gave none, or ``""``."""

    kind: str
    """``malformed``, ``no-document``, ``unknown-document``, ``ambiguous-document``,
    ``bad-offsets``, ``offset-mismatch`` (placed by its text, a harmless shift),
    ``other-occurrence`` (repeated text: placed on the copy its offset points to, not where a
    search would have), ``not-found``, ``front-matter-only`` (the chunk is front matter the
    corpus removed), ``empty``, ``duplicate``, ``duplicate-id``, ``out-of-order``,
    ``ambiguous`` or ``front-matter``."""

    message: str
    """What happened, in words, naming what was done about it."""

    @property
    def is_shift(self) -> bool:
        """Placed by its text a distance from its offsets: harmless when the producer counted in
        the raw file (front matter) or in a text with other whitespace."""
        return self.kind == "offset-mismatch"


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

    problems: tuple[ImportProblem, ...] = ()
    """For an ``ext-`` library splitter: each chunk whose own offsets did not hold its text
    and was placed again by its text, or dropped (reported, never silently trusted)."""

    @property
    def spans(self) -> list[Span]:
        """``(start, end)`` of every chunk."""
        return [(c.start, c.end) for c in self.chunks]

    def with_context(self, spec: SplitterSpec, lines: dict[Span, str]) -> "SplitResult":
        """These chunks under ``spec`` (this spec with ``+context``): each chunk ``lines`` has
        a line for gets it before its prefix; spans, and so survival, stay as they are."""
        tag = str(spec) + mode_tag(self.mode)
        chunks = tuple(_chunk(c.doc_id, c.index, c.start, c.end,
                              (lines[c.span] + "\n" + c.prefix) if c.span in lines else c.prefix, tag, c.heading_path)
                       for c in self.chunks)
        return SplitResult(self.doc_id, spec, self.mode, chunks, self.oversized, self.problems)


_new = object.__new__
_SETTERS = tuple(getattr(Chunk, name).__set__
                 for name in ("doc_id", "index", "start", "end", "prefix", "spec", "heading_path"))


def _chunk(doc_id: str, index: int, start: int, end: int, prefix: str, spec: str,
           heading_path: tuple[str, ...]) -> Chunk:
    chunk = _new(Chunk)
    set_doc, set_index, set_start, set_end, set_prefix, set_spec, set_path = _SETTERS
    set_doc(chunk, doc_id)
    set_index(chunk, index)
    set_start(chunk, start)
    set_end(chunk, end)
    set_prefix(chunk, prefix)
    set_spec(chunk, spec)
    set_path(chunk, heading_path)
    return chunk


def make_chunks(doc_id: str, starts: Iterable[int], ends: Iterable[int], prefixes: Iterable[str] | None,
                spec: str, heading_paths: Iterable[tuple[str, ...]]) -> tuple[Chunk, ...]:
    """One document's chunks from parallel columns, numbered from 0: equal to calling
    ``Chunk(...)`` for each, but built by setting the slots directly, since the frozen
    dataclass ``__init__`` (one ``object.__setattr__`` per field) dominates a split's cost."""
    return tuple(map(_chunk, repeat(doc_id), count(), starts, ends,
                     repeat("") if prefixes is None else prefixes, repeat(spec), heading_paths))
