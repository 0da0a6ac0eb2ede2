"""The review store: no lost answers under threads and processes, clear errors, resume."""

from __future__ import annotations

import csv
import io
import json
import multiprocessing
import os
import sqlite3
import stat
import threading

import pytest

from inspector.data_folder import ENV_DATA
from inspector.errors import ReviewStoreError
from inspector.review.database import SCHEMA_VERSION, default_store_path
from inspector.review.rounds import ReviewInputError, ReviewRound
from inspector.review.store import ReviewStore

FINGERPRINT = "ab" * 16
ROUND = ReviewRound(FINGERPRINT, "structured:800", size=20, seed=3)
CHUNKS = [f"chunk{i:02d}" for i in range(20)]


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "data" / "reviews.sqlite3"


@pytest.fixture
def store(store_path):
    store = ReviewStore(store_path)
    store.save_round(ROUND, CHUNKS)
    yield store
    store.close()


def answer_all(store, reviewer, positions, *, address=True, references=True, completeness=True):
    for p in positions:
        store.save_answer(ROUND.id, CHUNKS[p - 1], p, reviewer, address=address, references=references,
                          completeness=completeness)


# -- concurrency -------------------------------------------------------------------------------

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


def _process_writer(path: str, worker: int, inherited: ReviewStore | None) -> None:
    # Half the workers use the parent's store object: after fork it must open its own connection.
    store = inherited or ReviewStore(path)
    for i in range(200):
        store.save_answer(ROUND.id, f"p{worker}-{i}", i + 1, f"process {worker}", address=True,
                          references=i % 2 == 0, completeness=True)
    store.close()


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


def test_the_store_runs_in_wal_mode_with_a_schema_version(store, store_path):
    connection = sqlite3.connect(store_path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    connection.close()


# -- durability and resume ---------------------------------------------------------------------

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


# -- failures are loud -------------------------------------------------------------------------

def test_a_corrupt_file_is_reported_with_its_path(tmp_path):
    path = tmp_path / "reviews.sqlite3"
    path.write_bytes(b"these are not the pages of a database\n" * 200)
    with pytest.raises(ReviewStoreError, match="not a review store") as caught:
        ReviewStore(path)
    assert str(path) in str(caught.value)


def test_another_database_is_not_taken_over(tmp_path):
    path = tmp_path / "other.sqlite3"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE invoices (id INTEGER)")
    connection.commit()
    connection.close()
    with pytest.raises(ReviewStoreError, match="invoices"):
        ReviewStore(path)


def test_a_newer_schema_is_refused(store, store_path):
    store.close()
    connection = sqlite3.connect(store_path)
    connection.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    connection.commit()
    connection.close()
    with pytest.raises(ReviewStoreError, match="newer version"):
        ReviewStore(store_path)


def test_a_read_only_store_refuses_writes_and_keeps_answers(store, store_path):
    answer_all(store, "Ann", [1, 2])
    store.close()
    readonly = ReviewStore(store_path, readonly=True)  # SQLite's mode=ro: refused even for root
    assert len(readonly.answers(ROUND.id)) == 2
    with pytest.raises(ReviewStoreError, match="read-only") as caught:
        readonly.save_answer(ROUND.id, CHUNKS[2], 3, "Ann", address=True)
    assert str(store_path) in str(caught.value) and "not saved" in str(caught.value)
    assert len(readonly.answers(ROUND.id)) == 2
    readonly.close()
    assert [a.position for a in ReviewStore(store_path).answers(ROUND.id)] == [1, 2]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions")
def test_a_file_without_write_permission_refuses_writes(store, store_path):
    answer_all(store, "Ann", [1])
    store.close()
    store_path.chmod(stat.S_IRUSR)
    try:
        reopened = ReviewStore(store_path)
        with pytest.raises(ReviewStoreError, match="read-only|cannot open"):
            reopened.save_answer(ROUND.id, CHUNKS[1], 2, "Ann", address=True)
        assert len(reopened.answers(ROUND.id)) == 1
    finally:
        store_path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_a_folder_that_cannot_be_made_is_reported(tmp_path):
    blocker = tmp_path / "data"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(ReviewStoreError, match="cannot create the folder") as caught:
        ReviewStore(blocker / "reviews.sqlite3")
    assert str(blocker) in str(caught.value)


def test_a_missing_read_only_store_is_reported(tmp_path):
    with pytest.raises(ReviewStoreError, match="does not exist"):
        ReviewStore(tmp_path / "missing.sqlite3", readonly=True)


def test_a_locked_store_raises_and_the_retry_succeeds(store, store_path):
    answer_all(store, "Ann", [1])
    impatient = ReviewStore(store_path, busy_timeout_ms=100)
    holder = sqlite3.connect(store_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(ReviewStoreError, match="locked") as caught:
            impatient.save_answer(ROUND.id, CHUNKS[1], 2, "Ann", address=False)
        assert str(store_path) in str(caught.value) and "try again" in str(caught.value)
        assert len(impatient.answers(ROUND.id)) == 1  # readers are not blocked in WAL mode
    finally:
        holder.execute("COMMIT")
        holder.close()
    saved = impatient.save_answer(ROUND.id, CHUNKS[1], 2, "Ann", address=False)
    assert saved.address is False
    assert [a.position for a in store.answers(ROUND.id)] == [1, 2]


# -- where the file lives, and exports ---------------------------------------------------------

def test_the_default_path_is_the_data_folder(tmp_path):
    assert default_store_path({}) == default_store_path({ENV_DATA: ""})
    assert str(default_store_path({})) == os.path.join("data", "reviews.sqlite3")
    assert default_store_path({ENV_DATA: str(tmp_path)}) == tmp_path / "reviews.sqlite3"


def test_the_environment_picks_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "team"))
    ReviewStore().save_round(ROUND)
    assert (tmp_path / "team" / "reviews.sqlite3").is_file()


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
