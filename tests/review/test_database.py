"""``inspector.review.database``: WAL and schema, clear errors for every broken store, the data folder."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from inspector.data_folder import ENV_DATA
from inspector.errors import ReviewStoreError
from inspector.review.database import SCHEMA_VERSION, store_path
from inspector.review.store import ReviewStore
from inspector.views.launch import launch_config
from tests.support.review import CHUNKS, ROUND, answer_all


def test_the_store_runs_in_wal_mode_with_a_schema_version(store, store_path):
    connection = sqlite3.connect(store_path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    connection.close()


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


def test_the_store_is_a_file_of_the_data_folder(tmp_path):
    assert store_path(tmp_path) == tmp_path / "reviews.sqlite3"
    assert str(store_path("data")) == os.path.join("data", "reviews.sqlite3")


def test_the_environment_picks_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "team"))
    ReviewStore(store_path(launch_config([], os.environ).data)).save_round(ROUND)
    assert (tmp_path / "team" / "reviews.sqlite3").is_file()
