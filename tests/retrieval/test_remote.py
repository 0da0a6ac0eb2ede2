"""``inspector.retrieval.remote``: an OpenAI-compatible embeddings client against a server the
test starts on 127.0.0.1: batching, retries with back-off, refusals and bad answers."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from inspector.errors import EmbeddingServiceError, InspectorError, RetrieverError
from inspector.retrieval.opening import open_retriever
from inspector.retrieval.ranking import DenseRetriever, Question
from inspector.retrieval.remote import OpenAIEmbeddings, base_url_of
from tests.support.embedding import EmbeddingServer, hashed_vector


def client(url, **options):
    pauses = []
    options.setdefault("sleep", pauses.append)
    embedder = OpenAIEmbeddings("test-embed", url, api_key=options.pop("api_key", "sk-test"), **options)
    return embedder, pauses


def test_texts_go_in_batches_and_come_back_in_order():
    with EmbeddingServer() as server:
        embedder, pauses = client(server.url, batch=3)
        texts = [f"text {i}" for i in range(7)]
        vectors = embedder.embed(texts)
    assert [len(r["input"]) for r in server.requests] == [3, 3, 1]
    assert all(r["model"] == "test-embed" for r in server.requests)
    assert np.allclose(vectors, np.asarray([hashed_vector(t) for t in texts], dtype=np.float32))
    assert server.headers[0]["Authorization"] == "Bearer sk-test" and pauses == []
    assert embedder.requests == 3 and embedder.model_id == f"openai/{server.url}/embeddings/test-embed"


def test_no_key_sends_no_authorization_header():
    with EmbeddingServer() as server:
        client(server.url, api_key="")[0].embed(["a"])
    assert "Authorization" not in server.headers[0]


def test_busy_and_failing_answers_are_retried_with_growing_pauses():
    script = [(503, {"error": {"message": "loading model"}}, {}),
              (429, {"error": {"message": "slow down"}}, {"Retry-After": "2"}),
              (500, b"oops", {})]
    with EmbeddingServer(script) as server:
        embedder, pauses = client(server.url, first_pause=0.5)
        vectors = embedder.embed(["a", "b"])
    assert vectors.shape == (2, 8) and len(server.requests) == 4
    assert pauses == [0.5, 2.0, 4.0], "doubling back-off, raised to the server's Retry-After"


def test_a_server_that_stays_busy_is_given_up_on_with_its_reason():
    script = [(503, {"error": {"message": "overloaded"}}, {})] * 3
    with EmbeddingServer(script) as server:
        embedder, pauses = client(server.url, attempts=3)
        with pytest.raises(EmbeddingServiceError, match=r"did not answer after 3 attempts \(HTTP 503: overloaded\)"):
            embedder.embed(["a"])
    assert len(pauses) == 2


def test_a_refusal_stops_at_once_with_the_servers_words():
    script = [(400, {"error": {"message": "model 'test-embed' not found"}}, {})]
    with EmbeddingServer(script) as server:
        embedder, pauses = client(server.url)
        said = "refused test-embed with HTTP 400: model 'test-embed' not found"
        with pytest.raises(EmbeddingServiceError, match=said):
            embedder.embed(["a"])
    assert len(server.requests) == 1 and pauses == []


def test_a_wrong_path_is_a_refusal_too():
    with EmbeddingServer() as server:
        embedder, _ = client(server.url.removesuffix("/v1"))
        with pytest.raises(EmbeddingServiceError, match="HTTP 404: no route /embeddings"):
            embedder.embed(["a"])


@pytest.mark.parametrize("body", [
    b"not json",
    {"data": "nope"},
    {"data": [{"index": 0, "embedding": [0.1, 0.2]}]},  # one vector for two texts
    {"data": [{"index": 0, "embedding": [0.1]}, {"index": 0, "embedding": [0.2]}]},
    {"data": [{"index": 0, "embedding": ["x"]}, {"index": 1, "embedding": [0.2]}]},
    {"error": "no data"},
])
def test_an_answer_not_in_openais_format_is_an_error(body):
    with EmbeddingServer([(200, body, {})]) as server:
        with pytest.raises(EmbeddingServiceError, match="did not answer 2 embeddings in OpenAI's format"):
            client(server.url)[0].embed(["a", "b"])


def test_vectors_of_different_lengths_are_an_error():
    answers = [(200, {"data": [{"index": 0, "embedding": [0.1, 0.2]}]}, {}),
               (200, {"data": [{"index": 0, "embedding": [0.1]}]}, {})]
    with EmbeddingServer(answers) as server:
        with pytest.raises(EmbeddingServiceError, match="different lengths"):
            client(server.url, batch=1)[0].embed(["a", "b"])


def test_an_unreachable_server_is_a_clear_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    embedder, pauses = client(f"http://127.0.0.1:{port}/v1", attempts=2)
    with pytest.raises(EmbeddingServiceError, match=f"server at http://127.0.0.1:{port}/v1/embeddings did not answer "
                                                    "after 2 attempts") as caught:
        embedder.embed(["a"])
    assert isinstance(caught.value, (InspectorError, OSError)) and pauses == [0.5]


def test_the_base_url_comes_from_the_argument_then_the_environment():
    assert base_url_of("http://127.0.0.1:11434/v1/", {}) == "http://127.0.0.1:11434/v1"
    assert base_url_of(None, {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}) == "http://127.0.0.1:8000/v1"
    assert base_url_of(None, {}) == "https://api.openai.com/v1"
    for bad in ("ftp://x", "file:///etc/passwd", "http://a b", "127.0.0.1:8000"):
        with pytest.raises(RetrieverError, match="starts with http"):
            base_url_of(bad, {})


def test_a_dense_openai_retriever_ranks_through_the_server(monkeypatch, sample_markdown, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    with EmbeddingServer() as server:
        retriever = open_retriever("dense:openai:test-embed", base_url=server.url, cache_folder=tmp_path)
        assert isinstance(retriever, DenseRetriever)
        pool = sample_markdown.pool("structured:800")
        text = pool.texts()[2]
        assert retriever.rank([Question(text, ())], pool, 1) == [[2]]
        sent = sum(len(r["input"]) for r in server.requests)
        assert server.headers[0]["Authorization"] == "Bearer sk-env"
        again = open_retriever("dense:openai:test-embed", base_url=server.url, cache_folder=tmp_path)
        again.rank([Question(text, ())], pool, 1)
        assert sum(len(r["input"]) for r in server.requests) == sent, "the second run comes from the cache"


@pytest.mark.parametrize(("number", "reason"), [(b"NaN", "NaN is not a number"), (b"Infinity", "Infinity is not"),
                                                (b"-Infinity", "Infinity is not"), (b"1e999", "out of range"),
                                                (b"9" * 400, "400 digits")])
def test_a_number_that_is_not_a_finite_number_is_refused_with_the_servers_name(number, reason):
    body = b'{"data": [{"index": 0, "embedding": [0.1, ' + number + b']}]}'
    with EmbeddingServer([(200, body, {})]) as server:
        with pytest.raises(EmbeddingServiceError, match=reason) as caught:
            client(server.url)[0].embed(["a"])
    assert server.url in str(caught.value)


def test_vectors_wider_than_any_model_are_refused_before_they_are_held():
    with EmbeddingServer(width=9_000) as server:
        with pytest.raises(EmbeddingServiceError, match="9,000 dimensions"):
            client(server.url)[0].embed(["a", "b"])
    wide = b'{"data": [{"index": 0, "embedding": [' + b"0," * 300_000 + b'0]}]}'  # 600 kB for one text
    with EmbeddingServer([(200, wide, {})]) as server:
        with pytest.raises(EmbeddingServiceError, match="answered more than"):
            client(server.url)[0].embed(["a"])
