"""Driving the app in Chromium through Playwright: wait for a run, open a link, read the page."""

from __future__ import annotations

import re
import socket
import time
import urllib.request

import pytest

from tests.support.paths import ROOT

SCREENSHOTS = ROOT / "artifacts" / "screenshots"  # made by the app_url fixture; gitignored


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_healthy(server, url: str, log_path, seconds: float) -> None:
    """Wait for a started app's health check, failing with its log when it exits or is late."""
    deadline = time.monotonic() + seconds
    while True:
        if server.poll() is not None:
            pytest.fail(f"the app exited ({server.returncode}):\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"the app did not answer within {seconds:.0f} s:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.25)


def settle(page) -> None:
    """Wait until the script run triggered by the last action has finished."""
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")


_WATCH_ONE_RUN = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  window.__ciRunEnded = false;
  window.__ciActed = null;
  let ran = false;
  // A run can start and end before the observer is called: the records' old values still say it ran.
  const watch = new MutationObserver(records => {
    if (records.some(record => record.oldValue === 'running')) ran = true;
    const state = app.getAttribute('data-test-script-state');
    if (state === 'running') ran = true;
    else if (ran && state === 'notRunning') { watch.disconnect(); window.__ciRunEnded = true; }
  });
  watch.observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
}"""

#: The watched run ended; or, RUN_SEEN_WITHIN ms after the action, the page is settled having shown
#: no run at all: a run quick enough is drawn with its start and end in one render, so the page's
#: state never reads "running" (awaited without that bound, such a run left the test waiting for ever).
_RUN_ENDED = """(within) => window.__ciRunEnded || (window.__ciActed !== null
  && performance.now() - window.__ciActed > within
  && document.querySelector('[data-testid=stApp]').getAttribute('data-test-script-state') === 'notRunning')"""
RUN_SEEN_WITHIN = 5_000


def through_a_run(page, act) -> None:
    """Do ``act`` (an action that surely starts a run, such as a page link) and wait until that
    run has ended. ``settle`` alone can return before the run has started; a key pressed then
    lands on a page still being drawn."""
    settle(page)
    page.evaluate(_WATCH_ONE_RUN)
    act()
    page.evaluate("window.__ciActed = performance.now()")
    page.wait_for_function(_RUN_ENDED, arg=RUN_SEEN_WITHIN, timeout=120_000)


def open_app(page, url: str) -> None:
    page.goto(url)
    settle(page)
    page.get_by_test_id("stMetric").first.wait_for()


def main_title(page, name: str):
    return page.get_by_test_id("stMain").get_by_role("heading", name=name, exact=True, level=1)


def metric(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def all_metrics(page) -> dict[str, str]:
    found = {}
    for box in page.get_by_test_id("stMetric").all():
        found[box.get_by_test_id("stMetricLabel").inner_text().strip()] = \
            box.get_by_test_id("stMetricValue").inner_text().strip()
    return found


def choose(page, label: str, option: str) -> None:
    page.get_by_test_id("stSelectbox").filter(has=page.get_by_text(label, exact=True)).click()
    page.get_by_role("option", name=option, exact=True).click()


def type_number(page, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")


def shoot(page, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def assert_no_exception(page) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stException")).to_have_count(0)
    assert page.page_errors == []


def card_title(page):
    """The Orphan Test's card title ("Chunk N of M")."""
    return page.locator(".ci-card-title").filter(has_text="Chunk").first


def reviewer(browser, link: str, name: str, count: int):
    """An Orphan Test reviewer: a tab in a browser profile of its own (its own Streamlit session),
    opened on ``link`` and signed in as ``name``, showing the first of ``count`` chunks."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1300, "height": 1500})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.page_errors = []
    page.on("pageerror", lambda error: page.page_errors.append(str(error)))
    page.goto(link)
    settle(page)
    expect(page.get_by_text("enter your name", exact=False)).to_be_visible()
    name_box = page.get_by_label("Your name", exact=True).and_(page.get_by_role("textbox"))
    name_box.fill(name)
    name_box.press("Enter")
    expect(card_title(page)).to_have_text(f"Chunk 1 of {count}")
    settle(page)  # the run the name set off redraws the buttons: a click during it can meet a detached one
    return page


def chosen_no(row):
    """A question's No button once chosen: it then carries no shortcut, so its name is just "No"
    (while a run redraws the question, the button as it was, "No Shortcut 2", can still show)."""
    return row.get_by_role("button", name="No", exact=True)


def question_row(page, key: str):
    """The Orphan Test question ``key`` (address, references, completeness) with its Yes and No buttons."""
    return page.locator(f".st-key-orphan_question_{key}")


def answer(page, position: int, count: int, yes: tuple[bool, bool, bool]) -> None:
    """Press No on the Orphan Test questions answered no (each starts at yes), then save, which
    opens the next unanswered chunk."""
    from playwright.sync_api import expect

    from inspector.review.rounds import QUESTIONS

    expect(card_title(page)).to_have_text(f"Chunk {position} of {count}")
    settle(page)
    for question, said in zip(QUESTIONS, yes):
        if not said:
            row = question_row(page, question.key)
            row.get_by_role("button", name=re.compile(r"^No\b")).click()
            expect(chosen_no(row)).to_have_attribute("kind", "primary")
            settle(page)
    page.get_by_role("button", name=re.compile(r"^(Save|Update)")).click()
    expect(page.get_by_text(f"Saved chunk {position};")).to_be_visible()
    settle(page)
