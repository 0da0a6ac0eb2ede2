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
    """(That the order is the reranker's is tested on the retriever, in test_rerank.py.)"""
    golden = str(SAMPLE / "golden-paraphrase.csv")
    with RerankServer("tei") as server:
        assert main(["report", str(SAMPLE), "--spec", "recursive:800", "--budgets", "800", "--golden", golden,
                     "--json", "--quiet", "--rerank", "tei", "--rerank-depth", "10", "--rerank-url", server.root]) == 0
    reranked = json.loads(capsys.readouterr().out)
    assert reranked["retriever"] == "bm25|rerank=tei@10" and reranked["golden"][0]["retriever"] == reranked["retriever"]
    asked = [body["query"] for _, body, _ in server.requests]
    assert len(set(asked) - set(_golden_questions(golden))) == reranked["queries"], "every probe query was reranked"
    assert set(_golden_questions(golden)) <= set(asked), "and every golden question"
    assert all(len(body["texts"]) <= 10 for _, body, _ in server.requests)


def _golden_questions(path: str) -> list[str]:
    import csv

    with open(path, encoding="utf-8") as stream:
        return [row["question"] for row in csv.DictReader(stream)]


def test_check_reranks_and_a_reranker_without_an_address_is_refused_first(capsys):
    with RerankServer() as server:
        assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--json", "--engine", "stream",
                     "--retriever", "bm25|rerank=vllm:BAAI/bge-reranker-v2-m3@20", "--rerank-url", server.root]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["retriever"] == "bm25|rerank=vllm:BAAI/bge-reranker-v2-m3@20"
    assert "held in memory here rather than streamed" in captured.err, "a reranker holds the corpus"
    assert server.requests and server.requests[0][0] == "/v1/rerank"
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--rerank", "tei"]) == 2
    assert "--rerank-url URL or CHUNK_INSPECTOR_RERANK_URL" in capsys.readouterr().err
    assert main(["report", str(SAMPLE / "handbook"), "--rerank-depth", "5"]) == 2
    assert "--rerank-depth goes with --rerank" in capsys.readouterr().err
