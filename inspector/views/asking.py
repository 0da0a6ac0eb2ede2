"""The Ask page's answer drawn: one splitter's retrieved chunks as cards and on their document,
the quote marked where they hold it, and its landing in words, without Streamlit."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from ..measure.asked import Asked, QuoteSpan
from ..model import Document, Span
from ..retrieval.span_scores import merged
from .render import chunk_card_html

#: Characters of the document drawn around each retrieved chunk and the quote.
AROUND = 300

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


def answer_document(asked: Asked, quote: QuoteSpan | None) -> str | None:
    """The document an answer is drawn on: the quote's, else the top chunk's (None: no chunk)."""
    if quote is not None:
        return quote.doc
    return asked.chunks[0].doc if asked.chunks else None


def answer_document_said(asked: Asked, quote: QuoteSpan | None) -> str:
    """What the drawing of ``answer_document`` shows, in one sentence."""
    doc = answer_document(asked, quote)
    said = f"{doc}, {'the quote' if quote is not None else 'the top chunk'}'s document: each retrieved chunk shaded, " \
           f"its rank and score where it starts" + (
               ", the quote underlined in green" if quote is not None else "")
    elsewhere = sum(1 for c in asked.chunks if c.doc != doc)
    return said + (f"; {elsewhere} more from other documents (see chunk by chunk)." if elsewhere else ".")


def asked_on_document_html(asked: Asked, document: Document, quote: QuoteSpan | None = None) -> str:
    """``document`` around the chunks of ``asked`` it holds: each retrieved chunk a band labelled
    with its rank (and score), the quote marked, the text between them left plain; stretches far
    from every chunk and the quote are left out, and said so. Escaped HTML inside an overlay box."""
    text = document.text
    hits = [c for c in asked.chunks if c.doc == document.id]
    marked = [(c.start, c.end) for c in hits]
    if quote is not None and quote.doc == document.id:
        marked.append((quote.start, quote.end))
    if not marked:
        return ('<div class="ci-overlay"><div class="ci-notice" data-label="">No retrieved chunk comes from '
                f"{escape(document.id)}.</div></div>")
    parts = _stretches(marked, len(text))
    order = {c.rank: i for i, c in enumerate(sorted(hits, key=lambda c: (c.start, c.rank)))}
    labels = {}
    for c in hits:
        score = "" if c.score is None else f" · {c.score:.3f}"
        labels.setdefault(c.start, []).append(f'<span class="ci-label" data-label="">#{c.rank}{score}</span>')
    out, shown = [], 0
    for first, last in parts:
        if first > shown:
            out.append(_skipped(first - shown))
        bounds = sorted({first, last, *(p for a, b in marked for p in (a, b) if first < p < last)})
        for p, q in zip(bounds, bounds[1:]):
            out.extend(labels.get(p, ()))
            ranks = [c.rank for c in hits if c.start <= p < c.end]
            piece = escape(text[p:q], quote=True)
            if quote is not None and quote.doc == document.id and quote.start <= p < quote.end:
                piece = f'<mark class="ci-quote">{piece}</mark>'
            if ranks:
                title = "retrieved chunk" + ("s" if len(ranks) > 1 else "") + " " + ", ".join(f"#{r}" for r in ranks)
                shade = " ci-hit-b" if order[ranks[-1]] % 2 else ""  # neighbours told apart
                piece = f'<span class="ci-hit{shade}" title="{escape(title, quote=True)}">{piece}</span>'
            out.append(piece)
        shown = last
    if shown < len(text):
        out.append(_skipped(len(text) - shown))
    return f'<div class="ci-overlay"><div class="ci-text">{"".join(out)}</div></div>'


def _stretches(marked: list[Span], length: int) -> list[Span]:
    """The marked spans widened by ``AROUND`` characters, overlapping ones merged, in order."""
    return merged((max(0, a - AROUND), min(length, b + AROUND)) for a, b in marked)


def _skipped(characters: int) -> str:
    return f'<span class="ci-skip" data-label="">[… {characters:,} characters not drawn …]</span>'
