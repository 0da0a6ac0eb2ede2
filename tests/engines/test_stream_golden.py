"""Golden sets over the streamed engine: quotes located and recall@B scored batch by batch give
what a corpus held in memory gives, byte for byte in ``report`` and ``check``, on the sample
corpus and on 500 generated documents in many batches, with quotes found only with whitespace
normalised, pinned by offsets, moved, missing or in a document a record names; the command's
process never holds the corpus."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from inspector import load_corpus
from inspector.cli import main
from inspector.corpus.listing import list_corpus
from inspector.corpus.load import Reading
from inspector.data_folder import ENV_DATA
from inspector.engines.stream import golden as stream_golden
from inspector.engines.stream.read import read_streamed
from inspector.errors import EngineError
from inspector.measure.workspace import Workspace
from inspector.retrieval.bm25 import BM25
from inspector.retrieval.golden import golden_recall
from inspector.retrieval.golden_files import load_golden
from tests.support.engines import count_batches, generated, report, workers_alone_build_workspaces
from tests.support.paths import SAMPLE

GOLDEN = [SAMPLE / "golden-questions.jsonl", SAMPLE / "golden-paraphrase.csv"]


def tricky(folder) -> str:
    """A golden set whose quotes are found every way ``load_golden`` finds them, or not at all."""
    leave = (SAMPLE / "handbook" / "leave-policy.md").read_text(encoding="utf-8")
    row = next(line for line in leave.splitlines() if line.startswith("| Lisbon"))
    at = leave.index(row)
    sentence = next(s for s in leave.split("\n\n") if len(s) > 120 and not s.startswith(("#", "|", "-")))
    records = [
        {"question": "Lisbon carry over", "evidence": row, "doc_id": "handbook/leave-policy.md"},
        {"question": "the same row, pinned", "references": [{"content": row, "start_index": at,
                                                             "end_index": at + len(row)}]},
        {"question": "the same row, moved", "references": [{"content": row, "start_index": 3, "end_index": 40}]},
        {"question": "spaced out", "evidence": "  ".join(sentence.split())},
        {"question": "two quotes", "evidence": [row, sentence]},
        {"question": "nowhere", "evidence": "no document says this at all, anywhere"},
        {"question": "wrong document", "evidence": row, "doc_id": "blog/not-a-page.md"},
        {"question": "right document, missing quote", "evidence": row, "doc_id": "product/guides/installation.md"},
        {"question": "a figure", "evidence": "10 working days"},
        {"question": "zzzz qqqq", "evidence": "the"},
        {"question": "everywhere", "evidence": "Harborline"},
    ]
    path = folder / "tricky.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_streamed_golden_tables_are_the_held_ones(capsys, monkeypatch, tmp_path, parked, mode):
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    sets = [GOLDEN[1], tricky(tmp_path)] if mode == "markdown" else [tricky(tmp_path)]
    golden = [arg for path in sets for arg in ("--golden", str(path))]
    specs = ["--spec", "structured:800", "--spec", "heading:128t", "--budgets", "400", "--expand", "2"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", "--atoms", mode, *specs, *golden,
                  "--engine", "memory")
    assert held.count('"recall"') >= 2 * len(sets) and '"rank-miss"' in held
    # each golden set's row and table b's row
    assert held.count('"splitter": "  \\u00b12 read"') == 2 * len(sets) and held.count('"expanded"') == 2
    batches = count_batches(monkeypatch)
    workers_alone_build_workspaces(monkeypatch)
    scored, score = [], stream_golden.golden_over_batches
    monkeypatch.setattr(stream_golden, "golden_over_batches",
                        lambda work, golden, specs, *a: scored.append(specs) or score(work, golden, specs, *a))
    streamed = report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", "--atoms", mode, *specs, *golden,
                      "--engine", "stream", "--jobs", "2")
    assert streamed == held
    assert len(batches) > 3
    assert scored == [["structured:800", "heading:128t"]] * len(sets)  # every splitter at once


def test_each_question_scores_as_held(tmp_path, parked):
    source = tricky(tmp_path)
    corpus = load_corpus(SAMPLE)
    held = Workspace(corpus)
    beyond = 0
    with read_streamed(list_corpus(SAMPLE), Reading("markdown"), str(tmp_path / "data"), jobs=2) as work:
        located = work.load_golden(source)
        assert located == load_golden(source, corpus)
        assert {p.kind for p in located.problems} == {"normalised", "moved", "not-found", "unknown-document",
                                                      "too-short"}
        for spec, budgets, width in (("fixed:400", (100, 300), 0), ("sentence:200t", (50, 4000), 0),
                                     ("fixed:200", (300, 900), 2)):
            mine = golden_recall(work, located, spec, budgets=budgets, expand=width)
            theirs = golden_recall(held, located, spec, budgets=budgets, expand=width)
            assert mine.expand == width
            assert replace(mine, questions=()) == replace(theirs, questions=())
            for streamed, whole in zip(mine.questions, theirs.questions, strict=True):
                assert streamed == past_the_budgets(whole, max(budgets))
                beyond += whole.tokens_needed is not None and whole.tokens_needed > max(budgets)
        assert beyond  # some question completed past the budgets: no rank there, the same outcomes
        assert [what for what, _ in work.passes].count("golden") == 3
        with pytest.raises(EngineError, match="o200k"):
            golden_recall(work, located, "fixed:400", length="cl100k")


def past_the_budgets(result, limit: int):
    """A held question's result as a streamed ranking, which ends past the largest budget, knows it."""
    far = result.tokens_needed is not None and result.tokens_needed > limit
    far_any = result.tokens_needed_any is not None and result.tokens_needed_any > limit
    return replace(result, rank=None if far else result.rank, tokens_needed=None if far else result.tokens_needed,
                   tokens_needed_any=None if far_any else result.tokens_needed_any)


def test_check_gates_golden_recall_on_the_streamed_corpus(capsys, monkeypatch, tmp_path, parked):
    out = []
    for engine in ("memory", "stream"):
        monkeypatch.setenv(ENV_DATA, str(tmp_path / engine))
        if engine == "stream":
            workers_alone_build_workspaces(monkeypatch)
        for wider in ([], ["--expand", "1"]):
            status = main(["check", str(SAMPLE), "--spec", "recursive:800", "--golden", str(GOLDEN[0]), "--engine",
                           engine, "--min", "recall@2000=99%", "--json", *wider])
            out.append((status, capsys.readouterr().out))
    assert out[:2] == out[2:] and out[0][0] == 1 and '"recall@2000"' in out[0][1]
    assert out[1][1] != out[0][1] and "with 1 neighbour either side" in out[1][1]


def test_hundreds_of_documents_in_many_batches_score_as_held(capsys, monkeypatch, tmp_path, parked):
    corpus = generated(tmp_path / "corpus", 500)
    notes = sorted((corpus / "part-0").iterdir())
    lines = []
    for i, path in enumerate(notes[:30]):
        paragraphs = [p for p in path.read_text(encoding="utf-8").split("\n\n")[1:] if len(p) > 40]
        lines.append({"question": f"what does note {i} say about {paragraphs[0].split()[2]}?",
                      "evidence": paragraphs[0][:200].rsplit(" ", 1)[0]})  # paragraphs repeat: several copies
    golden = tmp_path / "golden.jsonl"
    golden.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 24 << 10)
    args = ["--spec", "fixed:400/50", "--budgets", "400", "--golden", str(golden), "--expand", "1"]
    held = report(capsys, monkeypatch, corpus, tmp_path / "memory", *args, "--engine", "memory")
    assert '"documents": 500' in held and '"questions": 30' in held
    batches = count_batches(monkeypatch)
    assert report(capsys, monkeypatch, corpus, tmp_path / "stream", *args, "--engine", "stream") == held
    assert len(batches) > 15
    # Each batch's rankings first cut 2 deep, so every question is ranked deeper in every batch.
    deepened, ranked = [], BM25.ranked
    monkeypatch.setattr("inspector.engines.stream.golden.FIRST_DEPTH", 2)
    monkeypatch.setattr(BM25, "ranked", lambda self, words, k, *a: deepened.append(k) or ranked(self, words, k, *a))
    assert report(capsys, monkeypatch, corpus, tmp_path / "deeper", *args, "--engine", "stream", "--jobs", "1") == held
    assert {2, 16, 128} <= set(deepened)


def test_a_fused_ranking_is_given_to_the_batches_deeper_while_it_falls_short(capsys, monkeypatch, tmp_path, parked):
    """A hybrid retriever's golden set: the fused ranking is made over every batch, then each
    batch is given its share; started 2 deep, it goes 8 times deeper while a question's chunks
    fall short of the largest budget."""
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    args = ["--spec", "fixed:400/50", "--budgets", "2000", "--golden", str(SAMPLE / "golden-questions.jsonl"),
            "--retriever", "hybrid", "--expand", "1"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    depths, fused = [], stream_golden.fused_over_batches
    monkeypatch.setattr(stream_golden, "FIRST_DEPTH", 2)
    monkeypatch.setattr(stream_golden, "fused_over_batches",
                        lambda work, asked, statistics, queries, k: depths.append(k) or fused(work, asked, statistics,
                                                                                               queries, k))
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held
    assert depths[:3] == [2, 16, 128]
