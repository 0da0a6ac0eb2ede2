"""``inspector.show`` in Chromium: the saved page and a notebook's output cell both draw the cut
atoms in red, and nothing the document says runs."""

from __future__ import annotations

import pytest

import inspector

pytestmark = pytest.mark.browser

HOSTILE = ("# Release <script>window.ran = 1</script>\n\n"
           "<img src=x onerror=\"window.ran = 2\"> The cache holds 4,096 entries and evicts 2% an hour.\n\n"
           "```js\nfetch('/steal?c=' + document.cookie)\nconsole.log('this block is cut in two')\n```\n")
#: What Jupyter wraps an output's ``_repr_html_`` in (trusted output, inline scripts would run).
NOTEBOOK = ('<!doctype html><html><head><meta charset="utf-8"></head><body><div class="jp-OutputArea-output" '
            'data-mime-type="text/html">{}</div><script>window.cell = "drawn"</script></body></html>')


def _checked(tab) -> None:
    from playwright.sync_api import expect

    cut = tab.locator(".ci-overlay .ci-cut").first
    expect(cut).to_be_visible()
    assert cut.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 212, 207)"
    assert tab.locator(".ci-cuts li").count() >= 1
    assert tab.evaluate("window.ran") is None
    assert tab.locator("img").count() == 0 and tab.locator(".ci-overlay script").count() == 0
    assert tab.dialogs == [] and tab.page_errors == []


def test_the_saved_page_draws_red_cuts_and_runs_nothing(page, tmp_path):
    shown = inspector.show("fixed:120", HOSTILE)
    assert shown.cuts
    page.goto(shown.save(tmp_path / "shown.html").as_uri())
    _checked(page)


def test_the_notebook_output_draws_red_cuts_and_runs_nothing(page, tmp_path):
    shown = inspector.show("fixed:120", HOSTILE)
    path = tmp_path / "notebook.html"
    path.write_text(NOTEBOOK.format(shown._repr_html_()), encoding="utf-8")
    page.goto(path.as_uri())
    _checked(page)
    assert page.evaluate("window.cell") == "drawn"  # the cell's own script ran: scripts were not off
