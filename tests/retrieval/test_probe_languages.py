"""The probe beyond English: every document yields queries, and BM25 over the terms of every
script finds a Chinese evidence sentence from a Chinese query."""

from __future__ import annotations

import shutil
from pathlib import Path

from inspector import load_corpus
from inspector.measure import Workspace
from inspector.retrieval.scripts import bigrams
from inspector.spec import parse_spec

INTERNATIONAL = Path(__file__).resolve().parents[2] / "sample_corpus" / "international"


def test_every_document_in_every_language_gives_queries():
    workspace = Workspace(load_corpus(INTERNATIONAL), "markdown")
    queries = workspace.queries()
    assert {q.doc_id for q in queries} == {d.id for d in workspace.documents}
    assert all(len(q.words) == 3 for q in queries)
    chinese = [q for q in queries if q.doc_id.startswith("zh/")]
    assert chinese and all(any(term == w for _, term in bigrams(" ".join(q.words)) for w in q.words) for q in chinese)
    # The article's recipe (seed mode) finds only the sentences with three long ASCII words.
    assert len(Workspace(load_corpus(INTERNATIONAL), "seed").queries()) < len(queries) / 3


def test_a_large_enough_corpus_gives_the_full_query_set(tmp_path):
    for copy in range(7):
        shutil.copytree(INTERNATIONAL, tmp_path / f"copy{copy}")
    workspace = Workspace(load_corpus(tmp_path), "markdown")
    assert len(workspace.queries()) == 200


def test_bm25_finds_the_chinese_evidence_sentence_from_its_chinese_query():
    workspace = Workspace(load_corpus(INTERNATIONAL), "markdown")
    spec = parse_spec("sentence:200")
    result = workspace.probe(spec)
    chunks = workspace.chunks(spec)
    chinese = [(k, q) for k, q in enumerate(workspace.queries())
               if q.doc_id.startswith("zh/") and all(bigrams(w) == [(0, w)] for w in q.words)]
    assert len(chinese) >= 5
    for k, query in chinese:
        best = chunks[result.picked[k][0]]
        assert best.doc_id == query.doc_id and best.start <= query.evidence[0] and query.evidence[1] <= best.end, query
