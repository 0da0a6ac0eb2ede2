"""``inspector.views.retrievers``: what a link may choose is the server's to allow."""

from __future__ import annotations

import os

import pytest

from inspector.errors import RetrieverError
from inspector.views.retrievers import ENV_MODELS, ENV_TRANSFORMERS, checked_retriever, retriever_choices
from inspector.views.state import AppState
from tests.support.embedding import write_tiny_model2vec


def test_the_built_in_retrievers_need_nothing_from_the_server():
    assert retriever_choices({}) == ["bm25", "dense", "hybrid"]
    for text in ("bm25", "dense", "hybrid"):
        assert str(checked_retriever(text, {})) == text


def test_a_transformer_runs_on_pages_only_where_the_server_says_so():
    for text in ("dense:minilm", "hybrid:dense:minilm", "dense:minilm|late"):
        with pytest.raises(RetrieverError, match="set CHUNK_INSPECTOR_TRANSFORMERS=minilm"):
            checked_retriever(text, {})
    environ = {ENV_TRANSFORMERS: "minilm"}
    assert retriever_choices(environ) == ["bm25", "dense", "hybrid", "dense:minilm", "hybrid:dense:minilm",
                                         "dense:minilm|late"]
    assert str(checked_retriever("hybrid:dense:minilm", environ)) == "hybrid:dense:minilm"
    assert retriever_choices({ENV_TRANSFORMERS: "bert, e5"}) == ["bm25", "dense", "hybrid"]


def test_model_folders_are_read_only_under_the_model_roots(tmp_path):
    model = write_tiny_model2vec(tmp_path / "models" / "tiny")
    (tmp_path / "models" / "not-a-model").mkdir()
    environ = {ENV_MODELS: os.pathsep.join([str(tmp_path / "models"), str(tmp_path / "missing")])}
    assert retriever_choices(environ) == ["bm25", "dense", "hybrid", f"dense:model2vec:{model}",
                                          f"hybrid:dense:model2vec:{model}"]
    assert checked_retriever(f"hybrid:dense:model2vec:{model}", environ).model == str(model)
    outside = write_tiny_model2vec(tmp_path / "elsewhere")
    for text in (f"dense:model2vec:{outside}", f"dense:model2vec:{tmp_path}/models/../elsewhere"):
        with pytest.raises(RetrieverError, match="read only under CHUNK_INSPECTOR_MODELS"):
            checked_retriever(text, environ)
    with pytest.raises(RetrieverError, match="reads no model folders"):
        checked_retriever(f"dense:model2vec:{model}", {})


def test_a_symlink_out_of_the_model_roots_is_refused(tmp_path):
    outside = write_tiny_model2vec(tmp_path / "elsewhere")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "link").symlink_to(outside)
    with pytest.raises(RetrieverError, match="read only under"):
        checked_retriever(f"dense:model2vec:{tmp_path}/models/link", {ENV_MODELS: str(tmp_path / "models")})
    assert retriever_choices({ENV_MODELS: str(tmp_path / "models")}) == ["bm25", "dense", "hybrid"]


def test_a_hosted_embedder_needs_the_servers_base_url_and_a_model_it_allows():
    with pytest.raises(RetrieverError, match="set OPENAI_BASE_URL"):
        checked_retriever("dense:openai:text-embedding-3-small", {})
    server = {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
    with pytest.raises(RetrieverError, match="names no embeddings model a link may use"):
        checked_retriever("dense:openai:text-embedding-3-small", server)
    allowed = {**server, "CHUNK_INSPECTOR_EMBED_MODELS": "text-embedding-3-small"}
    assert checked_retriever("dense:openai:text-embedding-3-small", allowed).model == "text-embedding-3-small"
    with pytest.raises(RetrieverError, match="a link cannot name 'any-name'"):
        checked_retriever("dense:openai:any-name", allowed)
    with pytest.raises(RetrieverError, match="a link cannot name"):
        checked_retriever("hybrid:dense:openai:any-name", allowed)
    assert "dense:openai:text-embedding-3-small" in retriever_choices(allowed)


def test_the_retriever_travels_in_the_link_and_bm25_leaves_it_out():
    state = AppState(retriever="hybrid")
    assert state.to_query_params()["retriever"] == "hybrid"
    assert AppState.from_query_params(state.to_query_params())[0] == state
    assert "retriever" not in AppState().to_query_params()
    kept, problems = AppState.from_query_params({"retriever": "dense:wordllama"})
    assert kept.retriever == "dense" and problems == []
