"""``inspector.review.agreement``: Fleiss' kappa against hand-computed values, consensus, ties,
trends, the side-by-side view of a round's answers, exports."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest

from inspector.review.agreement import (
    VERDICT_COLUMNS,
    answer_marks,
    fleiss_kappa,
    kappa_reading,
    reviewers_csv,
    summarize,
    summary_csv,
    to_json,
    trend,
    trend_csv,
    verdict_rows,
)
from inspector.review.answers import Answer
from inspector.review.rounds import ReviewRound
from inspector.review.store import ReviewStore

# Wikipedia's worked example ("Fleiss' kappa"): 10 subjects, 14 raters, 5 categories.
WIKIPEDIA = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def answer(reviewer, chunk, position, address=True, references=True, completeness=True, round_id="r1"):
    return Answer(round_id, chunk, position, reviewer, address, references, completeness, "", "2025-01-01")


NO_ADDRESS = dict(address=False)  # an orphan because the address is missing


NO_REFERENCES = dict(references=False)


ANSWERS = [
    answer("A", "c1", 1, **NO_ADDRESS), answer("B", "c1", 1, **NO_ADDRESS), answer("C", "c1", 1, **NO_ADDRESS),
    answer("A", "c2", 2), answer("B", "c2", 2), answer("C", "c2", 2),
    answer("A", "c3", 3, **NO_ADDRESS), answer("B", "c3", 3), answer("C", "c3", 3, **NO_REFERENCES),
    answer("A", "c4", 4), answer("B", "c4", 4), answer("C", "c4", 4, **NO_ADDRESS),
    answer("A", "c5", 5, **NO_ADDRESS), answer("B", "c5", 5, **NO_ADDRESS), answer("C", "c5", 5),
    answer("A", "c6", 6, **NO_ADDRESS), answer("B", "c6", 6),  # C has not reached chunk 6
    answer("D", "c1", 1, references=None, completeness=None),  # one click in: not a verdict yet
]


# Two reviewers, one unfinished answer: the side-by-side view of a round.
TWO_REVIEWERS = [
    answer("Ravi", "c2", 2, references=False), answer("Dana", "c2", 2),
    answer("Dana", "c1", 1, address=False), answer("Ravi", "c1", 1, completeness=False),
    answer("Dana", "c3", 3), answer("Ravi", "c3", 3, completeness=None),  # Ravi's is unfinished
]


def test_fleiss_kappa_matches_the_textbook_example():
    # By hand: column totals 20, 28, 39, 21, 32 of 140 ratings, so P_e = 4170/19600; the sum
    # over subjects of sum(n_ij^2) is 828, so P_bar = (828 - 140) / (10 * 14 * 13) = 688/1820.
    chance, observed = Fraction(4170, 19600), Fraction(688, 1820)
    exact = (observed - chance) / (1 - chance)
    value = fleiss_kappa(WIKIPEDIA)
    assert value == pytest.approx(float(exact), abs=1e-12)
    assert round(value, 3) == 0.210


def test_perfect_agreement_is_one_and_a_single_category_is_undefined():
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == 1.0
    assert fleiss_kappa([[0, 4], [0, 4]]) is None
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([[2, 0], [0, 2]]) == 1.0


def test_fleiss_kappa_refuses_uneven_tables():
    with pytest.raises(ValueError):
        fleiss_kappa([[2, 1], [1, 1]])
    with pytest.raises(ValueError):
        fleiss_kappa([[1, 0], [0, 1]])


def test_summary_tallies_consensus_and_ties():
    summary = summarize(ANSWERS, label="structured:800")
    assert summary.round_id == "r1"
    assert [(r.reviewer, r.judged, r.orphans) for r in summary.reviewers] == [("A", 6, 4), ("B", 6, 2), ("C", 5, 3)]
    assert summary.reviewers[2].noes == {"address": 2, "references": 1, "completeness": 0}
    assert summary.reviewers[0].orphan_rate == pytest.approx(4 / 6)
    assert [c.verdict for c in summary.chunks] == ["orphan", "fine", "orphan", "fine", "orphan", "tie"]
    assert [c.chunk_id for c in summary.disagreements] == ["c3", "c4", "c5", "c6"]
    assert [c.chunk_id for c in summary.ties] == ["c6"]
    assert summary.consensus_orphans == 3
    assert (summary.orphan_answers, summary.answers) == (4 + 2 + 3, 6 + 6 + 5), "answers pooled, as the trend's"


def test_summary_kappa_uses_only_chunks_everyone_answered():
    summary = summarize(ANSWERS)
    # By hand over c1..c5 (three raters): orphan counts 3,0,2,1,2 of 15, so P_e = (8^2 + 7^2)/15^2
    # = 113/225; P_i = 1, 1, 1/3, 1/3, 1/3, so P_bar = 3/5; kappa = (3/5 - 113/225)/(112/225) = 11/56.
    assert summary.kappa.value == pytest.approx(11 / 56, abs=1e-12)
    assert (summary.kappa.raters, summary.kappa.chunks, summary.kappa.left_out) == (3, 5, 1)
    # References: only C's "no" on c3, so P_e = 197/225, P_bar = 13/15 and kappa = -1/14.
    assert summary.kappa_by_question["references"].value == pytest.approx(-1 / 14, abs=1e-12)
    completeness = summary.kappa_by_question["completeness"]
    assert completeness.value is None and "same" in completeness.note


def test_kappa_needs_two_reviewers():
    summary = summarize([answer("A", "c1", 1, **NO_ADDRESS), answer("A", "c2", 2)])
    assert summary.kappa.value is None and "two or more" in summary.kappa.note
    assert summarize([]).kappa.value is None


def test_trend_orders_rounds_by_time_and_labels_them_by_spec(tmp_path):
    store = ReviewStore(tmp_path / "reviews.sqlite3")
    fingerprint = "ab" * 16
    plain = ReviewRound(fingerprint, "structured:800", size=10)
    stamped = ReviewRound(fingerprint, "structured:800+path", size=10)
    elsewhere = ReviewRound("cd" * 16, "structured:800", size=10)
    for definition, orphans in ((plain, 6), (stamped, 2), (elsewhere, 9)):
        store.save_round(definition)
        for p in range(1, 11):
            for reviewer in ("Ann", "Bob"):
                store.save_answer(definition.id, f"c{p}", p, reviewer, address=p > orphans,
                                  references=True, completeness=True)
    store.save_answer(plain.id, "c11", 11, "Ann", address=False)  # incomplete: not counted
    rounds = store.rounds(fingerprint)
    points = trend(list(reversed(rounds)), {r.id: store.answers(r.id) for r in rounds})
    assert [p.label for p in points] == ["structured:800", "structured:800+path"]
    assert [p.orphan_rate for p in points] == [0.6, 0.2]
    assert [(p.judged, p.orphans, p.reviewers) for p in points] == [(20, 12, 2), (20, 4, 2)]
    rows = list(csv.DictReader(io.StringIO(trend_csv(points))))
    assert [(r["label"], r["orphan_rate"]) for r in rows] == [("structured:800", "0.6000"),
                                                             ("structured:800+path", "0.2000")]
    assert json.loads(to_json(points))[1]["orphan_rate"] == 0.2


def test_summary_exports():
    summary = summarize(ANSWERS, label="structured:800")
    data = json.loads(to_json(summary))
    assert data["kappa"]["chunks"] == 5 and data["ties"] == ["c6"]
    assert data["reviewers"][0] == {"reviewer": "A", "judged": 6, "orphans": 4, "orphan_rate": 4 / 6,
                                    "noes": {"address": 4, "references": 0, "completeness": 0}}
    chunk_rows = list(csv.DictReader(io.StringIO(summary_csv(summary))))
    assert [(r["chunk_id"], r["verdict"], r["disagreement"]) for r in chunk_rows][-1] == ("c6", "tie", "yes")
    assert chunk_rows[0]["address_no"] == "3"
    reviewer_rows = list(csv.DictReader(io.StringIO(reviewers_csv(summary))))
    assert [(r["reviewer"], r["orphans"], r["orphan_rate"]) for r in reviewer_rows][1] == ("B", "2", "0.3333")


def test_answer_marks_follow_the_question_order_and_show_gaps():
    assert answer_marks(answer("A", "c", 1, references=False)) == "yes · no · yes"
    assert answer_marks(answer("A", "c", 1, address=None, completeness=False)) == "– · yes · no"
    assert answer_marks(None) == ""


def test_verdict_rows_put_each_reviewer_beside_the_votes():
    summary = summarize(TWO_REVIEWERS)
    rows = verdict_rows(summary, TWO_REVIEWERS)
    assert [r["Chunk"] for r in rows] == [1, 2, 3]
    assert list(rows[0]) == [*VERDICT_COLUMNS, "Dana", "Ravi"]
    assert rows[0] == {"Chunk": 1, "Verdict": "orphan", "Orphan votes": 2, "Fine votes": 0, "Chunk id": "c1",
                       "Dana": "no · yes · yes", "Ravi": "yes · yes · no"}
    assert (rows[1]["Verdict"], rows[1]["Dana"], rows[1]["Ravi"]) == ("tie", "yes · yes · yes", "yes · no · yes")
    # Only complete answers vote, but an unfinished one is still shown as it stands.
    assert (rows[2]["Fine votes"], rows[2]["Ravi"]) == (1, "yes · yes · –")


def test_verdict_rows_can_keep_only_the_disagreements():
    summary = summarize(TWO_REVIEWERS)
    assert [r["Chunk id"] for r in verdict_rows(summary, TWO_REVIEWERS, disagreements_only=True)] == ["c2"]


def test_a_reviewer_named_like_a_column_does_not_overwrite_it():
    answers = [answer("Verdict", "c1", 1, address=False), answer("Dana", "c1", 1)]
    (row,) = verdict_rows(summarize(answers), answers)
    assert row["Verdict"] == "tie" and row["Verdict (reviewer)"] == "no · yes · yes"


@pytest.mark.parametrize("value, words", [
    (None, "not defined"), (-0.33, "less agreement than chance"), (0.0, "slight agreement"),
    (0.2, "slight agreement"), (0.21, "fair agreement"), (0.6, "moderate agreement"),
    (0.75, "substantial agreement"), (0.81, "almost perfect agreement"), (1.0, "almost perfect agreement"),
])
def test_kappa_reading_uses_the_customary_scale(value, words):
    assert kappa_reading(value) == words
