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
