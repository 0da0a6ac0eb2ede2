"""The article's atom rules, reproduced exactly (the ``seed`` mode).

"The chunk boundary is the bug" labels its atoms with a line scanner and a few regular
expressions. They are knowingly rough (only a line starting with three backticks opens or
closes a fence; any two adjacent pipe lines are a table; a table inside a fence counts as a
table), and this module keeps every one of those quirks on purpose, because its job is to
reproduce the article's numbers on any corpus. The markdown-aware detector lives in
``markdown``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate

from ..model import Span
from .analysis import Analysis, Heading, Table
from .language import detect_language, prose_sample

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
# The article's break is r'(?<=[.!?])\s+(?=...)'; matching the punctuation mark instead of
# looking behind for it finds the same runs (one character later) twice as fast, since the
# regex engine can then skip ahead to the next '.', '!' or '?'.
_SENTENCE_BREAK = re.compile(r'[.!?]\s+(?=[A-Z0-9"\'(])')
_ROW_LINE = re.compile(r"^\|.*\|[ \t]*$")
#: The article's table-row atom: a whole line between pipes.
ROW_ATOM = re.compile(r"(?m)^\|[^\n]*\|[ \t]*$")
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
    # One scan of the whole text finds every break the article's per-paragraph scan finds: a
    # break is a whitespace run after '.', '!' or '?', and a paragraph both starts after a
    # newline and ends on one, so a run that is a break inside a paragraph ends before the
    # paragraph does, and a run reaching past the paragraph's end is no break there.
    breaks = [(m.start() + 1, m.end()) for m in _SENTENCE_BREAK.finditer(text)]
    out: list[Span] = []
    k, count = 0, len(breaks)
    for p_start, p_end in paragraphs if paragraphs is not None else seed_paragraphs(text):
        while k < count and breaks[k][0] < p_start:
            k += 1
        pos = p_start
        while k < count and breaks[k][1] < p_end:
            b_start, b_end = breaks[k]
            k += 1
            # The piece before a break ends on '.', '!' or '?'; only its start can be blank.
            if text[pos].isspace():
                piece = text[pos:b_start]
                pos += len(piece) - len(piece.lstrip())
            out.append((pos, b_start))
            pos = b_end
        # The last piece starts at a break's end (on a capital, digit, quote or parenthesis)
        # or at the paragraph's start; trim what the article's strip() would.
        if pos < p_end and (text[pos].isspace() or text[p_end - 1].isspace()):
            segment = text[pos:p_end]
            stripped = segment.strip()
            if stripped:
                start = pos + len(segment) - len(segment.lstrip())
                out.append((start, start + len(stripped)))
        elif pos < p_end:
            out.append((pos, p_end))
    return out


def _lines(text: str) -> tuple[list[str], list[int]]:
    """``splitlines(keepends=True)`` (the article's line scanner) and each line's offset."""
    lines = text.splitlines(keepends=True)
    return lines, [0, *accumulate(map(len, lines))]


def seed_fences(text: str, lines: tuple[list[str], list[int]] | None = None) -> list[Span]:
    """Pairs of lines that start (after whitespace) with three backticks, opener to closer."""
    if _FENCE_MARK not in text:
        return []
    lines, offsets = lines or _lines(text)
    spans: list[Span] = []
    opened: int | None = None
    for i, line in enumerate(lines):
        if _FENCE_MARK in line and line.lstrip().startswith(_FENCE_MARK):
            if opened is None:
                opened = offsets[i]
            else:
                spans.append((opened, offsets[i + 1]))
                opened = None
    return spans


def seed_tables(text: str, lines: tuple[list[str], list[int]] | None = None) -> list[Span]:
    """Runs of two or more consecutive lines that begin and end with a pipe."""
    if "|" not in text:
        return []
    lines, offsets = lines or _lines(text)
    rows = [i for i, line in enumerate(lines) if line[:1] == "|" and _ROW_LINE.match(line.rstrip("\n"))]
    spans: list[Span] = []
    first = previous = -2
    for i in rows + [-2]:
        if i != previous + 1:
            if previous - first >= 1:
                spans.append((offsets[first], offsets[previous + 1]))
            first = i
        previous = i
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
    lines = _lines(text) if "|" in text or _FENCE_MARK in text else None
    fences = seed_fences(text, lines)
    tables = seed_tables(text, lines)
    blocked = fences + tables
    if blocked:
        blocks = _Blocks(blocked)
        prose = [s for s in sentences if not blocks.overlaps(s)]
    else:
        prose = sentences
    figures: list[Span] = []
    citing: list[Span] = []
    digit = _DIGIT.search
    find = text.find
    # Searching text[start:end] through pos/endpos finds what searching the slice would
    # (neither pattern looks around), without copying sentences that cannot qualify.
    for start, end in prose:
        if digit(text, start, end) and len(text[start:end].split()) >= 10:
            figures.append((start, end))
        if find("](", start, end) >= 0:
            citing.append((start, end))
    rows = [m.span() for m in matches_at_line_starts(ROW_ATOM, text, "|")]
    return Analysis(
        mode="seed",
        atoms={"code": tuple(fences), "table": tuple(tables), "row": tuple(rows),
               "num": tuple(figures), "cite": tuple(citing)},
        paragraphs=tuple(paragraphs),
        sentences=tuple(sentences),
        fences=tuple(fences),
        tables=tuple(_seed_table_parts(text, tables)),
        headings=tuple(_seed_headings(text, fences)),
        # Shown and used for breakdowns only: the article's rules are English whatever it says.
        language=detect_language(prose_sample(text[a:b] for a, b in prose)),
    )


def matches_at_line_starts(pattern: re.Pattern, text: str, first: str):
    """What ``pattern.finditer(text)`` yields for a ``(?m)^``-anchored pattern whose match
    never crosses a newline and starts with the character ``first``.

    Only lines starting with ``first`` are tried (``^`` in a multiline pattern means after a
    newline, as here), instead of the regex engine trying every position of the text.
    """
    if text[:1] == first:
        m = pattern.match(text, 0)
        if m:
            yield m
    marker = "\n" + first
    pos = text.find(marker)
    while pos >= 0:
        m = pattern.match(text, pos + 1)
        if m:
            yield m
        pos = text.find(marker, pos + 1)


def _seed_table_parts(text: str, tables: list[Span]) -> list[Table]:
    """Header line (as the article finds it: up to the next newline) and row lines."""
    out = []
    for start, end in tables:
        newline = text.find("\n", start)
        header = (start, len(text) if newline < 0 else newline + 1)
        rows = [(m.start(), m.end()) for m in ROW_ATOM.finditer(text, header[1], end)]
        out.append(Table(start, end, header, tuple(rows)))
    return out


#: The article's ATX heading line (``#`` to ``######``, text, optional closing hashes).
ATX = re.compile(r"(?m)^(#{1,6})[ \t]+(.+?)[ \t#]*$")


def _seed_headings(text: str, fences: list[Span]) -> list[Heading]:
    """ATX headings outside seed fences, for heading paths (the article has none)."""
    out = []
    blocks = _Blocks(fences)
    for m in matches_at_line_starts(ATX, text, "#"):
        if fences and blocks.overlaps((m.start(), m.end())):
            continue
        end = m.end() + 1 if m.end() < len(text) else m.end()
        out.append(Heading(m.start(), end, len(m.group(1)), m.group(2).strip()))
    return out
