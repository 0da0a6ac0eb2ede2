"""``inspector.review.answers``: the orphan rule, a reviewer's progress, CSV exports."""

from __future__ import annotations

import csv
import io
import json

from inspector.review.answers import Answer, Progress, is_orphan, saved_message
from tests.support.review import CHUNKS, ROUND


def test_exports_round_trip_and_neutralise_formulas(store):
    store.save_answer(ROUND.id, CHUNKS[0], 1, "=HYPERLINK(1)", address=True, references=False,
                      completeness=True, note="-2 rows, \"quoted\", comma")
    store.save_answer(ROUND.id, CHUNKS[1], 2, "Bob", address=True)
    rows = list(csv.DictReader(io.StringIO(store.export_csv(ROUND.id))))
    assert [r["reviewer"] for r in rows] == ["'=HYPERLINK(1)", "Bob"]
    assert rows[0]["references"] == "no" and rows[0]["orphan"] == "yes"
    assert rows[0]["note"] == "'-2 rows, \"quoted\", comma"
    assert rows[1]["references"] == "" and rows[1]["orphan"] == ""
    data = json.loads(store.export_json())
    (only,) = data["rounds"]
    assert only["definition"] == ROUND.to_dict() and only["label"] == "structured:800"
    assert only["answers"][0]["reviewer"] == "=HYPERLINK(1)"  # JSON keeps the text as typed
    assert only["answers"][0]["orphan"] is True


def _answer(position, address=True, references=True, completeness=True):
    return Answer(ROUND.id, CHUNKS[position - 1], position, "Dana", address, references, completeness, "", "now")


def test_one_no_makes_an_orphan_and_the_saved_message_says_which():
    assert not is_orphan({"address": True, "references": True, "completeness": True})
    for key in ("address", "references", "completeness"):
        ticks = {"address": True, "references": True, "completeness": True, key: False}
        assert is_orphan(ticks)
    assert saved_message(_answer(4, references=False)) == \
        "Saved chunk 4; the store now holds: Address yes, References no, Completeness yes, so an orphan."
    assert saved_message(_answer(1)).endswith("so not an orphan.")


def test_progress_resumes_at_the_first_open_chunk_and_walks_the_open_ones():
    answers = {p: _answer(p) for p in (1, 2, 3, 5)} | {4: _answer(4, completeness=None)}
    progress = Progress(answers, 6)
    assert progress.done == 4
    assert progress.open_positions == [4, 6]
    assert progress.resume_at == 4
    assert (progress.next_open(4), progress.next_open(5), progress.next_open(6)) == (6, 6, 4)
    finished = Progress({p: _answer(p) for p in range(1, 4)}, 3)
    assert (finished.open_positions, finished.resume_at, finished.next_open(2)) == ([], 3, 2)
    assert Progress({}, 20).resume_at == 1


def test_after_saving_a_reviewer_goes_to_the_next_open_chunk_and_the_open_ones_read_as_runs():
    progress = Progress({p: _answer(p) for p in (1, 2, 5, 9)}, 12)
    assert progress.open_ranges() == "3\u20134, 6\u20138, 10\u201312"
    assert (progress.after_saving(3), progress.after_saving(12), progress.after_saving(5)) == (4, 3, 6)
    last_open = Progress({p: _answer(p) for p in range(1, 12)}, 12)
    assert (last_open.after_saving(12), last_open.open_ranges()) == (12, "12")
    done = Progress({p: _answer(p) for p in range(1, 4)}, 3)
    assert (done.after_saving(2), done.open_ranges()) == (2, "")
    assert Progress({1: _answer(1)}, 3).open_ranges() == "2\u20133"
    assert Progress({2: _answer(2)}, 3).open_ranges() == "1, 3"
