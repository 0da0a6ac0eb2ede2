"""The pipeline snippets under AppTest: the Document, Compare and Chunk sizes pages show the
sidebar splitter's code (library, LangChain, LlamaIndex, Chonkie, command line)."""

from __future__ import annotations

import pytest

from app_pages.parts.snippets import SECTION
from tests.support.app import app, assert_clean


@pytest.mark.parametrize("page", ["app_pages/document.py", "app_pages/compare.py", "app_pages/sizes.py"])
def test_each_view_shows_the_code_of_its_splitter(page):
    at = app({"spec": "recursive:600+address"})
    at.switch_page(page).run()
    assert_clean(at)
    assert not at.code, "a closed section sends no code"
    at.session_state[SECTION] = True
    at.run()
    code = [c.value for c in at.code]
    assert any("ChunkInspectorSplitter.from_spec('recursive:600+address')" in c for c in code)
    assert any("ChunkInspectorNodeParser.from_spec('recursive:600+address')" in c for c in code)
    assert any("ChunkInspectorChunker('recursive:600+address')" in c for c in code)
    (cli,) = [c for c in code if c.startswith("chunk-inspector export sample_corpus")]
    assert "check sample_corpus --spec recursive:600+address --min code=" in cli


def test_a_splitter_that_embeds_to_split_measures_the_floors_only_when_asked():
    at = app({"spec": "semantic:800"})
    at.session_state[SECTION] = True
    at.run()
    assert_clean(at)
    (cli,) = [c.value for c in at.code if c.value.startswith("chunk-inspector export sample_corpus")]
    assert "--min" not in cli, "nothing measured over the corpus for a closed section"
    at.toggle(key="snippet_floors").set_value(True).run()
    assert_clean(at)
    (cli,) = [c.value for c in at.code if c.value.startswith("chunk-inspector export sample_corpus")]
    assert "check sample_corpus --spec semantic:800 --min code=" in cli
