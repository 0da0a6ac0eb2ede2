"""``views.asking``: the Ask page's cards escape the document and mark the quote where each
chunk holds it."""

from __future__ import annotations

from inspector.measure.asked import Asked, AskedChunk, Landing, QuoteSpan
from inspector.model import Document
from inspector.views.asking import asked_cards_html, landing_line
from inspector.views.render import chunk_card_html

HOSTILE = Document("x.md", "<script>alert(1)</script> | 7440 | admin | <img src=x onerror=alert(2)> tail",
                   title="<i>t</i>")


def test_the_quote_is_marked_in_each_chunk_holding_part_of_it_and_every_byte_escaped():
    quote = QuoteSpan("x.md", 27, 42)
    asked = Asked("fixed:30", "bm25", 2, (AskedChunk(1, "x.md", 0, 35, 3.5), AskedChunk(2, "x.md", 35, 77, None)),
                  Landing("cut", (1, 2), "cut"))
    out = asked_cards_html(asked, {"x.md": HOSTILE}, quote)
    assert "<script>" not in out and "<img" not in out and "<i>t</i>" not in out
    assert out.count('<mark class="ci-quote">') == 2
    assert '<mark class="ci-quote"> 7440 | </mark>' in out and '<mark class="ci-quote">admin |</mark>' in out
    assert "#1 · x.md · score 3.500" in out and "#2 · x.md</div>" in out
    assert landing_line(asked) == ("error", "The quote is cut across chunks 1, 2.")


def test_a_mark_outside_the_text_is_left_out():
    assert "ci-quote" not in chunk_card_html("abc", marked=(2, 9), style=False)
    assert chunk_card_html("a<b>c", marked=(1, 4), style=False).count("<mark class=\"ci-quote\">&lt;b&gt;</mark>") == 1


def _plain(html: str) -> str:
    """The document text an answer drawing holds: tags and labels gone, entities read."""
    import html as html_module
    import re

    html = re.sub(r'<span class="ci-(?:label|skip)" data-label="">.*?</span>', "", html)
    return html_module.unescape(re.sub(r"<[^>]+>", "", html))


def test_the_answer_is_drawn_on_its_document_with_ranks_and_the_quote_and_nothing_unescaped():
    from inspector.views.asking import answer_document, answer_document_said, asked_on_document_html

    quote = QuoteSpan("x.md", 27, 42)
    asked = Asked("fixed:30", "bm25", 2, (AskedChunk(1, "x.md", 35, 77, 3.5), AskedChunk(2, "x.md", 0, 35, None),
                                          AskedChunk(3, "y.md", 0, 4, 1.0)), Landing("cut", (1, 2), "cut"))
    assert answer_document(asked, quote) == "x.md" and answer_document(asked, None) == "x.md"
    out = asked_on_document_html(asked, HOSTILE, quote)
    assert "<script>" not in out and "<img" not in out
    assert _plain(out) == HOSTILE.text, "every character drawn once, in order"
    assert out.index('data-label="">#2</span>') < out.index('data-label="">#1 · 3.500</span>'), "in text order"
    assert out.count('<mark class="ci-quote">') == 2, "the quote marked in each chunk holding a piece"
    assert 'class="ci-hit" title="retrieved chunk #2"' in out and 'class="ci-hit ci-hit-b" title="retrieved ' \
                                                                   'chunk #1"' in out, "neighbours in two shades"
    assert "1 more from other documents" in answer_document_said(asked, quote)
    elsewhere = asked_on_document_html(asked, Document("z.md", "nothing here"), None)
    assert "No retrieved chunk comes from z.md" in elsewhere


def test_a_long_document_is_drawn_around_its_chunks_only():
    from inspector.views.asking import AROUND, asked_on_document_html

    text = "a" * 10_000 + "THE ANSWER" + "b" * 10_000 + "LATER" + "c" * 5_000
    asked = Asked("fixed:10", "bm25", 2, (AskedChunk(1, "long.md", 10_000, 10_010, 2.0),
                                          AskedChunk(2, "long.md", 20_010, 20_015, 1.0)), None)
    out = asked_on_document_html(asked, Document("long.md", text))
    drawn = _plain(out)
    assert drawn == text[10_000 - AROUND:10_010 + AROUND] + text[20_010 - AROUND:20_015 + AROUND]
    assert out.count('class="ci-skip"') == 3
    assert "[… 9,700 characters not drawn …]" in out and "[… 4,700 characters not drawn …]" in out
