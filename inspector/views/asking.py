"""The Ask page's answer drawn: one splitter's retrieved chunks as cards, the quote marked
where they hold it, and its landing in words, without Streamlit."""

from __future__ import annotations

from collections.abc import Mapping

from ..measure.asked import Asked, QuoteSpan
from ..model import Document
from .render import chunk_card_html

#: How each landing is shown: Streamlit's alert that carries it.
LANDING_ALERTS = {"whole": "success", "cut": "error", "missing": "warning"}


def landing_line(asked: Asked) -> tuple[str, str]:
    """``(alert, sentence)`` saying where the quote lands for ``asked``'s splitter."""
    quote = asked.quote
    if quote is None:
        return "info", f"{len(asked.chunks)} chunk{'s' * (len(asked.chunks) != 1)} came back."
    return LANDING_ALERTS[quote.status], f"The quote is {quote.sentence()}."


def asked_cards_html(asked: Asked, documents: Mapping[str, Document], quote: QuoteSpan | None = None) -> str:
    """Each retrieved chunk as a card (rank, document, span and score on its title; its text
    escaped, the part of ``quote`` it holds marked)."""
    cards = []
    for chunk in asked.chunks:
        document = documents[chunk.doc]
        marked = None
        if quote is not None and quote.doc == chunk.doc and chunk.start < quote.end and quote.start < chunk.end:
            marked = (max(quote.start, chunk.start) - chunk.start, min(quote.end, chunk.end) - chunk.start)
        score = "" if chunk.score is None else f" · score {chunk.score:.3f}"
        cards.append(chunk_card_html(document.text[chunk.start:chunk.end], title=f"#{chunk.rank} · {chunk.doc}{score}",
                                     hint_lines=[f"{document.title} · span {chunk.start}–{chunk.end}"], style=False,
                                     marked=marked))
    return "".join(cards)
