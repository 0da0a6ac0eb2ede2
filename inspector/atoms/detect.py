"""One entry point for atom detection, whichever detector a caller chooses."""

from __future__ import annotations

from ..errors import SpecError
from ..model import MODES, Atom
from .analysis import Analysis


def analyze(text: str, mode: str = "markdown") -> Analysis:
    """Atoms, paragraphs, sentences, tables and headings of ``text``.

    ``markdown`` (the default) parses with markdown-it-py; ``plain`` reads a text without markup
    (paragraphs and their sentences only); ``seed`` applies the article's regex rules exactly,
    to reproduce its numbers.
    """
    if mode == "markdown":
        from .markdown import analyze_markdown

        return analyze_markdown(text)
    if mode == "plain":
        from .markdown import analyze_plain

        return analyze_plain(text)
    if mode == "seed":
        from .seed import analyze_seed

        return analyze_seed(text)
    raise SpecError(f"unknown atom mode {mode!r}; choose one of {', '.join(MODES)}")


def load_detector(mode: str) -> None:
    """Import ``mode``'s detector now. It is imported on the first document analysed, which in a
    server can be a key press: the Orphan Test's first revealed chunk paid 0.11 s for it."""
    analyze("", mode)


def find_atoms(text: str, mode: str = "markdown") -> list[Atom]:
    """Every atom of ``text`` in document order."""
    return analyze(text, mode).atom_list()
