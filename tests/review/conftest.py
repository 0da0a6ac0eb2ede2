"""Fixtures of the review store's tests: a fresh store holding one round."""

from __future__ import annotations

import pytest

from inspector.review.store import ReviewStore
from tests.support.review import CHUNKS, ROUND


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "data" / "reviews.sqlite3"


@pytest.fixture
def store(store_path):
    store = ReviewStore(store_path)
    store.save_round(ROUND, CHUNKS)
    yield store
    store.close()
