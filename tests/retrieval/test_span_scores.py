"""``inspector.retrieval.span_scores``: Chroma's span recall, precision, IoU and precision-Ω,
against numbers worked out by hand (docs/metrics.md writes the same example out)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import Chunk, Document
from inspector.retrieval.golden import evaluate_golden
from inspector.retrieval.golden_files import load_golden
from inspector.retrieval.ranking import Retriever
from inspector.retrieval.span_scores import best_copies, merged, overlap, precision_omega, question_scores, size
from inspector.retrieval.terms import TermTable

EVIDENCE = [(10, 30), (50, 60)]            # |E| = 30
RETRIEVED = [(0, 20), (15, 40), (55, 100)]  # Σ|r| = 90; ∪R = [0, 40) ∪ [55, 100)
SPLIT = [(0, 20), (20, 45), (45, 70), (70, 100)]


def test_recall_precision_and_iou_of_the_worked_example():
    recall, precision, iou = question_scores(EVIDENCE, RETRIEVED)
    # I = |[10,30)| + |[55,60)| = 20 + 5 = 25
    assert recall == pytest.approx(25 / 30)
    assert precision == pytest.approx(25 / 90), "overlapping chunks pay for their shared characters twice"
    assert iou == pytest.approx(25 / (90 + 30 - 25))


def test_precision_omega_of_the_worked_example():
    # The chunks touching E are [0,20), [20,45), [45,70): ∪H = [0,70) holds all 30 evidence characters.
    assert precision_omega(EVIDENCE, SPLIT) == pytest.approx(30 / 70)
    assert precision_omega(EVIDENCE, [(10, 30), (50, 60), (60, 100)]) == 1.0


def test_nothing_retrieved_scores_zero():
    assert question_scores(EVIDENCE, []) == (0.0, 0.0, 0.0)
    assert question_scores([], [(0, 5)]) == (0.0, 0.0, 0.0)


def test_the_copy_scored_is_the_one_the_retrieved_chunks_cover_best():
    copies = [[(0, 10), (50, 60)]]
    assert best_copies(copies, [(45, 70)]) == [(50, 60)]
    assert best_copies(copies, [(80, 90)]) == [(0, 10)], "a tie goes to the first copy"


class Fixed(Retriever):
    def __init__(self, order):
        self.order = order

    def rank(self, asks, pool, k):
        return [list(self.order) for _ in asks]


def test_the_golden_result_carries_the_worked_example_end_to_end(monkeypatch):
    monkeypatch.setattr("inspector.retrieval.golden_files.MIN_QUOTE_CHARACTERS", 10)  # the example's 10-digit quote
    text = "".join(f"{i:02d}" for i in range(50))  # 100 characters, no repeated quote
    doc = Document("d/x.md", text)
    quotes = [{"content": text[a:b], "start_index": a, "end_index": b} for a, b in EVIDENCE]
    golden = load_golden(json.dumps({"question": "q", "references": quotes}).encode(), [doc])
    chunks = [Chunk(doc.id, i, a, b) for i, (a, b) in enumerate(SPLIT)]
    # Ranked [20,45), [0,20), [70,100), [45,70): a 45-character budget takes the first two.
    result = evaluate_golden(golden, chunks, TermTable([(doc.id, text)]), budgets=(45,), length="chars",
                             retriever=Fixed([1, 0, 3, 2]))
    top, budget = result.span_scores
    assert (top.cut, budget.cut) == ("top 5", "45 chars")
    assert (top.recall, top.precision, top.iou) == pytest.approx((1.0, 0.3, 0.3))
    assert budget.recall == pytest.approx(20 / 30) and budget.precision == pytest.approx(20 / 45)
    assert budget.iou == pytest.approx(20 / (45 + 30 - 20))
    assert result.precision_omega == pytest.approx(30 / 70)
    # Quote 1 straddles [0,20)|[20,45): cut; quote 2 sits whole in [45,70), ranked last: out of budget.
    assert result.questions[0].outcomes == ("cut",) and result.questions[0].outcomes_any == ("rank-miss",)


SPANS = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).map(sorted).map(tuple), max_size=6)


@given(SPANS, SPANS)
def test_span_arithmetic_agrees_with_sets_of_characters(evidence, retrieved):
    chars = lambda spans: {c for a, b in spans for c in range(a, b)}
    e, r = merged(evidence), merged(retrieved)
    assert size(e) == len(chars(evidence)) and overlap(e, r) == len(chars(evidence) & chars(retrieved))
    recall, precision, iou = question_scores(e, retrieved)
    held = len(chars(evidence) & chars(retrieved))
    paid = sum(b - a for a, b in retrieved)
    assert recall == pytest.approx(held / len(chars(evidence)) if chars(evidence) else 0.0)
    assert precision == pytest.approx(held / paid if paid else 0.0)
    assert 0.0 <= iou <= min(recall, precision) + 1e-12 or not held
