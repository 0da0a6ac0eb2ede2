"""Text for the page, safe and short: markdown escaping, first words, chunk numbers as ranges,
page ranges."""

from __future__ import annotations

import re
from collections.abc import Iterable

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=])")


def markdown_escape(text: str) -> str:
    """``text`` shown through Streamlit's markdown exactly as written: no links, images, HTML,
    emphasis, maths or colour directives (file names, titles and link values are untrusted)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def first_words(text: str, words: int = 12) -> str:
    """The first ``words`` words of a text on one line, for tables."""
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def chunk_numbers(positions: Iterable[int], *, runs: int = 8) -> str:
    """Chunk positions (from 0) as people read them, three or more in a row as a range:
    ``#1–#3, #7, #8``.

    Only the first ``runs`` ranges or numbers are written, then how many chunks are left, so
    the text stays short however many chunks there are (one table cut by 15,000 chunks reads
    ``#1–#15000``)."""
    ordered = sorted(set(positions))
    found: list[tuple[int, int]] = []
    for p in ordered:
        if found and p == found[-1][1] + 1:
            found[-1] = (found[-1][0], p)
        else:
            found.append((p, p))
    found = [part for a, b in found for part in ([(a, a), (b, b)] if b == a + 1 else [(a, b)])]
    words = [f"#{a + 1}" if a == b else f"#{a + 1}–#{b + 1}" for a, b in found[:runs]]
    left = sum(b - a + 1 for a, b in found[runs:])
    return ", ".join(words) + (f" and {left:,} more" if left else "")


def page_label(pages: tuple[int, int] | None) -> str:
    """A chunk's pages as people read them: ``p. 2``, ``pp. 1–2``, or ``""`` without pages."""
    if pages is None:
        return ""
    first, last = pages
    return f"p. {first}" if first == last else f"pp. {first}–{last}"
