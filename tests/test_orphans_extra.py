"""The side-by-side view of a round's answers: who said what on each chunk."""

from __future__ import annotations

import pytest

from inspector.review.agreement import VERDICT_COLUMNS, answer_marks, kappa_reading, summarize, verdict_rows
from inspector.review.answers import Answer


def answer(reviewer, chunk, position, address=True, references=True, completeness=True):
    return Answer("r1", chunk, position, reviewer, address, references, completeness, "", "2025-01-01")


ANSWERS = [
    answer("Ravi", "c2", 2, references=False), answer("Dana", "c2", 2),
    answer("Dana", "c1", 1, address=False), answer("Ravi", "c1", 1, completeness=False),
    answer("Dana", "c3", 3), answer("Ravi", "c3", 3, completeness=None),  # Ravi's is unfinished
]


def test_answer_marks_follow_the_question_order_and_show_gaps():
    assert answer_marks(answer("A", "c", 1, references=False)) == "yes · no · yes"
    assert answer_marks(answer("A", "c", 1, address=None, completeness=False)) == "– · yes · no"
    assert answer_marks(None) == ""


def test_verdict_rows_put_each_reviewer_beside_the_votes():
    summary = summarize(ANSWERS)
    rows = verdict_rows(summary, ANSWERS)
    assert [r["Chunk"] for r in rows] == [1, 2, 3]
    assert list(rows[0]) == [*VERDICT_COLUMNS, "Dana", "Ravi"]
    assert rows[0] == {"Chunk": 1, "Verdict": "orphan", "Orphan votes": 2, "Fine votes": 0, "Chunk id": "c1",
                       "Dana": "no · yes · yes", "Ravi": "yes · yes · no"}
    assert (rows[1]["Verdict"], rows[1]["Dana"], rows[1]["Ravi"]) == ("tie", "yes · yes · yes", "yes · no · yes")
    # Only complete answers vote, but an unfinished one is still shown as it stands.
    assert (rows[2]["Fine votes"], rows[2]["Ravi"]) == (1, "yes · yes · –")


def test_verdict_rows_can_keep_only_the_disagreements():
    summary = summarize(ANSWERS)
    assert [r["Chunk id"] for r in verdict_rows(summary, ANSWERS, disagreements_only=True)] == ["c2"]


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
