"""The Orphan Test in a real Chromium: two reviewers on one shared round, real clicks and key
presses, answers in the SQLite store, the results view showing where they disagree, and a team of
three on a 20-chunk round whose answers all land in that one round whatever the sidebar is given."""

from __future__ import annotations

import re
import sqlite3
from functools import partial
from urllib.parse import urlencode

import pytest

from inspector import Workspace, load_corpus
from inspector.review.database import STORE_NAME
from inspector.review.rounds import QUESTIONS, ReviewRound, draw
from tests.support.browser import answer as shared_answer
from tests.support.browser import card_title, chosen_no, main_title, question_row, settle, through_a_run
from tests.support.browser import reviewer as shared_reviewer
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


def press(page, key: str) -> None:
    """One key press on the page (not in a text box), and the run it starts, settled."""
    page.keyboard.press(key)
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
    expect(card_title(dana)).to_have_text(f"Chunk 2 of {len(CHUNKS)}")  # saving opened the next one
    expect(dana.get_by_text("Reveal context and automatic hints")).to_have_count(0)
    press(dana, "ArrowLeft")
    expect(card_title(dana)).to_have_text(f"Chunk 1 of {len(CHUNKS)}")
    revealed = dana.get_by_test_id("stExpander").filter(has_text="Reveal context and automatic hints")
    expect(revealed.locator(".ci-orphan-hints")).to_be_visible()
    dana.screenshot(path=str(SCREENSHOTS / "orphan-review-after-answer.png"), full_page=True)
    revealed.screenshot(path=str(SCREENSHOTS / "orphan-review-revealed-context.png"))
    press(dana, "ArrowRight")
    answer(dana, 2, (False, True, True))

    dana.get_by_role("tab", name="Results").click()
    dana_results = dana.get_by_role("tabpanel", name="Results")
    reviewers = dana_results.get_by_test_id("stMetric").filter(
        has=dana.get_by_test_id("stMetricLabel").get_by_text("Reviewers", exact=True)).get_by_test_id("stMetricValue")
    expect(reviewers).to_have_text("1")  # Dana alone so far

    ravi = reviewer(browser, shared, "Ravi")  # the link Dana would send
    assert ravi.locator(".ci-card").first.inner_text() == first_seen_by_dana  # same chunks, same order
    answer(ravi, 1, (True, False, True))
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


TEAM_ROUND = ReviewRound.create(WORKSPACE, "structured:800", size=20, seed=3)


def flipped(page, number: int) -> None:
    """Wait until question ``number`` (1-based) shows No chosen."""
    from playwright.sync_api import expect

    expect(chosen_no(question_row(page, QUESTIONS[number - 1].key))).to_have_attribute("kind", "primary")


def keyboard_review(page, flips: dict[int, str], notes: dict[int, str] | None = None) -> int:
    """Answer every chunk of the team round from the keyboard alone: the keys in ``flips`` on the
    chunk at that position (a digit flips its question, y / n answer them in turn), then Enter.
    A note in ``notes`` is typed key by key into the note box first (not counted). Returns the keys
    pressed."""
    from playwright.sync_api import expect

    pressed = 0
    for position in range(1, TEAM_ROUND.size + 1):
        expect(card_title(page)).to_have_text(f"Chunk {position} of {TEAM_ROUND.size}")
        if notes and position in notes:
            page.get_by_label("Note (optional)").press_sequentially(notes[position])
            main_title(page, "Orphan Test").click()  # off the box: its value is committed
            settle(page)
        in_turn = 0
        for key in flips.get(position, ""):
            press(page, key)
            pressed += 1
            if key.isdigit():
                flipped(page, int(key))
            else:
                in_turn += 1
                expect(page.locator(".st-key-orphan_in_turn")).to_contain_text(
                    f"question {in_turn + 1}" if in_turn < len(QUESTIONS) else "All three given")
        press(page, "Enter")
        pressed += 1
        expect(page.get_by_text(f"Saved chunk {position};")).to_be_visible()
    return pressed


def test_a_team_answers_one_round_from_its_link_whatever_the_sidebar_is_given(browser, review_app):
    from playwright.sync_api import expect

    url, store_file = review_app
    link = f"{url}/orphan-test?" + urlencode({"spec": TEAM_ROUND.spec, **TEAM_ROUND.to_query_params()})
    ana = shared_reviewer(browser, link, "Ana", TEAM_ROUND.size)
    ben = shared_reviewer(browser, link, "Ben", TEAM_ROUND.size)
    sidebar = ben.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text(f"Round: {TEAM_ROUND.id}")
    for gone in ("Splitter", "Unit", "Budget", "Stamp the address", "Source"):  # shown as settings, no widget
        expect(sidebar.get_by_label(gone, exact=True)).to_have_count(0)
    documents = sidebar.get_by_test_id("stSelectbox").filter(has_text="Document")
    for position in range(1, TEAM_ROUND.size + 1):
        expect(card_title(ben)).to_have_text(f"Chunk {position} of {TEAM_ROUND.size}")
        if position % 5 == 1:  # every control the sidebar still has, between answers
            documents.click()
            ben.get_by_role("option").nth(position % 3 + 1).click()
            settle(ben)
            finder = sidebar.get_by_placeholder("words from its name or title")
            finder.fill("api")
            through_a_run(ben, partial(finder.press, "Enter"))
            finder.fill("")
            through_a_run(ben, partial(finder.press, "Enter"))
            main_title(ben, "Orphan Test").click()  # focus back on the page, off the sidebar
        if position == 10:  # elsewhere the sidebar is live: a new budget there, then back to the round
            through_a_run(ben, sidebar.get_by_role("link", name="Document").click)
            budget = sidebar.get_by_label("Budget", exact=True)
            budget.fill("400")
            through_a_run(ben, partial(budget.press, "Enter"))
            expect(ben).to_have_url(re.compile(r"spec=structured%3A400"))
            through_a_run(ben, sidebar.get_by_role("link", name="Orphan Test").click)
            expect(sidebar).to_contain_text(f"Round: {TEAM_ROUND.id}")
            expect(card_title(ben)).to_have_text(f"Chunk {position} of {TEAM_ROUND.size}")
            main_title(ben, "Orphan Test").click()
        if position % 4 == 0:
            press(ben, "2")
            flipped(ben, 2)
        press(ben, "Enter")
        expect(ben.get_by_text(f"Saved chunk {position};")).to_be_visible()
    # y / n in turn, and letters typed in the note box that answer nothing
    keyboard_review(ana, {3: "1", 7: "nyn"}, notes={5: "no yes 123"})
    again = ana.context.new_page()  # a new tab of Ana's browser: her name is remembered
    again.page_errors = []
    again.goto(link)
    settle(again)
    expect(again.get_by_text("Reviewing as Ana;", exact=False)).to_be_visible()
    expect(again.get_by_label("Your name", exact=True)).to_have_count(0)
    expect(again.get_by_text(f"Ana: {TEAM_ROUND.size} of {TEAM_ROUND.size} answered", exact=False)).to_be_visible()

    cara = shared_reviewer(browser, link, "Cara", TEAM_ROUND.size)
    # The name box goes once the name is given, so the keys reach the page: nothing else is pressed.
    pressed = keyboard_review(cara, {2: "2", 9: "3", 15: "12"})
    assert pressed == 24 < 30, pressed
    expect(cara.get_by_text(f"Cara: {TEAM_ROUND.size} of {TEAM_ROUND.size} answered", exact=False)).to_be_visible()

    with sqlite3.connect(store_file) as db:
        rounds = db.execute("SELECT DISTINCT round_id FROM answers WHERE reviewer IN ('Ana', 'Ben', 'Cara')").fetchall()
        rows = db.execute("SELECT reviewer, position, address, references_, completeness FROM answers "
                          "WHERE round_id = ? ORDER BY reviewer, position", (TEAM_ROUND.id,)).fetchall()
    assert rounds == [(TEAM_ROUND.id,)], "every answer went to the round of the link"
    assert len(rows) == 3 * TEAM_ROUND.size
    said = {(r[0], r[1]): r[2:] for r in rows}
    assert said[("Ana", 3)] == (0, 1, 1) and said[("Ana", 7)] == (0, 1, 0) and said[("Ana", 1)] == (1, 1, 1)
    assert said[("Ana", 5)] == (1, 1, 1)
    with sqlite3.connect(store_file) as db:
        assert db.execute("SELECT note FROM answers WHERE reviewer = 'Ana' AND position = 5").fetchall() == \
            [("no yes 123",)]
    assert said[("Ben", 4)] == (1, 0, 1) and said[("Ben", 5)] == (1, 1, 1)
    assert said[("Cara", 15)] == (0, 0, 1) and said[("Cara", 9)] == (1, 1, 0)
    ben.screenshot(path=str(SCREENSHOTS / "orphan-review-held-round.png"), full_page=True)
    for page in (again, ana, ben, cara):
        expect(page.get_by_test_id("stException")).to_have_count(0)
        assert page.page_errors == []
    for page in (ana, ben, cara):
        page.context.close()


def test_a_round_deleted_while_a_reviewer_answers_says_so_above_the_tabs(browser, review_app):
    from playwright.sync_api import expect

    from inspector.review.store import ReviewStore

    url, store_file = review_app
    gone = ReviewRound.create(WORKSPACE, "structured:800", size=3, seed=23)
    link = f"{url}/orphan-test?" + urlencode({"spec": gone.spec, **gone.to_query_params()})
    ravi = reviewer(browser, link, "Ravi")
    press(ravi, "Enter")  # chunk 1 saved, with the round
    expect(ravi.get_by_text("Saved chunk 1;")).to_be_visible()
    with ReviewStore(store_file) as store:
        store.delete_round(gone.id)
    press(ravi, "Enter")  # a key press reruns the Review tab alone, but this save shows above it
    expect(ravi.get_by_test_id("stAlertContentWarning").filter(
        has_text=f"Round {gone.id} was deleted while you reviewed it")).to_be_visible()
    with ReviewStore(store_file) as store:
        assert [a.position for a in store.answers(gone.id)] == [2]
