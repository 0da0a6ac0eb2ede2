"""A reranker in the app (AppTest): offered only when the server names one and knows where it is;
a page reranked by the loopback server says first what it may send; a link naming any other
reranker, or a deeper one, is refused with the reason."""

from __future__ import annotations

import pytest

from inspector.retrieval.retriever_spec import parse_retriever
from inspector.views.retrievers import ENV_RERANKERS, retriever_choices, retriever_problem
from tests.support.app import app, assert_clean, plain
from tests.support.rerank import RerankServer


@pytest.fixture(autouse=True)
def data_folder(isolated_app, monkeypatch):
    monkeypatch.delenv(ENV_RERANKERS, raising=False)
    monkeypatch.delenv("CHUNK_INSPECTOR_RERANK_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return isolated_app


def probe_table(at):
    return next(d.value for d in at.dataframe if "answer@5" in d.value.columns and "rank miss" in d.value.columns)


def test_only_the_rerankers_the_server_names_are_offered():
    environ = {ENV_RERANKERS: "tei; cohere:rerank-v3.5; colbert; jina", "CHUNK_INSPECTOR_RERANK_URL": "http://r:80"}
    choices = retriever_choices(environ)
    assert "bm25|rerank=tei" in choices and "hybrid|rerank=cohere:rerank-v3.5" in choices
    assert not any("colbert" in c or "rerank=jina" in c for c in choices), "unknown or model-less ones are left out"
    assert retriever_problem(parse_retriever("bm25|rerank=vllm:m"), environ) == \
        "this server offers the rerankers tei, cohere:rerank-v3.5 only"
    assert "at most 50" in retriever_problem(parse_retriever("bm25|rerank=tei@500"), environ)
    assert "offers no reranker" in retriever_problem(parse_retriever("bm25|rerank=tei"), {})
    assert retriever_choices({ENV_RERANKERS: "tei"}) == ["bm25", "dense", "hybrid"], "tei needs its address"


def test_a_link_naming_a_reranker_the_server_lacks_is_refused():
    at = app({"retriever": "bm25|rerank=tei"})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.selectbox(key="retriever").value == "bm25"
    assert any("offers no reranker" in plain(w.value) for w in at.warning)


def test_compare_reranks_table_b_and_says_what_it_may_send(monkeypatch):
    with RerankServer("tei") as server:
        monkeypatch.setenv(ENV_RERANKERS, "tei")
        monkeypatch.setenv("CHUNK_INSPECTOR_RERANK_URL", server.root)
        at = app({"retriever": "bm25", "cmp": ["fixed:400"]})
        at.switch_page("app_pages/compare.py").run()
        plain_rows = probe_table(at)
        at.selectbox(key="retriever").set_value("bm25|rerank=tei").run()
        assert_clean(at)
        assert at.query_params["retriever"] == "bm25|rerank=tei"
        assert any("may send up to 10,000 texts (200 requests, one a question) to the reranker tei" in plain(c.value)
                   for c in at.caption)
        assert not server.requests, "above the server's threshold: nothing is sent before the click"
        at.button(key="confirm_spend_rerank").click().run()
        assert_clean(at)
        assert not at.error, [e.value for e in at.error]
        reranked = probe_table(at)
    assert server.requests, "the page asked the reranker"
    assert list(reranked["answer@5"]) != list(plain_rows["answer@5"]) or \
        list(reranked["ctx tokens"]) != list(plain_rows["ctx tokens"])
