"""The Orphan Test in a real Chromium: two reviewers on one shared round, real checkbox clicks,
answers in the SQLite store, and the results view showing where they disagree."""

from __future__ import annotations

import sqlite3
from urllib.parse import urlencode

import pytest

from inspector import Workspace, load_corpus
from inspector.review.database import STORE_NAME
from inspector.review.rounds import ReviewRound, draw
from tests.support.browser import answer as shared_answer
from tests.support.browser import reviewer as shared_reviewer
from tests.support.browser import settle
from tests.support.paths import ROOT

ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
pytestmark = pytest.mark.browser

WORKSPACE = Workspace(load_corpus(ROOT / "sample_corpus"))
ROUND = ReviewRound.create(WORKSPACE, "structured:800", size=3, seed=11)
CHUNKS = draw(ROUND, WORKSPACE)


@pytest.fixture(scope="module")
def review_app(app_url, app_data):
    """The shared test server and the review store it writes: (url, store file)."""
    return app_url, app_data / STORE_NAME


def reviewer(browser, link: str, name: str):
    return shared_reviewer(browser, link, name, len(CHUNKS))


def answer(page, position: int, yes: tuple[bool, bool, bool]) -> None:
    shared_answer(page, position, len(CHUNKS), yes)


def next_chunk(page) -> None:
    page.get_by_role("button", name="Next →").click()
    settle(page)


def test_two_reviewers_answer_the_same_shared_round_and_see_where_they_disagree(browser, review_app):
    from playwright.sync_api import expect

    url, store_file = review_app
    link = f"{url}/orphan-test?" + urlencode({"spec": ROUND.spec, **ROUND.to_query_params()})
    dana = reviewer(browser, link, "Dana")
    shared = dana.get_by_test_id("stCode").inner_text().strip()
    assert f"round={ROUND.id}" in shared and shared.startswith(url + "/orphan-test?")
    first_seen_by_dana = dana.locator(".ci-card").first.inner_text()
    expect(dana.get_by_text("Reveal context and automatic hints")).to_have_count(0)  # no hint before answering
    dana.screenshot(path=str(SCREENSHOTS / "orphan-review-before-answer.png"), full_page=True)
    answer(dana, 1, (True, True, True))
    revealed = dana.get_by_test_id("stExpander").filter(has_text="Reveal context and automatic hints")
    expect(revealed.locator(".ci-orphan-hints")).to_be_visible()
    dana.screenshot(path=str(SCREENSHOTS / "orphan-review-after-answer.png"), full_page=True)
    revealed.screenshot(path=str(SCREENSHOTS / "orphan-review-revealed-context.png"))
    next_chunk(dana)
    answer(dana, 2, (False, True, True))

    dana.get_by_role("tab", name="Results").click()
    dana_results = dana.get_by_role("tabpanel", name="Results")
    reviewers = dana_results.get_by_test_id("stMetric").filter(
        has=dana.get_by_test_id("stMetricLabel").get_by_text("Reviewers", exact=True)).get_by_test_id("stMetricValue")
    expect(reviewers).to_have_text("1")  # Dana alone so far

    ravi = reviewer(browser, shared, "Ravi")  # the link Dana would send
    assert ravi.locator(".ci-card").first.inner_text() == first_seen_by_dana  # same chunks, same order
    answer(ravi, 1, (True, False, True))
    next_chunk(ravi)
    answer(ravi, 2, (False, True, False))

    assert f"round={ROUND.id}" in ravi.url  # the round stays in the address after every click

    with sqlite3.connect(store_file) as db:
        rows = db.execute("SELECT reviewer, position, chunk_id, address, references_, completeness FROM answers "
                          "WHERE round_id = ? ORDER BY reviewer, position", (ROUND.id,)).fetchall()
    first, second = CHUNKS[0].chunk.id, CHUNKS[1].chunk.id
    assert rows == [("Dana", 1, first, 1, 1, 1), ("Dana", 2, second, 0, 1, 1),
                    ("Ravi", 1, first, 1, 0, 1), ("Ravi", 2, second, 0, 1, 0)]

    # Dana touches nothing: her open Results tab reads the store again by itself and shows Ravi.
    expect(reviewers).to_have_text("2", timeout=20_000)
    expect(dana_results.get_by_role("heading", name="Where reviewers disagree (1)")).to_be_visible()

    ravi.get_by_role("tab", name="Results").click()
    results = ravi.get_by_role("tabpanel", name="Results")
    expect(results.get_by_role("heading", name="Where reviewers disagree (1)")).to_be_visible()
    disagreement = results.get_by_test_id("stTable").nth(1)
    expect(disagreement).to_contain_text("yes · yes · yes")  # Dana on chunk 1
    expect(disagreement).to_contain_text("yes · no · yes")  # Ravi on chunk 1
    expect(disagreement.locator("tbody tr")).to_have_count(1)
    per_reviewer = results.get_by_test_id("stTable").first
    expect(per_reviewer.locator("tbody tr").filter(has_text="Ravi")).to_contain_text("2 of 2")
    expect(per_reviewer.locator("tbody tr").filter(has_text="Dana")).to_contain_text("1 of 2")
    expect(results.get_by_test_id("stPlotlyChart")).to_be_visible()
    ravi.screenshot(path=str(SCREENSHOTS / "orphan-results-two-reviewers.png"), full_page=True)
    results.get_by_test_id("stPlotlyChart").scroll_into_view_if_needed()
    ravi.screenshot(path=str(SCREENSHOTS / "orphan-results-trend.png"))
    for page in (dana, ravi):
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert page.page_errors == []
        page.context.close()
