"""The article's atom rules, reproduced exactly (the ``seed`` mode).

"The chunk boundary is the bug" labels its atoms with a line scanner and a few regular
expressions. They are knowingly rough (only a line starting with three backticks opens or
closes a fence; any two adjacent pipe lines are a table; a table inside a fence counts as a
table), and this module keeps every one of those quirks on purpose, because its job is to
reproduce the article's numbers on any corpus. The markdown-aware detector lives in
``atoms_markdown``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate

from .analysis import Analysis, Heading, Table
from .model import Span

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SENTENCE_BREAK = re.compile(r'(?<=[.!?])\s+(?=[A-Z0-9"\'(])')
_ROW_LINE = re.compile(r"^\|.*\|[ \t]*$")
_ROW_ATOM = re.compile(r"(?m)^\|[^\n]*\|[ \t]*$")
_DIGIT = re.compile(r"\d")
_FENCE_MARK = "`" * 3


def seed_paragraphs(text: str) -> list[Span]:
    """Runs of text between blank lines (a blank line may hold spaces or tabs)."""
    out: list[Span] = []
    pos = 0
    for match in _BLANK_LINE.finditer(text):
        if match.start() > pos:
            out.append((pos, match.start()))
        pos = match.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out


def seed_sentences(text: str, paragraphs: list[Span] | None = None) -> list[Span]:
    """Sentences inside each paragraph, trimmed of surrounding whitespace."""
    out: list[Span] = []
    breaks = _SENTENCE_BREAK.finditer
    for p_start, p_end in paragraphs if paragraphs is not None else seed_paragraphs(text):
        # Searching the text between pos and endpos matches exactly what searching the sliced
        # paragraph would: a paragraph never starts right after '.', '!' or '?'.
        cuts = [m.end() for m in breaks(text, p_start, p_end)]
        for a, b in zip([p_start] + cuts, cuts + [p_end]):
            segment = text[a:b]
            stripped = segment.strip()
            if stripped:
                start = a + len(segment) - len(segment.lstrip())
                out.append((start, start + len(stripped)))
    return out


def seed_fences(text: str) -> list[Span]:
    """Pairs of lines that start (after whitespace) with three backticks, opener to closer."""
    spans: list[Span] = []
    opened: int | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith(_FENCE_MARK):
            if opened is None:
                opened = offset
            else:
                spans.append((opened, offset + len(line)))
                opened = None
        offset += len(line)
    return spans


def seed_tables(text: str) -> list[Span]:
    """Runs of two or more consecutive lines that begin and end with a pipe."""
    spans: list[Span] = []
    start: int | None = None
    rows = 0
    offset = 0
    for line in text.splitlines(keepends=True):
        if _ROW_LINE.match(line.rstrip("\n")):
            if start is None:
                start, rows = offset, 0
            rows += 1
        else:
            if start is not None and rows >= 2:
                spans.append((start, offset))
            start = None
        offset += len(line)
    if start is not None and rows >= 2:
        spans.append((start, len(text)))
    return spans


class _Blocks:
    """Answers "does this span overlap any block?" in O(log n) (blocks may overlap each other)."""

    __slots__ = ("starts", "reach")

    def __init__(self, spans: list[Span]) -> None:
        ordered = sorted(spans)
        self.starts = [a for a, _ in ordered]
        self.reach = list(accumulate((b for _, b in ordered), max))

    def overlaps(self, span: Span) -> bool:
        k = bisect_left(self.starts, span[1])  # blocks starting before the span ends
        return k > 0 and self.reach[k - 1] > span[0]


def analyze_seed(text: str) -> Analysis:
    """All atoms, paragraphs and sentences by the article's rules."""
    paragraphs = seed_paragraphs(text)
    sentences = seed_sentences(text, paragraphs)
    fences = seed_fences(text)
    tables = seed_tables(text)
    blocked = fences + tables
    if blocked:
        blocks = _Blocks(blocked)
        prose = [s for s in sentences if not blocks.overlaps(s)]
    else:
        prose = sentences
    figures: list[Span] = []
    citing: list[Span] = []
    for start, end in prose:
        sentence = text[start:end]
        if len(sentence.split()) >= 10 and _DIGIT.search(sentence):
            figures.append((start, end))
        if "](" in sentence:
            citing.append((start, end))
    rows = [(m.start(), m.end()) for m in _ROW_ATOM.finditer(text)]
    return Analysis(
        mode="seed",
        atoms={"code": tuple(fences), "table": tuple(tables), "row": tuple(rows),
               "num": tuple(figures), "cite": tuple(citing)},
        paragraphs=tuple(paragraphs),
        sentences=tuple(sentences),
        fences=tuple(fences),
        tables=tuple(_seed_table_parts(text, tables)),
        headings=tuple(_seed_headings(text, fences)),
    )


def _seed_table_parts(text: str, tables: list[Span]) -> list[Table]:
    """Header line (as the article finds it: up to the next newline) and row lines."""
    out = []
    for start, end in tables:
        newline = text.find("\n", start)
        header = (start, len(text) if newline < 0 else newline + 1)
        rows = [(m.start(), m.end()) for m in _ROW_ATOM.finditer(text, header[1], end)]
        out.append(Table(start, end, header, tuple(rows)))
    return out


_ATX = re.compile(r"(?m)^(#{1,6})[ \t]+(.+?)[ \t#]*$")


def _seed_headings(text: str, fences: list[Span]) -> list[Heading]:
    """ATX headings outside seed fences, for heading paths (the article has none)."""
    out = []
    blocks = _Blocks(fences)
    for m in _ATX.finditer(text):
        if fences and blocks.overlaps((m.start(), m.end())):
            continue
        end = m.end() + 1 if m.end() < len(text) else m.end()
        out.append(Heading(m.start(), end, len(m.group(1)), m.group(2).strip()))
    return out
