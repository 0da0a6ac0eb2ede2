"""``inspector.show``: one text and its chunks, whatever made them, drawn with the cuts in red."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import inspector
from inspector.split.splitters import split_document
from inspector.views.notebook import Shown

TEXT = ("# Limits\n\nThe queue holds 4,096 messages per partition and drops 2% of them under load.\n\n"
        "```python\nfor message in queue:\n    handle(message)\n    acknowledge(message)\n```\n\n"
        "| limit | value |\n|---|---|\n| partitions | 64 |\n| retention | 7 days |\n")
CODE = TEXT.index("```python")


def _spans(shown: Shown) -> list[tuple[int, int]]:
    return [(c.start, c.end) for c in shown.chunks]


def test_a_spec_splits_the_text_as_the_splitter_does():
    shown = inspector.show("fixed:60", TEXT)
    assert _spans(shown) == [(c.start, c.end) for c in split_document(shown.document, "fixed:60").chunks]
    assert shown.cuts and shown.problems == ()
    assert str(len(shown.cuts)) + " bisected atoms" in shown.summary()


def test_spans_strings_and_offsets_place_where_they_say():
    middle = CODE + 20
    assert _spans(inspector.show([(0, middle), (middle, len(TEXT))], TEXT)) == [(0, middle), (middle, len(TEXT))]
    strings = [TEXT[:middle], TEXT[middle:]]
    shown = inspector.show(strings, TEXT)
    assert _spans(shown) == [(0, middle), (middle, len(TEXT))]
    assert [c.kind for c in shown.cuts] == ["code"]


def test_chunks_not_placed_as_given_are_listed_by_kind_never_guessed():
    shown = inspector.show([TEXT[:40], "a sentence that is nowhere in the text", 42, {"start": 5, "end": 2}], TEXT)
    kinds = sorted(p.kind for p in shown.problems)
    assert "not-found" in kinds and "malformed" in kinds
    assert _spans(shown) == [(0, 40)]
    assert "not placed as given" in shown.summary()
    fragment = shown.fragment()
    assert "<b>not-found</b> line 2" in fragment and "<b>malformed</b> line 3" in fragment


def test_langchain_documents_are_placed_by_their_start_index():
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=80, chunk_overlap=20, add_start_index=True)
    documents = splitter.create_documents([TEXT], metadatas=[{"source": "limits.md"}])
    shown = inspector.show(documents, TEXT)
    assert shown.problems == ()
    assert _spans(shown)[0][0] == documents[0].metadata["start_index"] == 0
    assert len(shown.chunks) == len({(d.metadata["start_index"], d.page_content) for d in documents})


def test_llamaindex_nodes_and_chonkie_chunks_are_placed_by_their_offsets():
    from chonkie import RecursiveChunker
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    nodes = SentenceSplitter(chunk_size=40, chunk_overlap=0).get_nodes_from_documents([Document(text=TEXT)])
    shown = inspector.show(nodes, TEXT)
    assert shown.problems == () and _spans(shown) == [(n.start_char_idx, n.end_char_idx) for n in nodes]
    pieces = RecursiveChunker(chunk_size=32).chunk(TEXT)
    shown = inspector.show(pieces, TEXT)
    assert shown.problems == () and _spans(shown) == [(c.start_index, c.end_index) for c in pieces]


def test_the_page_escapes_the_text_and_lets_no_script_run(tmp_path):
    hostile = "# <script>alert(1)</script>\n\n<img src=x onerror=alert(2)> costs 40% more.\n"
    path = inspector.show("fixed:20", hostile).save(tmp_path / "shown.html")
    page = path.read_text(encoding="utf-8")
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "&lt;img" in page
    assert re.search(r'http-equiv="Content-Security-Policy" content="default-src \'none\'', page)


def test_the_notebook_form_is_the_fragment():
    shown = inspector.show("structured:80", TEXT)
    assert shown._repr_html_() == shown.fragment()
    assert shown.fragment().startswith('<div class="ci-shown">') and "<html" not in shown.fragment()


def test_a_text_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError, match="a text"):
        inspector.show("fixed:10", b"bytes")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, len(TEXT)), min_size=1, max_size=6))
def test_any_cut_points_cover_the_text_and_strip_back_to_it(points):
    edges = sorted({0, len(TEXT), *points})
    spans = list(zip(edges, edges[1:]))
    shown = inspector.show(spans, TEXT)
    assert _spans(shown) == spans
    # Every character of the text is in the page once, escaped; the labels are marked data-label.
    body = re.sub(r'<(\w+)[^>]*data-label=""[^>]*>.*?</\1>', "", shown.fragment().split("</style>", 1)[1], flags=re.S)
    text = re.sub(r"<[^>]+>", "", body)
    assert text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("&quot;", '"') \
        .replace("&#x27;", "'").startswith(TEXT)


def test_one_chunk_is_counted_in_the_singular():
    fragment = inspector.show([(0, len(TEXT))], TEXT).fragment()
    assert "<b>1 chunk · 0 bisected atoms</b>" in fragment and "1 chunks" not in fragment
    assert "1 chunk, 0 bisected atoms" in fragment
