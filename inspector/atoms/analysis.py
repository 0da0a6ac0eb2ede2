"""What the engine knows about one document's structure, computed once and reused.

An ``Analysis`` is produced by one of two detectors (``seed``: the article's regex rules;
``markdown``: markdown-it-py) and is shared by every splitter, measure and renderer that
looks at the same document, so atoms are never recomputed per splitter or per budget.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import partial
from typing import Sequence

from ..model import ATOM_KINDS, Atom, Span


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading line."""

    start: int
    """Offset of the heading's first character (the ``#`` or the setext text)."""

    end: int
    """Offset one past the heading's last line, newline included."""

    level: int
    """1 for ``#``, up to 6."""

    title: str
    """The heading's text without markers."""


@dataclass(frozen=True, slots=True)
class Table:
    """A table and the parts a splitter needs to cut it between rows."""

    start: int
    """Offset of the table's first line."""

    end: int
    """Offset one past the table's last line (newline included when there is one)."""

    header: Span
    """The header row and delimiter row, newline included; repeated on continuation chunks."""

    rows: tuple[Span, ...]
    """Each body row as a line span (newline included)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """Structure of one document in one detector mode."""

    mode: str
    """``"markdown"``, ``"plain"`` or ``"seed"``."""

    atoms: dict[str, tuple[Span, ...]]
    """Atom spans per kind (keys: ``ATOM_KINDS``), each tuple sorted by start. In markdown mode
    an atom runs from its first to its last non-space character (``visible``), so a chunk that
    leaves out the whitespace around an atom still holds it; seed mode keeps the article's spans."""

    paragraphs: tuple[Span, ...]
    """Paragraph spans, in order, not overlapping."""

    sentences: tuple[Span, ...]
    """Sentence spans, in order, not overlapping (prose and non-prose alike)."""

    fences: tuple[Span, ...] = ()
    """Code blocks (fenced or indented) as whole-line spans (in seed mode the same as
    ``atoms["code"]``; markdown mode's atoms are the same blocks without their edge whitespace)."""

    tables: tuple[Table, ...] = ()
    """Tables with their header and rows."""

    headings: tuple[Heading, ...] = ()
    """Headings in document order."""

    language: str = "und"
    """ISO 639-1 code of the document's prose language (``language.detect_language``), or ``und``."""

    memo: dict = field(default_factory=dict, compare=False, repr=False)
    """Values derived from the analysis by splitters (heading index, structured pieces)."""

    @property
    def heading_index(self) -> "HeadingIndex":
        """Heading paths by offset, built once."""
        found = self.memo.get("heading_index")
        if found is None:
            found = self.memo["heading_index"] = HeadingIndex(self.headings)
        return found

    def to_plain(self) -> tuple:
        """The analysis as tuples of ints and strings only, which pickle several times faster
        than the dataclasses (for handing analyses between processes)."""
        return (self.mode, self.atoms, self.paragraphs, self.sentences, self.fences,
                tuple((t.start, t.end, t.header, t.rows) for t in self.tables),
                tuple((h.start, h.end, h.level, h.title) for h in self.headings), self.language)

    @classmethod
    def from_plain(cls, plain: tuple) -> "Analysis":
        """The analysis ``to_plain`` describes."""
        mode, atoms, paragraphs, sentences, fences, tables, headings, language = plain
        return cls(mode, atoms, paragraphs, sentences, fences, tuple(Table(*t) for t in tables),
                   tuple(Heading(*h) for h in headings), language)

    @property
    def blocks(self) -> list[Span]:
        """The code blocks and tables as whole-line spans, sorted (one nested in another kept):
        what a structured splitter keeps whole."""
        found = self.memo.get("blocks")
        if found is None:
            found = self.memo["blocks"] = sorted(set(self.fences) | {(t.start, t.end) for t in self.tables})
        return found

    def atom_list(self) -> list[Atom]:
        """Every atom as an ``Atom``, ordered by start then kind."""
        out = [Atom(kind, a, b) for kind in ATOM_KINDS for a, b in self.atoms.get(kind, ())]
        out.sort(key=lambda atom: (atom.start, ATOM_KINDS.index(atom.kind), atom.end))
        return out

    def count(self, kind: str) -> int:
        """Number of atoms of one kind."""
        return len(self.atoms.get(kind, ()))

    def heading_path(self, offset: int) -> tuple[str, ...]:
        """Titles of the headings that enclose ``offset``, outermost first."""
        return self.heading_index.path(offset)


class HeadingIndex:
    """Heading paths looked up by offset in O(log n), built once per document."""

    __slots__ = ("starts", "paths")

    def __init__(self, headings: tuple[Heading, ...]) -> None:
        self.starts: list[int] = []
        self.paths: list[tuple[str, ...]] = []
        # Each entry is (level, path): a heading's path extends its parent's, so paths are
        # built by one tuple concatenation each rather than by re-reading the whole stack.
        stack: list[tuple[int, tuple[str, ...]]] = []
        for heading in headings:
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            path = stack[-1][1] + (heading.title,) if stack else (heading.title,)
            stack.append((heading.level, path))
            self.starts.append(heading.start)
            self.paths.append(path)

    def path(self, offset: int) -> tuple[str, ...]:
        """Headings enclosing ``offset`` (a heading starting at ``offset`` included)."""
        k = bisect_right(self.starts, offset)
        return self.paths[k - 1] if k else ()

    def paths_at(self, offsets: Sequence[int]) -> list[tuple[str, ...]]:
        """``path`` of every offset, in one pass."""
        if not self.starts:
            return [()] * len(offsets)
        padded = [(), *self.paths]
        return list(map(padded.__getitem__, map(partial(bisect_right, self.starts), offsets)))

    def ancestors(self, offset: int) -> tuple[str, ...]:
        """Headings above ``offset``; a heading starting exactly there is not included."""
        k = bisect_right(self.starts, offset)
        if not k:
            return ()
        if self.starts[k - 1] == offset:
            return self.paths[k - 1][:-1]
        return self.paths[k - 1]


def visible(text: str, spans) -> tuple[Span, ...]:
    """Each span without the whitespace at its edges (``visible_span``)."""
    return tuple(visible_span(text, a, b) for a, b in spans)


def visible_span(text: str, a: int, b: int) -> Span:
    """``[a, b)`` from its first to its last non-space character (a span of whitespace only
    stays as it is)."""
    piece = text[a:b]
    kept = piece.strip()
    if kept and len(kept) != len(piece):
        a += len(piece) - len(piece.lstrip())
        b = a + len(kept)
    return a, b
