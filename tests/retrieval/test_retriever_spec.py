"""``inspector.retrieval.retriever_spec``: retrievers named by short strings that round-trip."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.errors import InspectorError, RetrieverError
from inspector.retrieval.retriever_spec import MAX_RETRIEVER_SPEC, RetrieverSpec, parse_retriever

NAME_CHARACTERS = st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_categories=("Cc", "Cs"))
MODELS = st.text(NAME_CHARACTERS, min_size=1, max_size=40).filter(
    lambda m: m == m.strip() and "|rerank=" not in m and not m.endswith("|late"))
SPECS = st.one_of(
    st.just(RetrieverSpec()),
    st.builds(RetrieverSpec, st.sampled_from(["dense", "hybrid"]), st.sampled_from(["wordllama", "minilm"])),
    st.builds(RetrieverSpec, st.sampled_from(["dense", "hybrid"]), st.sampled_from(["model2vec", "openai"]), MODELS),
    st.builds(RetrieverSpec, st.sampled_from(["dense", "hybrid"]), st.just("onnx"), MODELS, late=st.booleans()),
    st.builds(RetrieverSpec, st.sampled_from(["dense", "hybrid"]), st.just("minilm"), late=st.booleans(),
              reranker=st.sampled_from(["", "tei", "cohere:rerank-v3.5"])),
)


@given(SPECS)
def test_every_retriever_spec_reads_back_from_its_string(spec):
    assert RetrieverSpec.parse(str(spec)) == spec
    assert parse_retriever(str(spec)) == spec == parse_retriever(spec)


def test_a_model_holding_the_rerank_separator_is_refused_as_its_string_could_not_say_where_it_ends():
    with pytest.raises(RetrieverError, match="cannot hold '\\|rerank='"):
        RetrieverSpec("dense", "model2vec", "|rerank=")
    with pytest.raises(RetrieverError, match="or end with '\\|late'"):
        RetrieverSpec("dense", "onnx", "models/m|late")
    assert parse_retriever("dense:model2vec:models/m|rerank=tei") == RetrieverSpec("dense", "model2vec", "models/m",
                                                                                   "tei")


@pytest.mark.parametrize(("text", "kind", "embedder", "model", "label"), [
    ("bm25", "bm25", "", "", "BM25"),
    ("dense", "dense", "wordllama", "", "dense (wordllama)"),
    ("dense:wordllama", "dense", "wordllama", "", "dense (wordllama)"),
    ("hybrid", "hybrid", "wordllama", "", "hybrid (BM25 + wordllama)"),
    ("hybrid:dense", "hybrid", "wordllama", "", "hybrid (BM25 + wordllama)"),
    ("dense:minilm", "dense", "minilm", "", "dense (minilm)"),
    ("hybrid:dense:minilm", "hybrid", "minilm", "", "hybrid (BM25 + minilm)"),
    ("dense:model2vec:models/potion-8M/", "dense", "model2vec", "models/potion-8M/", "dense (model2vec potion-8M)"),
    ("dense:openai:text-embedding-3-small", "dense", "openai", "text-embedding-3-small",
     "dense (openai text-embedding-3-small)"),
    ("hybrid:dense:openai:nomic-embed-text:v1.5", "hybrid", "openai", "nomic-embed-text:v1.5",
     "hybrid (BM25 + openai nomic-embed-text:v1.5)"),
    ("  hybrid:dense:model2vec:C:\\models\\m  ", "hybrid", "model2vec", "C:\\models\\m", None),
])
def test_the_short_forms_read_as_documented(text, kind, embedder, model, label):
    spec = RetrieverSpec.parse(text)
    assert (spec.kind, spec.embedder, spec.model) == (kind, embedder, model)
    if label:
        assert spec.label == label


@pytest.mark.parametrize("text, embeds", [("bm25", False), ("dense", True), ("hybrid", True),
                                          ("dense:minilm|late", False), ("dense|rerank=tei", True)])
def test_an_index_embeds_its_chunks_unless_it_ranks_words_or_pools_token_vectors(text, embeds):
    assert RetrieverSpec.parse(text).embeds_chunks is embeds


def test_the_dense_part_of_a_hybrid_is_the_dense_spec_it_fuses():
    hybrid = RetrieverSpec.parse("hybrid:dense:model2vec:/m")
    assert hybrid.dense == RetrieverSpec.parse("dense:model2vec:/m")
    assert RetrieverSpec.parse("dense").dense == RetrieverSpec.parse("dense")
    assert RetrieverSpec().dense is None and RetrieverSpec().is_default
    assert parse_retriever(None) == RetrieverSpec() and str(parse_retriever(None)) == "bm25"
    assert not hybrid.is_default


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty retriever"),
    ("   ", "empty retriever"),
    ("bm25:fast", "bm25 takes no options"),
    ("colbert", "cannot read retriever 'colbert'"),
    ("dense:sbert:all-MiniLM", "unknown embedder 'sbert'"),
    ("dense:model2vec", "model2vec needs a model: dense:model2vec:PATH"),
    ("dense:model2vec:   ", "model2vec needs a model"),
    ("dense:openai:", "openai needs a model: dense:openai:MODEL"),
    ("dense:wordllama:big", "takes no model name"),
    ("dense:minilm:all-MiniLM-L12-v2", "minilm is one model and takes no model name"),
    ("hybrid:bm25", "hybrid fuses BM25 with a dense retriever"),
    ("dense:openai:a\x00b", "control characters"),
    ("dense:model2vec:a\nb", "control characters"),
    ("x" * (MAX_RETRIEVER_SPEC + 1), "at most 1000 characters"),
])
def test_a_malformed_retriever_is_refused_with_the_reason(text, reason):
    with pytest.raises(RetrieverError, match=reason.replace("(", r"\(").replace(")", r"\)")) as caught:
        RetrieverSpec.parse(text)
    assert isinstance(caught.value, (InspectorError, ValueError))


def test_a_spec_built_by_hand_is_checked_like_a_parsed_one():
    with pytest.raises(RetrieverError, match="unknown retriever"):
        RetrieverSpec("splade")
    with pytest.raises(RetrieverError, match="bm25 takes no embedding model"):
        RetrieverSpec("bm25", "openai", "m")
    assert RetrieverSpec("dense", "openai", "m").problem() is None
    with pytest.raises(RetrieverError, match="begin or end with spaces"):
        RetrieverSpec("dense", "openai", "m\u00a0")
