"""The answer being given on a chunk: each question starts at yes, numbers flip one, y / n answer
them in turn and stop after the third."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector.review.answers import Answer
from inspector.review.draft import Draft
from inspector.review.rounds import QUESTIONS

KEYS = [q.key for q in QUESTIONS]


def saved(address, references, completeness, note="") -> Answer:
    return Answer("r", "c", 1, "Ana", address, references, completeness, note, "2026-12-06T10:00:00+00:00")


def test_a_fresh_draft_says_yes_to_every_question_and_waits_for_the_first():
    draft = Draft()
    assert draft.said == dict.fromkeys(KEYS, True)
    assert draft.in_turn is QUESTIONS[0]
    assert draft.marks == "yes \u00b7 yes \u00b7 yes"


def test_y_and_n_answer_the_questions_in_order_then_stop():
    draft = Draft()
    draft.answer_in_turn(True)
    draft.answer_in_turn(False)
    assert draft.in_turn is QUESTIONS[2]
    draft.answer_in_turn(False)
    assert draft.in_turn is None
    draft.answer_in_turn(True)  # a fourth key changes nothing: it would overwrite the first silently
    assert [draft.said[k] for k in KEYS] == [True, False, False]


def test_a_flip_sets_one_question_and_leaves_the_turn():
    draft = Draft()
    draft.answer_in_turn(True)
    draft.flip("completeness", False)
    assert draft.in_turn is QUESTIONS[1]
    assert draft.marks == "yes \u00b7 yes \u00b7 no"


def test_a_saved_answer_is_the_start_and_an_open_question_counts_as_yes():
    draft = Draft.of(saved(False, None, True, "no version"))
    assert [draft.said[k] for k in KEYS] == [False, True, True]
    assert draft.note == "no version"
    assert draft.in_turn is QUESTIONS[0]


def test_a_draft_differs_from_the_saved_answer_only_by_an_answer_or_the_note():
    stored = saved(True, False, True, "x")
    draft = Draft.of(stored)
    assert not draft.differs_from(stored)
    draft.note = "y"
    assert draft.differs_from(stored)
    draft.note = "x"
    draft.flip("references", True)
    assert draft.differs_from(stored)


@given(st.lists(st.tuples(st.sampled_from(["y", "n", 1, 2, 3]), st.booleans()), max_size=12))
def test_the_last_key_for_each_question_is_its_answer(keys):
    """Whatever the order of number flips and y / n, each question holds what its last key said."""
    draft, expected, turn = Draft(), dict.fromkeys(KEYS, True), 0
    for key, value in keys:
        if key in ("y", "n"):
            draft.answer_in_turn(key == "y")
            if turn < len(KEYS):
                expected[KEYS[turn]] = key == "y"
                turn += 1
        else:
            draft.flip(KEYS[key - 1], value)
            expected[KEYS[key - 1]] = value
    assert draft.said == expected
    assert draft.turn == turn
