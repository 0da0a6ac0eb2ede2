"""``inspector.review.store``: no lost answers under threads and processes, resume, rounds."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

from inspector.errors import AnswerChanged, ReviewInputError, ReviewStoreError
from inspector.review.rounds import ReviewRound
from inspector.review.store import ReviewStore
from tests.support.review import CHUNKS, FINGERPRINT, ROUND, answer_all


def _process_writer(path: str, worker: int, inherited: ReviewStore | None) -> None:
    # Half the workers use the parent's store object: after fork it must open its own connection.
    store = inherited or ReviewStore(path)
    for i in range(200):
        store.save_answer(ROUND.id, f"p{worker}-{i}", i + 1, f"process {worker}", address=True,
                          references=i % 2 == 0, completeness=True)
    store.close()


def test_eight_threads_sharing_one_store_lose_nothing(store):
    errors = []

    def work(t):
        try:
            for i in range(200):
                store.save_answer(ROUND.id, f"t{t}-{i}", i + 1, f"thread {t}", address=i % 2 == 0,
                                  references=True, completeness=i % 3 != 0, note=f"{t}/{i}")
        except Exception as exc:  # the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    answers = store.answers(ROUND.id)
    assert len(answers) == 1600
    assert {(a.reviewer, a.chunk_id, a.note) for a in answers} == {
        (f"thread {t}", f"t{t}-{i}", f"{t}/{i}") for t in range(8) for i in range(200)}
    assert sum(a.address for a in answers) == 800


def test_four_processes_lose_nothing(store, store_path):
    context = multiprocessing.get_context("fork")  # spawn would re-import numpy four times
    workers = [context.Process(target=_process_writer, args=(str(store_path), w, store if w % 2 else None))
               for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0, 0]
    answers = store.answers(ROUND.id)  # the parent's own connection still works
    assert len(answers) == 800
    assert {a.chunk_id for a in answers} == {f"p{w}-{i}" for w in range(4) for i in range(200)}


def test_answers_survive_a_restart(store, store_path):
    answer_all(store, "Ann", [1, 2, 3], completeness=False)
    store.save_answer(ROUND.id, CHUNKS[3], 4, "Ann", address=True, note="half done")
    before = store.answers(ROUND.id)
    store.close()
    again = ReviewStore(store_path)
    assert again.answers(ROUND.id) == before
    assert [a.orphan for a in again.answers(ROUND.id, "Ann")] == [True, True, True, None]
    assert again.get_round(ROUND.id).chunk_ids == tuple(CHUNKS)


def test_resume_after_seven_of_twenty(store, store_path):
    answer_all(store, "Ann", range(1, 8))
    store.save_answer(ROUND.id, CHUNKS[7], 8, "Ann", address=False)  # one click into chunk 8
    answer_all(store, "Bob", range(1, 21))
    store.close()
    restarted = ReviewStore(store_path)
    assert restarted.progress(ROUND.id, "Ann") == (7, 20)
    assert restarted.next_position(ROUND.id, "Ann") == 8
    assert restarted.progress(ROUND.id, " Bob ") == (20, 20)
    assert restarted.next_position(ROUND.id, "Bob") is None
    assert restarted.next_position(ROUND.id, "Cleo") == 1


def test_a_gap_is_resumed_first(store):
    answer_all(store, "Ann", [1, 2, 4, 5])
    assert store.progress(ROUND.id, "Ann") == (4, 20)
    assert store.next_position(ROUND.id, "Ann") == 3


def test_every_click_upserts_one_row(store):
    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=True)
    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", references=False)
    saved = store.save_answer(ROUND.id, CHUNKS[0], 1, " Ann", completeness=True, note="no subject")
    assert (saved.address, saved.references, saved.completeness, saved.note) == (True, False, True, "no subject")
    assert saved.orphan is True
    changed = store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", references=True)
    assert changed.orphan is False and changed.note == "no subject"
    assert len(store.answers(ROUND.id)) == 1


def test_deleting_a_round_takes_its_answers_and_no_other_round_s(store):
    other = ReviewRound(FINGERPRINT, "fixed:100", size=2)
    store.save_round(other, ["x", "y"])
    store.save_answer(other.id, "x", 1, "Ann", address=True)
    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=True)
    store.save_answer(ROUND.id, CHUNKS[1], 2, "Bo", address=False)
    assert store.delete_round(ROUND.id) == 2
    assert store.get_round(ROUND.id) is None and store.answers(ROUND.id) == []
    assert len(store.answers(other.id)) == 1 and store.get_round(other.id) is not None
    assert store.delete_round(ROUND.id) == 0


def test_progress_for_an_unknown_round_names_it(store):
    with pytest.raises(KeyError, match="nosuchround"):
        store.progress("nosuchround", "Ann")


def test_saving_a_round_twice_keeps_its_first_creation(store):
    first = store.get_round(ROUND.id)
    assert store.save_round(ROUND, ["other"]) == first


def test_chunk_ids_are_filled_in_once(store):
    bare = ReviewRound(FINGERPRINT, "fixed:100", size=2)
    created = store.save_round(bare).created
    assert store.get_round(bare.id).total == 2  # the definition's size until the chunks are known
    store.save_round(bare, ["x", "y"])
    store.save_round(bare, [])
    store.save_round(bare, ["z"])
    assert store.get_round(bare.id).chunk_ids == ("x", "y") and store.get_round(bare.id).created == created


def test_rounds_are_listed_oldest_first_and_by_corpus(store):
    later = ReviewRound(FINGERPRINT, "structured:800+path")
    elsewhere = ReviewRound("cd" * 16, "structured:800")
    store.save_round(later)
    store.save_round(elsewhere)
    assert [r.id for r in store.rounds()] == [ROUND.id, later.id, elsewhere.id]
    assert [r.id for r in store.rounds(FINGERPRINT)] == [ROUND.id, later.id]
    assert [r.round for r in store.rounds("cd" * 16)] == [elsewhere]
    assert store.rounds("ef" * 16) == [] and store.get_round("nosuchround") is None


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, "two\nlines"])
def test_reviewer_names_are_checked(store, name):
    with pytest.raises(ReviewInputError):
        store.save_answer(ROUND.id, CHUNKS[0], 1, name, address=True)
    assert store.answers(ROUND.id) == []


def test_a_name_of_eighty_characters_is_kept_trimmed(store):
    saved = store.save_answer(ROUND.id, CHUNKS[0], 1, "  " + "x" * 80 + " ", address=True)
    assert saved.reviewer == "x" * 80


def test_bad_values_are_refused(store):
    with pytest.raises(ValueError):
        store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address="yes")
    with pytest.raises(ValueError):
        store.save_answer(ROUND.id, CHUNKS[0], 0, "Ann", address=True)


def test_a_save_over_an_answer_changed_elsewhere_is_refused_with_the_stored_one(store):
    first = store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", address=True, references=True, completeness=True,
                              replacing=None)
    other_tab = store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", references=False, replacing=first.updated)
    with pytest.raises(AnswerChanged) as refused:
        store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", completeness=False, replacing=first.updated)
    assert refused.value.stored == other_tab and isinstance(refused.value, ReviewStoreError)
    assert "saved again elsewhere" in str(refused.value)
    (kept,) = store.answers(ROUND.id, "Dana")
    assert kept == other_tab, "nothing was written"
    with pytest.raises(AnswerChanged):
        store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", address=False, replacing=None)  # "there was none"
    replaced = store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", completeness=False, replacing=other_tab.updated)
    assert (replaced.references, replaced.completeness) == (False, False)
    assert store.save_answer(ROUND.id, CHUNKS[0], 1, "Dana", note="no check") .note == "no check"



def history_of(store) -> list[tuple]:
    return [(a.chunk_id, a.reviewer, a.address, a.references, a.completeness) for a in store.history(ROUND.id)]


def test_every_save_is_kept_and_a_change_of_mind_told_from_a_second_click(store):
    from inspector.review import answer_history

    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=True, references=True, completeness=True)
    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=True, references=True, completeness=True)  # twice
    store.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=False)  # a change of mind
    store.save_answer(ROUND.id, CHUNKS[1], 2, "Bo", address=True, references=True, completeness=False)
    assert history_of(store) == [(CHUNKS[0], "Ann", True, True, True), (CHUNKS[0], "Ann", True, True, True),
                                 (CHUNKS[0], "Ann", False, True, True), (CHUNKS[1], "Bo", True, True, False)]
    (change,) = answer_history(store.history(ROUND.id)).changes
    assert (change.before.address, change.after.address, change.after.reviewer) == (True, False, "Ann")
    assert change.before.updated < change.after.updated, "the earlier value keeps its time"
    assert answer_history(store.history(ROUND.id)).repeated == 1
    assert [a.address for a in store.answers(ROUND.id, "Ann")] == [False], "the latest counts"
    assert len(store.history(ROUND.id, "Bo")) == 1
    store.delete_round(ROUND.id)
    assert store.history(ROUND.id) == []


def test_a_store_written_before_events_keeps_its_answers_as_their_first_events(store_path):
    import sqlite3

    from inspector.review.database import SCHEMA_VERSION

    old = ReviewStore(store_path)
    old.save_round(ROUND, CHUNKS)
    old.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", address=True, references=False, completeness=True)
    old.close()
    connection = sqlite3.connect(store_path)
    with connection:  # the store as the schema before events left it
        connection.execute("DROP TABLE answer_events")
        connection.execute("UPDATE schema_version SET version = 2")
    connection.close()
    reopened = ReviewStore(store_path)
    assert history_of(reopened) == [(CHUNKS[0], "Ann", True, False, True)]
    reopened.save_answer(ROUND.id, CHUNKS[0], 1, "Ann", references=True)
    assert [a.references for a in reopened.history(ROUND.id)] == [False, True]
    check = sqlite3.connect(store_path)
    assert check.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    check.close()
