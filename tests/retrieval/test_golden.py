"""``inspector.retrieval.golden``: quotes located once, recall at a token budget, misses told apart."""

from __future__ import annotations

import json

import pytest

from inspector import Chunk, Document
from inspector.retrieval.golden import evaluate_golden, golden_recall, rank_chunks
from inspector.retrieval.golden_files import folder_of, load_golden
from inspector.retrieval.terms import TermTable
from tests.support.paths import SAMPLE

GOLDEN = SAMPLE / "golden-questions.jsonl"


@pytest.fixture(scope="module")
def sample_golden(sample_markdown):
    return load_golden(GOLDEN, sample_markdown)


DOC = Document("notes/a.md", (
    "# Ports\n\n"
    "The admin listener binds port 7440 on loopback only.\n\n"
    "Unrelated filler about gardens, weather and the price of tea in several towns.\n\n"
    "The replication listener uses port 7430 between nodes of one cluster.\n"))


def _chunk(a: int, b: int, index: int = 0) -> Chunk:
    return Chunk(DOC.id, index, a, b)


def _golden(records) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def test_the_bundled_golden_set_is_verbatim_and_covers_boundaries(sample_golden, sample_markdown):
    assert sample_golden.problems == ()
    assert 25 <= len(sample_golden.items) <= 40
    records = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = {d.id: d.text for d in sample_markdown.documents}
    for record, item in zip(records, sample_golden.items):
        assert record["evidence"] in texts[record["doc_id"]], record["question"]
        assert item.match == "exact"
        assert item.locations[0][0] == record["doc_id"]
    rows = [i for i in sample_golden.items if i.evidence.count(" | ") >= 2]
    assert len(rows) >= 8, "table rows whose meaning sits in the header"
    exceptions = [i for i in sample_golden.items if "exception" in i.evidence.lower()]
    assert len(exceptions) >= 3, "exceptions stated under their own heading"
    assert {i.folder for i in sample_golden.items} == {"blog", "handbook", "product"}


def test_the_corpus_loaders_ignore_the_golden_file(sample_markdown, sample_seed):
    for workspace in (sample_markdown, sample_seed):
        assert not any(d.id.endswith(".jsonl") for d in workspace.documents)


def test_structure_aware_splitting_recalls_more_than_fixed_windows(sample_golden, sample_markdown):
    structured = golden_recall(sample_markdown, sample_golden, "structured:800")
    fixed = golden_recall(sample_markdown, sample_golden, "fixed:800")
    assert structured.budgets == (2000, 4000) and structured.unit == "o200k"
    assert structured.recall(2000) > fixed.recall(2000)
    assert fixed.counts(2000)["cut"] > structured.counts(2000)["cut"] == 0
    assert structured.recall(4000) >= structured.recall(2000)
    folders = structured.by_folder()
    assert sum(total for _, total in (row[2000] for row in folders.values())) == len(sample_golden.items)
    assert sum(hits for hits, _ in (row[2000] for row in folders.values())) == structured.counts(2000)["hit"]
    summary = fixed.as_dict()
    assert summary["questions"] == len(sample_golden.items)
    assert {m["outcomes"]["2000"] for m in summary["misses"]} <= {"cut", "rank-miss"}


def test_cut_and_rank_miss_are_told_apart():
    text = DOC.text
    admin = "The admin listener binds port 7440 on loopback only."
    repl = "The replication listener uses port 7430 between nodes of one cluster."
    a0 = text.index(admin)
    r0 = text.index(repl)
    golden = load_golden(_golden([
        {"question": "Which port does the admin listener bind?", "evidence": admin},
        {"question": "Which port does replication between nodes use?", "evidence": repl},
    ]), [DOC], name="g.jsonl")
    middle = a0 + 20  # inside the admin sentence
    chunks = [_chunk(0, middle, 0), _chunk(middle, r0, 1), _chunk(r0, len(text), 2)]
    table = TermTable([(DOC.id, text)])
    sizes = [b - a for a, b in ((c.start, c.end) for c in chunks)]
    # Budget in characters: the replication chunk alone fits, nothing else does with it.
    result = evaluate_golden(golden, chunks, table, budgets=(sizes[2], sizes[2] - 1, 10_000), length="chars")
    admin_q, repl_q = result.questions
    assert admin_q.outcomes == ("cut", "cut", "cut"), "no chunk holds the admin sentence whole"
    assert admin_q.rank is None
    ranking = rank_chunks([repl_q.item.question], chunks, table)[0]
    assert ranking[0] == 2, "precondition: the chunk holding the replication sentence ranks first"
    assert (repl_q.rank, repl_q.tokens_needed) == (1, sizes[2])
    assert repl_q.outcomes == ("hit", "rank-miss", "hit"), \
        "one character short of the budget: the evidence is held whole, but not retrieved"


def test_a_big_better_ranked_chunk_uses_up_the_budget():
    text = DOC.text
    repl = "The replication listener uses port 7430 between nodes of one cluster."
    r0 = text.index(repl)
    question = "admin replication port cluster nodes"
    golden = load_golden(_golden([{"question": question, "evidence": repl}]), [DOC])
    # Both chunks hold the sentence; the whole document ranks first and alone fills the budget.
    chunks = [_chunk(0, len(text), 0), _chunk(r0, len(text), 1)]
    table = TermTable([(DOC.id, text)])
    assert rank_chunks([question], chunks, table)[0] == [0, 1]
    result = evaluate_golden(golden, chunks, table, budgets=(len(text) - 1, len(text)), length="chars")
    (q,) = result.questions
    assert q.outcomes == ("rank-miss", "hit"), "as the article's loop: stop at the first chunk over budget"
    assert result.recall(len(text)) == 1.0 and result.recall(len(text) - 1) == 0.0


def test_uncovered_evidence_and_any_of_several_places():
    text = "Alpha beta gamma delta.\n\nFiller words here.\n\nAlpha beta gamma delta.\n"
    doc = Document("x/t.md", text)
    golden = load_golden(_golden([{"question": "alpha gamma", "evidence": "Alpha beta gamma delta."}]), [doc])
    (item,) = golden.items
    assert [loc[1:] for loc in item.locations] == [(0, 23), (45, 68)]
    table = TermTable([(doc.id, text)])
    # The first occurrence is cut, the second held whole: the question is answered.
    chunks = [Chunk(doc.id, 0, 0, 10), Chunk(doc.id, 1, 10, 44), Chunk(doc.id, 2, 44, len(text))]
    assert evaluate_golden(golden, chunks, table, budgets=(1000,), length="chars").questions[0].outcomes == ("hit",)
    # No chunk touches either occurrence: uncovered, not cut.
    gap = [Chunk(doc.id, 0, 24, 44)]
    assert evaluate_golden(golden, gap, table, budgets=(1000,), length="chars").questions[0].outcomes == \
        ("uncovered",)


def test_problem_lines_are_reported_and_left_out():
    doc = Document("handbook/p.md", "Sick pay is 100% of base salary\nfor the first 6 weeks.\n")
    data = b"\n".join([
        json.dumps({"question": "How long is sick pay?",
                    "evidence": "Sick pay is 100% of base salary for the first 6 weeks."}).encode(),
        b"{not json",
        json.dumps({"question": "q", "evidence": "never written anywhere"}).encode(),
        json.dumps({"question": "q", "evidence": "Sick pay", "doc_id": "elsewhere.md"}).encode(),
        json.dumps({"question": "", "evidence": "x"}).encode(),
        json.dumps({"question": "Who pays?", "evidence": "Sick pay is 100%", "folder": "policies"}).encode(),
        json.dumps({"question": "What is it?", "evidence": "Sick pay"}).encode(),
        json.dumps({"question": "How much?", "evidence": ["Sick pay is 100%"] * 33}).encode(),
    ])
    golden = load_golden(data, [doc], name="g.jsonl")
    assert [(p.line, p.kind) for p in golden.problems] == [
        (1, "normalised"), (2, "malformed"), (3, "not-found"), (4, "unknown-document"), (5, "malformed"),
        (7, "too-short"), (8, "malformed")]
    assert golden.problems[-2].message == ("evidence 'Sick pay' is 8 characters: too short to be evidence (at least "
                                           "12, a short sentence); question left out")
    assert golden.problems[-1].message == "33 quotes; a question gives at most 32"
    assert [(i.line, i.match, i.folder) for i in golden.items] == [(1, "normalised", "handbook"),
                                                                    (6, "exact", "policies")]
    assert golden.items[0].locations == ((doc.id, 0, len(doc.text) - 1),)


def test_folder_of():
    assert folder_of("blog/x.md") == "blog"
    assert folder_of("product/guides/x.md") == "product"
    assert folder_of("x.md") == "."


def test_boundary_questions_are_scored_per_kind(sample_golden, sample_markdown):
    kinds = {item.kind for item in sample_golden.items}
    assert {"heading", "next-paragraph", "table-header", "exception"} <= kinds
    fixed = golden_recall(sample_markdown, sample_golden, "fixed:800")
    structured = golden_recall(sample_markdown, sample_golden, "structured:800")
    by_kind = structured.by_kind()
    assert sum(total for _, total in (row[2000] for row in by_kind.values())) == \
        sum(1 for item in sample_golden.items if item.kind)
    assert by_kind["table-header"][2000][0] > fixed.by_kind()["table-header"][2000][0]
    assert structured.as_dict()["by_kind"]["exception"]["2000"] == list(by_kind["exception"][2000])


def test_a_kind_is_read_as_a_label_and_a_bad_one_leaves_the_line_out():
    text = "Alpha beta gamma delta.\n"
    doc = Document("x/t.md", text)
    golden = load_golden(_golden([
        {"question": "alpha", "evidence": "Alpha beta gamma", "kind": "Table Header"},
        {"question": "gamma", "evidence": "beta gamma delta"},
        {"question": "delta", "evidence": "gamma delta.", "kind": ["heading"]},
    ]), [doc])
    assert [item.kind for item in golden.items] == ["table-header", ""]
    (problem,) = golden.problems
    assert problem.line == 3 and "'kind' is a label" in problem.message
    result = evaluate_golden(golden, [Chunk(doc.id, 0, 0, len(text))], TermTable([(doc.id, text)]),
                             budgets=(100,), length="chars")
    assert result.by_kind() == {"table-header": {100: (1, 1)}}
    csv = load_golden(b"question,evidence,kind\nalpha,Alpha beta gamma,exception\n", [doc], name="g.csv")
    assert csv.items[0].kind == "exception"


def test_every_recall_and_span_score_carries_its_interval(sample_golden, sample_markdown):
    from inspector.confidence import rate

    result = golden_recall(sample_markdown, sample_golden, "fixed:400")
    shown = result.as_dict()
    for budget in result.budgets:
        hits = result.hits(budget)
        assert shown["intervals"]["recall"][str(budget)] == rate(sum(hits), len(hits)).as_dict()
        assert sum(hits) == result.counts(budget)["hit"]
    for scores in result.span_scores:
        assert len(scores.bounds) == 3
        for (low, high), value in zip(scores.bounds, (scores.recall, scores.precision, scores.iou)):
            assert 0.0 <= low <= value <= high <= 1.0
        assert shown["span_scores"][scores.cut]["intervals"]["recall"] == list(scores.bounds[0])
    # Recall at the top 5 varies from question to question: its interval is not a point.
    top = result.span_scores[0]
    assert top.bounds[0][0] < top.recall < top.bounds[0][1]
