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


def test_chromas_precision_omega_lets_a_chunk_that_only_touches_the_evidence_in():
    # [50, 60) and [60, 100) touch at 60: by Chroma's rule [60, 100) reaches the evidence too.
    chunks = [(10, 30), (50, 60), (60, 100)]
    assert precision_omega(EVIDENCE, chunks) == 1.0
    assert precision_omega(EVIDENCE, chunks, touching=True) == pytest.approx(30 / 70)
    assert precision_omega(EVIDENCE, SPLIT, touching=True) == precision_omega(EVIDENCE, SPLIT)


def _chromas_precision_omega(references, chunks):
    """Chroma's ``_full_precision_score`` for one question, step by step as its code takes them:
    ranges intersect when ``max(starts) <= min(ends)``, the numerator and the chunks reaching a
    reference are unions, the references no chunk reached are added to the denominator."""
    def union(ranges):
        out = []
        for a, b in sorted(ranges):
            if out and a <= out[-1][1]:
                out[-1] = (out[-1][0], max(out[-1][1], b))
            else:
                out.append((a, b))
        return out

    def minus(ranges, cut):
        c, d = cut
        kept = []
        for a, b in ranges:
            if b < c or a > d:
                kept.append((a, b))
            elif a < c and b > d:
                kept += [(a, c), (d, b)]
            elif a < c:
                kept.append((a, c))
            elif b > d:
                kept.append((d, b))
        return kept

    numerator, reached, unused = [], [], list(references)
    for a, b in chunks:
        for c, d in references:
            if max(a, c) <= min(b, d):
                unused = minus(unused, (max(a, c), min(b, d)))
                numerator = union([(max(a, c), min(b, d))] + numerator)
                reached = union([(a, b)] + reached)
    if not numerator:
        return 0.0
    return sum(b - a for a, b in numerator) / sum(b - a for a, b in union(reached + unused))


@given(st.lists(st.integers(0, 60), min_size=2, max_size=8, unique=True),
       st.lists(st.tuples(st.integers(0, 59), st.integers(1, 20)), min_size=1, max_size=3))
def test_chromas_precision_omega_is_chromas_code_on_any_split(cuts, references):
    points = sorted({0, 60, *cuts})
    split = list(zip(points, points[1:]))
    references = [(a, min(60, a + n)) for a, n in references]
    assert precision_omega(merged(references), split, touching=True) == pytest.approx(
        _chromas_precision_omega(references, split))


def test_the_spread_is_the_population_standard_deviation_as_chromas_tables_print_it():
    from inspector.retrieval.span_scores import spread

    assert spread([1.0, 0.0, 1.0, 0.0]) == 0.5 and spread([]) == 0.0 and spread([0.3]) == 0.0


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
