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


DIAGRAM = ("# Flow\n\nThe gateway sends each request through three stages before the worker sees it.\n\n"
           "```\n+---------+      +---------+      +---------+\n| gateway | ---> |  queue  | ---> | worker  |\n"
           "+---------+      +---------+      +---------+\n     |                                 ^\n"
           "     +------------ retry --------------+\n```\n\nEach stage keeps 30 days of logs.\n")


def test_chunk_labels_inside_a_diagram_move_no_column_and_the_summary_is_styled(page, tmp_path):
    shown = inspector.show("fixed:120", DIAGRAM)
    starts = [c.start for c in shown.chunks]
    fence = DIAGRAM.index("```")
    assert any(fence < s < DIAGRAM.rindex("```") for s in starts), "a chunk starts inside the diagram"
    page.set_viewport_size({"width": 1000, "height": 800})
    page.goto(shown.save(tmp_path / "diagram.html").as_uri())
    # Where each diagram line's last "+" or "|" is drawn: the same column on every box line.
    rights = page.evaluate("""() => {
      const text = document.querySelector('.ci-text');
      const walker = document.createTreeWalker(text, NodeFilter.SHOW_TEXT, {acceptNode: n =>
        n.parentElement.closest('[data-label]') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
      const xs = {};
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.data.length; i++) {
          if (node.data[i] !== '+' && node.data[i] !== '|') continue;
          const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
          const box = range.getBoundingClientRect();
          const line = Math.round(box.top);
          xs[line] = Math.max(xs[line] || 0, Math.round(box.right));
        }
      }
      return Object.keys(xs).sort((a, b) => a - b).map(k => xs[k]);
    }""")
    assert len(rights) >= 3 and len(set(rights[:3])) == 1, rights  # the three box lines end in one column
    labels = page.locator(".ci-label.ci-aside")
    assert labels.count() >= 1
    assert page.locator(".ci-bound").count() == labels.count(), "each moved label leaves a mark at its start"
    summary = page.locator(".ci-summary")
    assert "sans" in summary.evaluate("e => getComputedStyle(e).fontFamily") or \
        "system-ui" in summary.evaluate("e => getComputedStyle(e).fontFamily")
    assert summary.evaluate("e => getComputedStyle(e).fontWeight") == "600"
