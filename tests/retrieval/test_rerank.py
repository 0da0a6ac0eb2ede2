"""Rerankers as users run them, against a server on 127.0.0.1 speaking each service's shape: the
request each sends, the scores read back, retries, refusals and bad answers named, scores kept so
a second run sends nothing, and a retriever's best chunks reordered as the reranker says."""

from __future__ import annotations

import http.server
import threading
import time

import pytest

from inspector.errors import RerankServiceError, RetrieverError, SpendRefused
from inspector.retrieval.opening import open_retriever
from inspector.retrieval.ranking import Question
from inspector.retrieval.rerank import Reranker, rerank_url
from inspector.retrieval.retriever_spec import parse_retriever
from tests.support.rerank import RerankServer, score

TEXTS = ["the admin port is 7440", "tea gardens of the north", "replication uses port 7430 on each node",
         "port"]
QUESTION = "which port does replication use"
EXPECTED = [score(QUESTION, t) for t in TEXTS]


@pytest.mark.parametrize("service, model, path, shape", [
    ("cohere", "rerank-v3.5", "/v2/rerank", "cohere"),
    ("jina", "jina-reranker-v2-base-multilingual", "/v1/rerank", "cohere"),
    ("vllm", "BAAI/bge-reranker-v2-m3", "/v1/rerank", "cohere"),
    ("tei", "", "/rerank", "tei"),
    ("infinity", "mixedbread-ai/mxbai-rerank-xsmall-v1", "/rerank", "cohere"),
    ("infinity", "mixedbread-ai/mxbai-rerank-xsmall-v1", "/rerank", "infinity-old"),
])
def test_each_service_is_asked_in_its_shape_and_read_back(service, model, path, shape):
    with RerankServer(shape) as server:
        reranker = Reranker(service, model, server.root, api_key="rk-1")
        assert reranker.scores(QUESTION, TEXTS) == pytest.approx(EXPECTED)
    ((asked_path, body, headers),) = server.requests
    assert asked_path == path and headers["Authorization"] == "Bearer rk-1"
    if service == "tei":
        assert body == {"query": QUESTION, "texts": TEXTS, "raw_scores": False, "truncate": True}
    else:
        assert body == {"model": model, "query": QUESTION, "documents": TEXTS, "top_n": len(TEXTS)}


def test_scores_are_kept_and_a_second_run_sends_nothing(tmp_path):
    with RerankServer() as server:
        first = Reranker("cohere", "m", server.root, api_key="", cache_folder=tmp_path).scores(QUESTION, TEXTS)
        again = Reranker("cohere", "m", server.root, api_key="", cache_folder=tmp_path)
        assert again.scores(QUESTION, TEXTS) == first and again.requests == 0
        more = again.scores(QUESTION, [*TEXTS, "one more port"])
    assert len(server.requests) == 2 and server.requests[1][1]["documents"] == ["one more port"]
    assert more[:4] == first
    other = Reranker("cohere", "another-model", "http://127.0.0.1:9", cache_folder=tmp_path, attempts=1)
    with pytest.raises(RerankServiceError):
        other.scores(QUESTION, TEXTS[:1])  # another model's scores are not this one's


def test_a_failing_server_is_retried_then_named():
    pauses: list[float] = []
    script = [(503, {"error": {"message": "warming up"}}, {"Retry-After": "2"}), (500, {"error": "boom"}, {})]
    with RerankServer(script=script) as server:
        reranker = Reranker("cohere", "m", server.root, sleep=pauses.append, first_pause=0.5)
        assert reranker.scores(QUESTION, TEXTS) == pytest.approx(EXPECTED)
    assert reranker.requests == 3 and pauses == [2.0, 4.0]
    with RerankServer(script=[(500, {"error": "boom"}, {})] * 3) as server:
        with pytest.raises(RerankServiceError, match=r"the cohere reranker at http://127\.0\.0\.1:\d+/v2/rerank did "
                                                     r"not answer after 3 attempts \(HTTP 500: boom\)"):
            Reranker("cohere", "m", server.root, sleep=lambda _: None, attempts=3).scores(QUESTION, TEXTS)
    with RerankServer(script=[(401, {"error": {"message": "invalid api key"}}, {})]) as server:
        with pytest.raises(RerankServiceError, match="refused rerank m with HTTP 401: invalid api key"):
            Reranker("cohere", "m", server.root).scores(QUESTION, TEXTS)


@pytest.mark.parametrize("answer", [
    {"results": [{"index": 0, "relevance_score": 0.5}]},  # one score for four texts
    {"results": [{"index": i, "relevance_score": "high"} for i in range(4)]},
    {"output": []},
    [1, 2, 3, 4],
    b"not json",
])
def test_an_answer_in_another_shape_is_refused_with_the_shape_expected(answer):
    with RerankServer(script=[(200, answer, {})]) as server:
        with pytest.raises(RerankServiceError, match=r"did not answer a score for each of the 4 texts in the cohere "
                                                     r"reranker's format"):
            Reranker("cohere", "m", server.root).scores(QUESTION, TEXTS)


def test_a_slow_server_times_out_with_a_clear_message():
    class Slow(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            time.sleep(1.5)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        reranker = Reranker("tei", "", f"http://127.0.0.1:{httpd.server_address[1]}", timeout=0.3, attempts=2,
                            sleep=lambda _: None)
        with pytest.raises(RerankServiceError, match=r"the tei reranker at .*/rerank did not answer after 2 attempts"):
            reranker.scores(QUESTION, TEXTS)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_address_comes_from_the_argument_the_environment_or_the_service(monkeypatch):
    monkeypatch.delenv("CHUNK_INSPECTOR_RERANK_URL", raising=False)
    assert rerank_url("cohere") == "https://api.cohere.com/v2/rerank"
    assert rerank_url("jina") == "https://api.jina.ai/v1/rerank"
    with pytest.raises(RetrieverError, match="--rerank-url URL or CHUNK_INSPECTOR_RERANK_URL"):
        rerank_url("tei")
    monkeypatch.setenv("CHUNK_INSPECTOR_RERANK_URL", "http://gpu-box:8080/")
    assert rerank_url("tei") == "http://gpu-box:8080/rerank"
    assert rerank_url("vllm", "http://v:8000/v1/rerank") == "http://v:8000/v1/rerank"
    with pytest.raises(RetrieverError, match="starts with http"):
        rerank_url("tei", "gpu-box:8080")


def test_a_reranked_retriever_reorders_the_best_chunks_as_the_reranker_says(work, tmp_path):
    spec = parse_retriever("bm25|rerank=tei@8")
    pool = work.pool("recursive:400")
    asks = [Question.of(t, pool.table) for t in ("which port does replication use", "how is tea grown")]
    with RerankServer("tei") as server:
        reranked = open_retriever(spec, rerank_url=server.root, cache_folder=tmp_path)
        got = reranked.rank(asks, pool, 12)
    plain = open_retriever("bm25").rank(asks, pool, 12)
    texts = pool.texts()
    for ask, before, after in zip(asks, plain, got):
        top = sorted(before[:8], key=lambda j: (-score(ask.text, texts[j]), before.index(j)))
        assert after == top + before[8:12]
    assert after != before, "the reranker changed the order"
    assert len(server.requests) == 2 and all(len(body["texts"]) == 8 for _, body, _ in server.requests)


def test_reranking_is_charged_before_it_is_sent(tmp_path):
    from inspector.retrieval.spending import SpendPolicy, install, uninstall

    install(tmp_path, SpendPolicy.from_environment({"CHUNK_INSPECTOR_SPEND_LIMIT": "5 texts/hour"}))
    try:
        with RerankServer() as server:
            reranker = Reranker("cohere", "m", server.root)
            reranker.scores(QUESTION, TEXTS)
            with pytest.raises(SpendRefused):
                reranker.scores("another question", TEXTS)
        assert len(server.requests) == 1
    finally:
        uninstall()


def test_rerank_specs_round_trip_and_refuse_with_the_reason():
    spec = parse_retriever("dense:openai:text-embedding-3-small|rerank=cohere:rerank-v3.5@20")
    assert (spec.base, spec.rerank_service, spec.rerank_model, spec.depth) == (
        parse_retriever("dense:openai:text-embedding-3-small"), "cohere", "rerank-v3.5", 20)
    assert parse_retriever(str(spec)) == spec and not spec.is_default and spec.dense.reranker == ""
    assert spec.label == "dense (openai text-embedding-3-small) → rerank (cohere rerank-v3.5, top 20)"
    for bad, words in (("bm25|rerank=colbert", "unknown reranker 'colbert'"),
                       ("bm25|rerank=jina", "jina needs a model"), ("bm25|rerank=tei@0", "from 1 to 1000"),
                       ("bm25|rerank=tei@many", "whole number")):
        with pytest.raises(RetrieverError, match=words):
            parse_retriever(bad)


def test_a_damaged_score_is_asked_again_and_counted(tmp_path):
    import sqlite3

    from inspector.data_folder import damaged
    from inspector.retrieval.rerank import CACHE_FILE

    with RerankServer() as server:
        Reranker("cohere", "m", server.root, cache_folder=tmp_path).scores(QUESTION, TEXTS)
        with sqlite3.connect(tmp_path / CACHE_FILE) as db:
            key, stored = db.execute("SELECT key, plain FROM scores LIMIT 1").fetchone()
            db.execute("UPDATE scores SET plain = ? WHERE key = ?", (bytes([stored[0] ^ 1]) + stored[1:], key))
        before = damaged().get(CACHE_FILE, 0)
        again = Reranker("cohere", "m", server.root, cache_folder=tmp_path)
        assert again.scores(QUESTION, TEXTS) == pytest.approx(EXPECTED)
    assert again.requests == 1 and len(server.requests[-1][1]["documents"]) == 1, "only the damaged one asked"
    assert damaged()[CACHE_FILE] == before + 1
