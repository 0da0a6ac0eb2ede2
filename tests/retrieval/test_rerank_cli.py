"""``--rerank`` on the command line: every retrieval measure of ``report`` and ``check`` reranked
by the server named, the run's retriever saying so; a reranker without an address refused before
the corpus is read."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from tests.support.paths import SAMPLE
from tests.support.rerank import RerankServer


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))
    monkeypatch.delenv("CHUNK_INSPECTOR_RERANK_URL", raising=False)


def test_report_reranks_the_probe_and_the_golden_set(capsys):
    golden = str(SAMPLE / "golden-paraphrase.csv")
    argv = ["report", str(SAMPLE), "--spec", "recursive:800", "--budgets", "800", "--golden", golden, "--json",
            "--quiet"]
    assert main(argv) == 0
    plain = json.loads(capsys.readouterr().out)
    with RerankServer("tei") as server:
        assert main([*argv, "--rerank", "tei", "--rerank-depth", "10", "--rerank-url", server.root]) == 0
    reranked = json.loads(capsys.readouterr().out)
    assert reranked["retriever"] == "bm25|rerank=tei@10" and plain["retriever"] == "bm25"
    asked = [body["query"] for _, body, _ in server.requests]
    assert len(asked) >= plain["queries"], "every probe query was reranked"
    assert any(q in asked for q in _golden_questions(golden)), "and the golden set's questions"
    assert all(len(body["texts"]) <= 10 for _, body, _ in server.requests)
    assert reranked["compare"][0]["answer_at_5"] != plain["compare"][0]["answer_at_5"] or \
        reranked["golden"] != plain["golden"], "the reranker's order changed what was read"


def _golden_questions(path: str) -> list[str]:
    import csv

    with open(path, encoding="utf-8") as stream:
        return [row["question"] for row in csv.DictReader(stream)]


def test_check_reranks_and_a_reranker_without_an_address_is_refused_first(capsys):
    with RerankServer() as server:
        assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--json",
                     "--retriever", "bm25|rerank=vllm:BAAI/bge-reranker-v2-m3@20", "--rerank-url", server.root]) == 0
    assert json.loads(capsys.readouterr().out)["retriever"] == "bm25|rerank=vllm:BAAI/bge-reranker-v2-m3@20"
    assert server.requests and server.requests[0][0] == "/v1/rerank"
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--rerank", "tei"]) == 2
    assert "--rerank-url URL or CHUNK_INSPECTOR_RERANK_URL" in capsys.readouterr().err
    assert main(["report", str(SAMPLE / "handbook"), "--rerank-depth", "5"]) == 2
    assert "--rerank-depth goes with --rerank" in capsys.readouterr().err


def test_a_reranker_holds_the_corpus_rather_than_stream_it(capsys):
    with RerankServer() as server:
        assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--engine", "stream",
                     "--rerank", "cohere:rerank-v3.5", "--rerank-url", server.root]) == 0
    err = capsys.readouterr().err
    assert "held in memory here rather than streamed" in err
