"""Driving the app in Chromium through Playwright: wait for a run, open a link, read the page."""

from __future__ import annotations

from tests.support.paths import ROOT

SCREENSHOTS = ROOT / "artifacts" / "screenshots"  # made by the app_url fixture; gitignored


def settle(page) -> None:
    """Wait until the script run triggered by the last action has finished."""
    page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]")


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
