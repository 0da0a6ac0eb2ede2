"""Your index in a real Chromium: the server offers a Chroma store LangChain filled; two reviewers
open one shared Orphan Test round drawn from its chunks by name, read the stored text, and their
answers reach the review store."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlencode

import pytest

from inspector import Workspace, load_corpus
from inspector.chunks.sets import make_chunk_set
from inspector.review.database import STORE_NAME
from inspector.review.rounds import ReviewRound, draw
from inspector.stores import parse_store, read_store
from tests.support.browser import answer, reviewer
from tests.support.paths import ROOT

SCREENSHOTS = ROOT / "artifacts" / "screenshots"
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def index_round(index_store):
    workspace = Workspace(load_corpus(ROOT / "sample_corpus"))
    placed = read_store(parse_store(index_store), list(workspace.documents), headings=workspace.headings)
    spec = workspace.add_chunk_set(make_chunk_set("your index handbook", workspace.fingerprint, workspace.documents,
                                                  placed.result.chunks))
    review_round = ReviewRound.create(workspace, str(spec), size=3, seed=21)
    return review_round, draw(review_round, workspace)


def test_two_reviewers_review_a_round_drawn_from_your_index(browser, app_url, app_data, index_round):
    from playwright.sync_api import expect

    review_round, chunks = index_round
    link = f"{app_url}/orphan-test?" + urlencode({"index": "handbook", "spec": review_round.spec,
                                                  **review_round.to_query_params()})
    dana = reviewer(browser, link, "Dana", len(chunks))
    # The round is held: the sidebar names its splitter, the index's chunks, as a fixed setting.
    expect(dana.get_by_test_id("stSidebar")).to_contain_text("imported: your index handbook")
    assert dana.locator(".ci-card").first.inner_text().strip().endswith(chunks[0].text.strip().splitlines()[-1].strip())
    first_seen_by_dana = dana.locator(".ci-card").first.inner_text()
    answer(dana, 1, len(chunks), (True, False, True))
    shared = dana.get_by_test_id("stCode").inner_text().strip()
    dana.screenshot(path=str(SCREENSHOTS / "orphan-review-your-index.png"), full_page=True)
    ravi = reviewer(browser, shared, "Ravi", len(chunks))
    assert ravi.locator(".ci-card").first.inner_text() == first_seen_by_dana
    answer(ravi, 1, len(chunks), (False, False, True))
    with sqlite3.connect(app_data / STORE_NAME) as db:
        rows = db.execute("SELECT reviewer, chunk_id, address, references_ FROM answers WHERE round_id = ? "
                          "ORDER BY reviewer", (review_round.id,)).fetchall()
    assert rows == [("Dana", chunks[0].chunk.id, 1, 0), ("Ravi", chunks[0].chunk.id, 0, 0)]
    for page in (dana, ravi):
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert page.page_errors == []
        page.context.close()
