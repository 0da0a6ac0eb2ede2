"""The audit trail: entries kept in the review store's file, newest first; a store written
before the trail existed gains it when opened."""

from __future__ import annotations

import sqlite3

from inspector.access import Access, AuditTrail, Identity, parse_roles
from inspector.review import ReviewStore
from inspector.review.database import SCHEMA_VERSION


def test_entries_are_kept_beside_the_answers_newest_first(tmp_path):
    path = tmp_path / "reviews.sqlite3"
    dana = Access.of(Identity("s1", "dana@acme.com", "Dana", True, True), parse_roles("admin=dana@acme.com"), True)
    visitor = Access.of(Identity(), parse_roles("admin=dana@acme.com;viewer=*"), True)
    trail = AuditTrail(path)
    trail.record(dana, "open folder", folder="/srv/docs", documents=12)
    trail.record(visitor, "paid run", model="text-embedding-3-small", texts=300, tokens=41_000, dollars=0.0008)
    first, second = trail.recent()
    assert (first.who, first.verified, first.role, first.action) == ("not signed in", False, "viewer", "paid run")
    assert first.detail == {"model": "text-embedding-3-small", "texts": 300, "tokens": 41_000, "dollars": 0.0008}
    assert (second.who, second.verified, second.role) == ("Dana (dana@acme.com)", True, "admin")
    assert second.as_row()["detail"] == "documents: 12; folder: /srv/docs"
    assert ReviewStore(path).rounds() == [], "the same file is still a review store"


def test_a_store_written_before_the_trail_gains_it(tmp_path):
    path = tmp_path / "reviews.sqlite3"
    ReviewStore(path).close()
    with sqlite3.connect(path) as connection:  # as the first schema left it
        connection.execute("DROP TABLE audit")
        connection.execute("UPDATE schema_version SET version = 1")
    trail = AuditTrail(path)
    trail.record(Access.of(Identity(), parse_roles("viewer=*"), False), "delete round", round="r1")
    assert [e.action for e in trail.recent()] == ["delete round"]
    with sqlite3.connect(path) as connection:
        assert max(v for (v,) in connection.execute("SELECT version FROM schema_version")) == SCHEMA_VERSION
