"""Untrusted text made safe and short for the page: markdown escaping and first words."""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=])")


def markdown_escape(text: str) -> str:
    """``text`` shown through Streamlit's markdown exactly as written: no links, images, HTML,
    emphasis, maths or colour directives (file names, titles and link values are untrusted)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def first_words(text: str, words: int = 12) -> str:
    """The first ``words`` words of a text on one line, for tables."""
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")
