"""Plain, line-by-line versions of the seed rules, to check the fast paths against.

These are this project's first implementation of the article's definitions (one regex pass
per paragraph, one line scan per block kind, a quadratic overlap test), kept here once
``inspector.atoms.seed`` and ``inspector.retrieval.probe`` were rewritten for speed. They were checked
number for number against the article's script (``test_seed_exact`` still does that on the
bundled corpus); the article's code itself is not part of the project.
"""

from __future__ import annotations

import random
import re

BLANK_LINE = re.compile(r"\n[ \t]*\n")
SENTENCE_BREAK = re.compile(r'(?<=[.!?])\s+(?=[A-Z0-9"\'(])')
ROW_LINE = re.compile(r"^\|.*\|[ \t]*$")
ROW_ATOM = re.compile(r"(?m)^\|[^\n]*\|[ \t]*$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
QUERY_WORD = re.compile(r"[A-Za-z][A-Za-z.+-]+")


def paragraphs(text: str) -> list[tuple[int, int]]:
    found, pos = [], 0
    for gap in BLANK_LINE.finditer(text):
        if gap.start() > pos:
            found.append((pos, gap.start()))
        pos = gap.end()
    if pos < len(text):
        found.append((pos, len(text)))
    return found


def sentences(text: str) -> list[tuple[int, int]]:
    found = []
    for first, last in paragraphs(text):
        cuts = [m.end() for m in SENTENCE_BREAK.finditer(text, first, last)]
        for a, b in zip([first] + cuts, cuts + [last]):
            piece = text[a:b]
            if piece.strip():
                start = a + len(piece) - len(piece.lstrip())
                found.append((start, start + len(piece.strip())))
    return found


def fences(text: str) -> list[tuple[int, int]]:
    found, opened, offset = [], None, 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("`" * 3):
            if opened is None:
                opened = offset
            else:
                found.append((opened, offset + len(line)))
                opened = None
        offset += len(line)
    return found


def tables(text: str) -> list[tuple[int, int]]:
    found, start, rows, offset = [], None, 0, 0
    for line in text.splitlines(keepends=True):
        if ROW_LINE.match(line.rstrip("\n")):
            if start is None:
                start, rows = offset, 0
            rows += 1
        else:
            if start is not None and rows >= 2:
                found.append((start, offset))
            start = None
        offset += len(line)
    if start is not None and rows >= 2:
        found.append((start, len(text)))
    return found


def atoms(text: str) -> dict[str, list[tuple[int, int]]]:
    blocks = fences(text) + tables(text)
    prose = [s for s in sentences(text) if not any(a < s[1] and s[0] < b for a, b in blocks)]
    return {
        "code": fences(text),
        "table": tables(text),
        "row": [m.span() for m in ROW_ATOM.finditer(text)],
        "num": [s for s in prose if len(text[s[0]:s[1]].split()) >= 10 and re.search(r"\d", text[s[0]:s[1]])],
        "cite": [s for s in prose if "](" in text[s[0]:s[1]]],
    }


def queries(documents: list[tuple[str, str]], count: int = 200, seed: int = 11) -> list[tuple]:
    """(document id, evidence span, three words) per figure sentence, shuffled, first ``count``."""
    found = []
    for doc_id, text in documents:
        for start, end in atoms(text)["num"]:
            words = [w.lower() for w in QUERY_WORD.findall(LINK.sub(r"\1", text[start:end])) if len(w) >= 6]
            if len(words) >= 3:
                found.append((doc_id, (start, end), tuple(sorted(set(words), key=lambda w: (-len(w), w))[:3])))
    random.Random(seed).shuffle(found)
    return found[:count]
