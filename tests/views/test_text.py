"""``inspector.views.text``: untrusted text shown exactly as written, first words, chunk numbers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

from inspector.views.text import chunk_numbers, first_words, markdown_escape


def test_first_words():
    assert first_words("a  b\nc", 2) == "a b …"
    assert first_words("one two", 5) == "one two"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp", "Zs")) | st.just(" "),
               max_size=60))
def test_markdown_escape_shows_text_exactly_as_written(text):
    """Rendered as CommonMark (Streamlit's markdown is a superset), escaped text is one plain
    paragraph holding exactly the text: no link, image, HTML, emphasis or heading survives."""
    text = text.strip(" ")
    rendered = MarkdownIt("commonmark").render(markdown_escape(text))
    assert rendered == (f"<p>{escapeHtml(text)}</p>\n" if text else "")


@pytest.mark.parametrize("text", ["[x](javascript:alert(1))", "![t](https://evil.example/t.png)", "<b>x</b>",
                                  "# title", "1. item", "$x^2$", ":red[alert]", "www.evil.example", "a_b_c"])
def test_markdown_escape_defuses_markup(text):
    escaped = markdown_escape(text)
    assert MarkdownIt("commonmark").render(escaped) == f"<p>{escapeHtml(text)}</p>\n"
    for directive in ("$", ":", "www."):  # Streamlit-only syntax: maths, colours, bare links
        assert escaped.count(directive) == 0 or f"\\{directive[0]}" in escaped


def test_chunk_numbers_read_as_ranges_and_stay_short():
    assert chunk_numbers(range(14_955)) == "#1–#14955"
    assert chunk_numbers([6, 0, 1, 2, 7]) == "#1–#3, #7, #8"
    assert chunk_numbers([0, 1]) == "#1, #2"
    assert chunk_numbers([]) == ""
    many = chunk_numbers(range(0, 40_000, 2))
    assert many == "#1, #3, #5, #7, #9, #11, #13, #15 and 19,992 more"
    assert len(chunk_numbers(range(0, 10**6, 3))) < 80


def test_page_label_reads_as_people_cite_pages():
    from inspector.views.text import page_label

    assert (page_label((2, 2)), page_label((1, 3)), page_label(None)) == ("p. 2", "pp. 1–3", "")
