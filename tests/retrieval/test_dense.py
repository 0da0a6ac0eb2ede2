"""Dense and hybrid retrieval: the bundled model offline, cosine ranking checked by brute force,
reciprocal rank fusion by hand, and model2vec folders."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

from inspector.errors import RetrieverError
from inspector.retrieval.embedders import Model2Vec, WordLlama
from inspector.retrieval.golden_files import load_golden
from inspector.retrieval.opening import open_retriever
from inspector.retrieval.ranking import RRF_K, DenseRetriever, HybridRetriever, Question, Retriever
from inspector.retrieval.retriever_spec import RetrieverSpec
from inspector.retrieval.vectors import Vectors
from tests.support.embedding import CountingEmbedder, write_tiny_model2vec
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return write_tiny_model2vec(tmp_path_factory.mktemp("models") / "tiny")


def test_the_bundled_model_embeds_offline_from_its_wheel():
    model = WordLlama()  # the suite's sockets reach only 127.0.0.1: a download would fail
    vectors = model.embed(["The admin listener binds port 7440.", "Tea gardens in the rain."])
    assert vectors.shape == (2, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert model.model_id.startswith("wordllama-0.4.0") and model.model_id.endswith("l2_supercat_256")


def brute_force_scores(question: str, texts: list[str], embedder) -> list[float]:
    """Cosine of the raw vectors, one pair at a time, in plain Python floats."""
    q = [float(x) for x in embedder.embed([question])[0]]
    out = []
    for row in embedder.embed(texts):
        c = [float(x) for x in row]
        dot = sum(a * b for a, b in zip(q, c))
        norms = math.sqrt(sum(a * a for a in q)) * math.sqrt(sum(b * b for b in c))
        out.append(dot / norms if norms else 0.0)
    return out


def test_the_dense_ranking_is_the_brute_force_cosine_ranking(sample_markdown):
    pool = sample_markdown.pool("structured:800")
    golden = load_golden(SAMPLE / "golden-questions.jsonl", sample_markdown)
    questions = [item.question for item in golden.items[:8]]
    embedder = WordLlama()
    retriever = DenseRetriever(RetrieverSpec.parse("dense"), Vectors(embedder))
    rankings = retriever.rank([Question.of(q) for q in questions], pool, None)
    texts = pool.texts()
    for question, ranking in zip(questions, rankings):
        scores = brute_force_scores(question, texts, embedder)
        assert sorted(ranking) == list(range(len(pool))), "dense ranks every chunk once"
        best_first = sorted(scores, reverse=True)
        for rank, j in enumerate(ranking):
            assert scores[j] == pytest.approx(best_first[rank], abs=1e-6), (question, rank)
        top = ranking[0]
        assert scores[top] == pytest.approx(max(scores), abs=1e-6)


def test_dense_ranking_keeps_only_k_and_breaks_ties_by_chunk_order(sample_markdown):
    pool = sample_markdown.pool("fixed:400")
    retriever = DenseRetriever(RetrieverSpec.parse("dense"), Vectors(CountingEmbedder()))
    text = pool.texts()[3]
    ranking = retriever.rank([Question("x", ()), Question(text, ())], pool, 4)
    assert [len(r) for r in ranking] == [4, 4]
    assert ranking[1][0] == 3 or pool.texts()[ranking[1][0]] == text, "a chunk's own text is its best match"
    twins = [j for j, t in enumerate(pool.texts()) if t == text]
    assert ranking[1][:len(twins)] == twins[:4]


class Fixed(Retriever):
    """Rankings given by hand."""

    def __init__(self, rankings):
        self.rankings = rankings

    def rank(self, asks, pool, k):
        return [list(r) if k is None else list(r)[:k] for r in self.rankings[:len(asks)]]


class FakePool:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def test_hybrid_fuses_ranks_as_reciprocal_rank_fusion_with_k_60():
    hybrid = HybridRetriever(RetrieverSpec.parse("hybrid"), Fixed([[0, 1, 3, 2], [1, 0, 2, 3]]))
    hybrid.bm25 = Fixed([[2, 0], [0, 1]])  # BM25 ranks only chunks sharing a term
    first, second = hybrid.rank([Question("a", ("a",)), Question("b", ("b",))], FakePool(4), None)
    # chunk 0: 1/(60+2) + 1/(60+1) = .03252; chunk 2: 1/61 + 1/64 = .03202; chunk 1: 1/62; chunk 3: 1/63
    assert RRF_K == 60
    assert first == [0, 2, 1, 3]
    # chunks 0 and 1 both score 1/61 + 1/62: the tie goes to the earlier chunk
    assert second == [0, 1, 2, 3]
    assert hybrid.rank([Question("a", ("a",))], FakePool(4), 2) == [[0, 2]]


def test_a_model2vec_folder_embeds_and_ranks(tiny_model, sample_markdown):
    model = Model2Vec(tiny_model)
    vectors = model.embed(["admin port", "tea garden weather"])
    assert vectors.shape == (2, 8)
    retriever = open_retriever(f"dense:model2vec:{tiny_model}")
    assert isinstance(retriever, DenseRetriever) and str(retriever.spec) == f"dense:model2vec:{tiny_model}"
    hybrid = open_retriever(f"hybrid:dense:model2vec:{tiny_model}")
    assert isinstance(hybrid, HybridRetriever) and hybrid.dense.spec == retriever.spec
    pool = sample_markdown.pool("structured:800")
    assert len(retriever.rank([Question.of("which port binds")], pool, 5)[0]) == 5


def test_a_model2vec_id_follows_its_files(tiny_model, tmp_path):
    copy = shutil.copytree(tiny_model, tmp_path / "copy")
    assert Model2Vec(copy).model_id == Model2Vec(tiny_model).model_id
    other = write_tiny_model2vec(tmp_path / "other", seed=1)
    assert Model2Vec(other).model_id != Model2Vec(tiny_model).model_id


def test_what_is_not_a_model2vec_folder_is_refused_before_model2vec_sees_it(tiny_model, tmp_path):
    with pytest.raises(RetrieverError, match="not a folder"):
        Model2Vec(tmp_path / "minishlab/potion-base-8M")  # a hub id would be downloaded
    broken = shutil.copytree(tiny_model, tmp_path / "broken")
    (broken / "model.safetensors").unlink()
    with pytest.raises(RetrieverError, match="model.safetensors missing"):
        Model2Vec(broken)
    (broken / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(RetrieverError, match="could not be loaded"):
        Model2Vec(broken)
