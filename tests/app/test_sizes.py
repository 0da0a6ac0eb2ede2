"""The Chunk sizes page under AppTest: the chunks an embedder's cap would truncate."""

from __future__ import annotations

from inspector import Workspace, get_length
from inspector.views.frames import size_summary, sizes_frame
from tests.support.app import (
    SAMPLE,
    app,
    assert_clean,
    metrics,
    warnings,
)


def test_sizes_page_lists_chunks_over_the_cap():
    at = app({"cap": "200"})
    at.switch_page("app_pages/sizes.py").run()
    assert_clean(at)
    expected = size_summary(sizes_frame(Workspace(SAMPLE), "structured:800", get_length("o200k")), 200)
    assert metrics(at)["Over the cap"] == str(len(expected.over_cap)) != "0"
    over = at.dataframe[-1].value
    assert list(over.columns) == ["doc", "chunk", "tokens", "first words"]
    assert list(over["tokens"]) == list(expected.over_cap["tokens"])
    at.number_input(key="cap").set_value(100_000).run()
    assert metrics(at)["Over the cap"] == "0"
    assert at.query_params["cap"] == "100000"


def test_an_unknown_embedder_in_the_link_is_refused_with_a_warning_and_leaves_the_url():
    at = app({"embedder": "bogus", "cap": "300"})
    at.switch_page("app_pages/sizes.py").run()
    assert_clean(at)
    assert any("Embedder tokenizer in the link ignored" in w for w in warnings(at)), warnings(at)
    assert at.selectbox(key="embed").value == "o200k"
    assert "embedder" not in at.query_params and at.query_params["cap"] == "300"


def test_the_embedder_in_the_link_is_the_one_used():
    at = app({"embedder": "cl100k"})
    at.switch_page("app_pages/sizes.py").run()
    assert_clean(at)
    assert at.selectbox(key="embed").value == "cl100k"
    assert at.query_params["embedder"] == "cl100k"


def test_with_minilm_as_the_retriever_the_sizes_are_its_word_pieces_against_its_cap(monkeypatch):
    from inspector.retrieval.minilm import MiniLM

    monkeypatch.setenv("CHUNK_INSPECTOR_TRANSFORMERS", "minilm")
    at = app({"retriever": "dense:minilm"})
    at.switch_page("app_pages/sizes.py").run()
    assert_clean(at)
    assert (at.selectbox(key="embed").value, at.number_input(key="cap").value) == ("minilm", 256)
    over = MiniLM().over_cap(Workspace(SAMPLE).pool("structured:800").texts())
    assert metrics(at)["Over the cap"] == str(sum(over)) != "0", "the model's own count of what it cuts"
    assert (at.query_params["embedder"], at.query_params["cap"]) == ("minilm", "256"), "a link shows the same"
    monkeypatch.delenv("CHUNK_INSPECTOR_TRANSFORMERS")
    plain = app({"retriever": "bm25"})
    plain.switch_page("app_pages/sizes.py").run()
    assert (plain.selectbox(key="embed").value, plain.number_input(key="cap").value) == ("o200k", 512)
