"""The review store and audit trail on a real PostgreSQL server the test starts, as several app
replicas share them: the same answers and rounds as the SQLite file (writers killed:
``test_writers_killed``); a password never in the address; the server's environment picks the
database."""

from __future__ import annotations

import re

import pytest

from inspector.access import Access, Identity, open_audit_trail, parse_roles
from inspector.errors import AnswerChanged, ReviewStoreError
from inspector.extras import install_hint
from inspector.review import PostgresReviewStore, ReviewStore, open_review_store
from inspector.review.postgres import ENV_URL
from tests.support.review import CHUNKS, ROUND, answer_all

pytestmark = pytest.mark.service


@pytest.fixture
def server(postgres_empty):
    return postgres_empty


@pytest.fixture
def store(server):
    opened = PostgresReviewStore(server)
    opened.save_round(ROUND, CHUNKS)
    yield opened
    opened.close()


def test_rounds_and_answers_are_kept_as_in_the_sqlite_file(store, tmp_path):
    sqlite = ReviewStore(tmp_path / "reviews.sqlite3")
    sqlite.save_round(ROUND, CHUNKS)
    for kept in (store, sqlite):
        answer_all(kept, "Ann", [1, 2, 3], completeness=False)
        kept.save_answer(ROUND.id, CHUNKS[3], 4, "Bo", address=True, note="half done")
    strip = lambda answers: [(a.chunk_id, a.position, a.reviewer, a.address, a.references, a.completeness, a.note)
                             for a in answers]
    assert strip(store.answers(ROUND.id)) == strip(sqlite.answers(ROUND.id)) and len(store.answers(ROUND.id)) == 4
    assert store.progress(ROUND.id, "Ann") == (3, 20) and store.next_position(ROUND.id, "Ann") == 4
    assert store.reviewers(ROUND.id) == ["Ann", "Bo"]
    assert [r.id for r in store.rounds()] == [ROUND.id] and store.get_round(ROUND.id).chunk_ids == tuple(CHUNKS)
    saved = store.answers(ROUND.id, "Bo")[0]
    with pytest.raises(AnswerChanged):
        store.save_answer(ROUND.id, CHUNKS[3], 4, "Bo", references=True, replacing="2000-01-01T00:00:00")
    assert store.save_answer(ROUND.id, CHUNKS[3], 4, "Bo", references=True, replacing=saved.updated).references
    keep = lambda events: [(a.chunk_id, a.reviewer, a.address, a.references, a.completeness) for a in events]
    assert keep(store.history(ROUND.id)) == [*keep(sqlite.history(ROUND.id)), (CHUNKS[3], "Bo", True, True, None)], \
        "every save kept, the replaced answer too, as the SQLite file keeps them"
    assert store.delete_round(ROUND.id) == 4 and store.answers(ROUND.id) == [] and store.history(ROUND.id) == []


def test_the_audit_trail_is_kept_there_too(store, server):
    trail = open_audit_trail("unused", {ENV_URL: server})
    dana = Access.of(Identity("s", "dana@acme.com", "Dana", True, True), parse_roles("admin=dana@acme.com"), True)
    trail.record(dana, "open folder", folder="/srv/docs")
    trail.record(dana, "delete round", round="r1")
    assert [e.action for e in trail.recent()] == ["delete round", "open folder"]
    assert isinstance(open_review_store("unused", {ENV_URL: server}), PostgresReviewStore)


def test_an_address_with_a_password_or_no_server_is_refused_in_words(server, tmp_path):
    from tests.support.services import free_port

    with pytest.raises(ReviewStoreError, match="must not hold a password"):
        PostgresReviewStore("postgresql://me:s3cret@127.0.0.1/db")
    with pytest.raises(ReviewStoreError, match=r"cannot connect to the review store postgresql://postgres@127\.0\.0\.1"):
        PostgresReviewStore(f"postgresql://postgres@127.0.0.1:{free_port()}/postgres", connect_timeout=3)
    assert isinstance(open_review_store(tmp_path, {}), ReviewStore)


def test_without_psycopg_the_store_says_which_extra_installs_it(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if not installed
    with pytest.raises(ReviewStoreError, match=re.escape(f"needs psycopg: {install_hint('postgres')}")):
        open_review_store("unused", {ENV_URL: "postgresql://postgres@127.0.0.1/reviews"})
