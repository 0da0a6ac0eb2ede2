"""The app in a real Chromium: live reruns, every page, shared links, and hostile documents."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from inspector import ATOM_KINDS, Workspace, get_length, load_corpus
from inspector.views.frames import doc_view
from tests.support.app import OPENED
from tests.support.browser import (
    all_metrics,
    assert_no_exception,
    choose,
    main_title,
    metric,
    open_app,
    settle,
    shoot,
    type_number,
)
from tests.support.paths import ROOT

pytestmark = pytest.mark.browser

SAMPLE = load_corpus(ROOT / "sample_corpus")


def expected_cuts(spec: str) -> str:
    """The cut atoms, under ``spec``, of the document a first look opened on."""
    return str(len(doc_view(Workspace(SAMPLE), OPENED, spec, get_length("chars")).cuts))



def test_a_first_look_opens_scrolled_to_the_first_cut(page, app_url):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 900})
    open_app(page, app_url)
    expect(main_title(page, "Document")).to_be_visible()
    first = page.locator("#ci-a-cut-0")
    expect(first).to_be_in_viewport()
    box = page.locator(".ci-overlay .ci-text").first
    offset = first.evaluate("m => m.getBoundingClientRect().top - m.closest('.ci-text').getBoundingClientRect().top")
    height = box.evaluate("b => b.clientHeight")
    assert 0 <= offset <= height / 2, (offset, height)  # in the upper half of the text box
    assert box.evaluate("b => b.scrollTop") > 0, "the text box was scrolled to the cut"
    shoot(page, "document-first-look")
    box.evaluate("b => { b.scrollTop = 0; }")  # the reader scrolls back up; a change must not pull it down
    page.get_by_test_id("stSidebar").get_by_label("Budget", exact=True).fill("700")
    page.get_by_test_id("stSidebar").get_by_label("Budget", exact=True).press("Enter")
    expect(page).to_have_url(re.compile(r"spec=structured%3A700"))
    settle(page)
    page.wait_for_timeout(300)  # longer than the scroll script takes to find its mark
    assert box.evaluate("b => b.scrollTop") == 0, "only the first look scrolls"


def test_a_first_look_follows_its_cut_pushed_down_by_what_is_drawn_above_until_the_reader_scrolls(page, app_url):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 900})
    push = "m => m.prepend(Object.assign(document.createElement('div'), {style: 'height: 3000px'}))"
    first = page.locator("#ci-a-cut-0")
    # Each time: the first look opened, then the reader (a scroll of the main area by a script,
    # then the mouse's wheel) takes the page before something is drawn above the text.
    for reader in ("m => { m.closest('[data-testid=stMain]').scrollTop -= 200; }", "wheel"):
        page.goto(app_url)
        expect(first).to_be_in_viewport()
        # Chromium keeps a scrolled page's content in place when something grows above it, but not
        # at the top of a page nor where anchoring is turned off: the script must, and the test
        # turns anchoring off to see that it does.
        page.add_style_tag(content="* { overflow-anchor: none !important; }")
        above = page.get_by_test_id("stMainBlockContainer")
        above.evaluate(push)  # drawn late above the text: an expander's list, a font
        expect(first).to_be_in_viewport()
        if reader == "wheel":
            page.mouse.move(600, 400)
            page.mouse.wheel(0, 40)
        else:
            above.evaluate(reader)
        above.evaluate(push)
        page.wait_for_timeout(500)
        expect(first).not_to_be_in_viewport()


def test_switching_splitter_and_budget_changes_the_red_count(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)
    expect(main_title(page, "Document")).to_be_visible()
    expect(metric(page, "Cut atoms")).to_have_text(expected_cuts("structured:800"))
    shoot(page, "document-structured-800")
    choose(page, "Splitter", "fixed")
    expect(metric(page, "Cut atoms")).to_have_text(expected_cuts("fixed:800"))
    type_number(page, "Budget", 400)
    expect(metric(page, "Cut atoms")).to_have_text(expected_cuts("fixed:400"))
    assert expected_cuts("fixed:400") != expected_cuts("structured:800")
    expect(page.locator(".ci-overlay .ci-cut").first).to_be_visible()
    assert parse_qs(urlsplit(page.url).query)["spec"] == ["fixed:400"]
    settle(page)
    jump = page.locator(".ci-cuts a").nth(2)
    for _ in range(3):  # a rerun still drawing the page may close the expander the click opened
        if not jump.is_visible():
            page.get_by_text("Jump to a cut atom").click()
        try:
            expect(jump).to_be_visible(timeout=10_000)
            break
        except AssertionError:
            settle(page)
    jump.click()
    expect(page.locator("#ci-a-cut-2")).to_be_in_viewport()
    shoot(page, "document-fixed-400-jump")
    assert_no_exception(page)


PAGES = [("Compare", "Compare splitters", "[data-testid=stDataFrame]"),
         ("Budget sweep", "Budget sweep", "[data-testid=stDataFrame]"),
         ("Chunk sizes", "Chunk sizes", "[data-testid=stPlotlyChart]"),
         ("Document", "Document", ".ci-overlay"),
         ("Tune", "Tune: which chunking?", "[data-testid=stMain] [data-testid=stButton]"),
         ("Orphan Test", "Orphan Test", "[data-testid=stMain] h1"),
         ("Import", "Import chunks", "[data-testid=stFileUploader]")]


def test_each_page_opens_from_the_sidebar(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url + "/?spec=fixed:800/120")
    for link, heading, ready in PAGES:
        page.get_by_test_id("stSidebarNav").get_by_role("link", name=link).click()
        expect(main_title(page, heading)).to_be_visible()
        expect(page.locator(ready).first).to_be_visible()
        settle(page)
        # The settings follow the reader from page to page.
        assert parse_qs(urlsplit(page.url).query)["spec"] == ["fixed:800/120"], (link, page.url)
        shoot(page, "page-" + link.lower().replace(" ", "-"))
        assert_no_exception(page)


def test_the_compare_page_draws_each_rates_interval_and_says_which_rows_tie(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url + "/?spec=structured:800")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    expect(main_title(page, "Compare splitters")).to_be_visible()
    verdict = page.get_by_test_id("stAlertContentInfo").filter(has_text="on answer@5")
    expect(verdict).to_contain_text("tied within noise")
    charts = page.locator("[data-testid=stVegaLiteChart]")
    expect(charts.nth(1)).to_be_visible()
    settle(page)
    # Vega draws each error bar as a line in a rule mark's group: five atom kinds a splitter, and
    # answer@5's on the probe's stacks; the bars are paths in a rect mark's group.
    survival_bars = charts.nth(0).locator("g.mark-rule.role-mark line")
    probe_bars = charts.nth(1).locator("g.mark-rule.role-mark line")
    expect(survival_bars.first).to_be_attached()
    assert survival_bars.count() >= 5 * 7 and probe_bars.count() >= 7
    assert charts.nth(0).locator("g.mark-rect.role-mark path").count() == 5 * 7
    charts.nth(0).scroll_into_view_if_needed()
    shoot(page, "compare-error-bars")
    assert_no_exception(page)


def test_compare_shows_the_rows_measured_so_far_while_it_measures_the_rest(page, app_url):
    from playwright.sync_api import expect

    # Splitters no other test measures, ranked by the bundled dense model: each row embeds its
    # chunks first, long enough to be shown before the next.
    specs = "".join(f"&cmp=recursive:{budget}" for budget in (611, 613, 617, 619))
    page.goto(f"{app_url}/compare?spec=recursive:611&retriever=dense{specs}")
    so_far = page.get_by_test_id("stCaptionContainer").filter(has_text="Measured so far:")
    expect(so_far.first).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()  # the partial table a beneath it
    expect(page.get_by_text("a. Atoms kept whole")).to_be_visible(timeout=120_000)
    settle(page)
    expect(so_far).to_have_count(0)  # gone once every row is in
    assert_no_exception(page)


def test_the_sweep_shows_the_budgets_measured_so_far_too(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/sweep?spec=sentence:631&retriever=dense&budgets=631,641,659,673")
    so_far = page.get_by_test_id("stCaptionContainer").filter(has_text="Measured so far:")
    expect(so_far.first).to_contain_text("of 4 budgets", timeout=60_000)
    expect(page.get_by_test_id("stPlotlyChart").first).to_be_visible(timeout=120_000)
    settle(page)
    expect(so_far).to_have_count(0)
    assert_no_exception(page)


def test_the_fixes_show_the_steps_measured_so_far_too(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/fixes?spec=recursive:653&retriever=dense")
    so_far = page.get_by_test_id("stCaptionContainer").filter(has_text="Measured so far:")
    expect(so_far.first).to_contain_text("of 7 steps", timeout=60_000)
    expect(page.get_by_text("Download the fixes (CSV)")).to_be_visible(timeout=120_000)
    settle(page)
    expect(so_far).to_have_count(0)
    assert_no_exception(page)


def test_a_click_on_a_rate_of_table_a_says_its_count_and_interval(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url + "/?spec=structured:800")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Compare").click()
    expect(main_title(page, "Compare splitters")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible()
    settle(page)
    # The grid is drawn on a canvas: click the first row's pinned cell, then walk to "code 95%".
    box = table.bounding_box()
    page.mouse.click(box["x"] + 30, box["y"] + 35 + 17)
    settle(page)
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    said = page.get_by_test_id("stCaptionContainer").filter(has_text="fixed 400, code blocks:")
    expect(said).to_contain_text("of 102 atoms (41); 95% interval 26.8–56.4% (documents resampled).")
    shoot(page, "compare-clicked-cell")
    assert_no_exception(page)


def test_a_copied_link_reproduces_the_view(page, context, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url)
    choose(page, "Splitter", "sentence")
    type_number(page, "Budget", 300)
    page.get_by_label("Find a document").fill("parental")
    page.get_by_label("Find a document").press("Enter")
    expect(page.get_by_test_id("stMain").get_by_role("heading", name="Parental leave")).to_be_visible()
    expect(metric(page, "Cut atoms")).not_to_have_text("")
    settle(page)
    expect(page.get_by_test_id("stMetric")).to_have_count(4 + len(ATOM_KINDS))  # four, then one per atom kind
    link, shown = page.url, all_metrics(page)
    assert "sentence%3A300" in link or "sentence:300" in link

    reader = context.new_page()
    reader.page_errors = []
    open_app(reader, link)
    expect(reader.get_by_test_id("stMain").get_by_role("heading", name="Parental leave")).to_be_visible()
    expect(metric(reader, "Cut atoms")).to_have_text(shown["Cut atoms"])
    # Every metric box drawn before they are read: the run may still be adding the last ones.
    expect(reader.get_by_test_id("stMetric")).to_have_count(4 + len(ATOM_KINDS))
    settle(reader)
    assert all_metrics(reader) == shown
    expect(reader.get_by_role("combobox", name="Splitter")).to_have_value("sentence")
    expect(reader.get_by_label("Budget", exact=True)).to_have_value("300")
    shoot(reader, "copied-link")
    assert_no_exception(reader)


def test_hostile_documents_render_as_inert_text(page, app_url, hostile_corpus):
    from playwright.sync_api import expect

    names = sorted(p.name for p in hostile_corpus.glob("*.md"))
    assert names
    for name in names:
        # Each document by its own link: the same path a shared URL takes, and no dependence
        # on how the select box's popup renders.
        page.goto(f"{app_url}/?corpus={quote(str(hostile_corpus))}&doc={quote(name)}")
        settle(page)
        expect(page.get_by_test_id("stMain").get_by_text(name, exact=False).first).to_be_visible()
        settle(page)
        text = (hostile_corpus / name).read_text(encoding="utf-8")
        # The default splitter keeps these short files in one chunk, so each line is one run of text.
        overlay = page.locator(".ci-overlay .ci-text")
        expect(overlay).to_be_visible()
        page.wait_for_timeout(500)  # give any injected handler time to fire
        markup = [line.strip() for line in text.splitlines()
                  if "<" in line and line.isascii() and line.isprintable()]
        for line in markup:
            expect(overlay).to_contain_text(line)  # shown as the characters written, not obeyed
        if "<script>" in text:
            expect(page.get_by_text("<script>", exact=False).first).to_be_visible()
        for tag in ("script", "iframe", "img", "object", "embed", "form", "svg", "base", "meta", "style"):
            count = page.locator(f".ci-overlay .ci-text {tag}, .ci-cuts {tag}").count()
            assert count == 0, (name, tag)
        assert page.locator("[onerror], [onload], [onmouseover], [onclick], [onfocus]").count() == 0, name
        assert page.locator("a[href^='javascript' i], a[href^='data:' i]").count() == 0, name
        # A hostile <style> would apply to the whole page: nothing may have hidden it.
        assert page.evaluate("getComputedStyle(document.body).display") != "none", name
        expect(page.get_by_test_id("stSidebar")).to_be_visible()
        assert page.title() == "Chunk Inspector", name
        assert page.dialogs == [], name
        shoot(page, "hostile-" + name.removesuffix(".md"))
        assert_no_exception(page)


def test_a_folder_outside_the_allowed_roots_is_refused_in_the_browser(page, app_url):
    from playwright.sync_api import expect

    page.goto(f"{app_url}/?corpus={quote(str(ROOT / 'inspector'))}")
    settle(page)
    refusal = page.get_by_test_id("stAlertContentError")
    expect(refusal).to_contain_text("outside the folders this app may read")
    # The command to copy keeps its two hyphens (markdown would make a dash of them unescaped).
    expect(refusal).to_contain_text("start the app with chunk-inspector app --allow-root FOLDER, or set")
    expect(page.get_by_role("combobox", name="Splitter")).to_be_visible()
    shoot(page, "refused-folder")
    assert_no_exception(page)


def test_a_table_cut_fifteen_thousand_times_opens_as_a_document_not_an_error(page, app_url, heavy_corpus):
    """Once, this link built 935 MB of HTML and the server ran out of memory."""
    from playwright.sync_api import expect

    page.goto(f"{app_url}/?corpus={quote(str(heavy_corpus))}&doc=wide-table.md&spec=fixed:30")
    settle(page)
    overlay = page.locator(".ci-overlay .ci-text")
    expect(overlay).to_be_visible(timeout=60_000)
    expect(overlay).to_contain_text("A wide table")
    expect(overlay).to_contain_text("c3 | c4 | c5")
    expect(page.get_by_text("Part of the document", exact=False).first).to_be_visible()
    chunks = page.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text("Chunks", exact=True))
    expect(chunks.get_by_test_id("stMetricValue")).to_have_text("15010", timeout=60_000)
    size = page.evaluate("document.querySelector('.ci-overlay').outerHTML.length")
    assert size < 2_000_000
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    shoot(page, "wide-table-fixed-30")
    assert_no_exception(page)



def test_the_fixes_page_measures_each_fix_and_says_why_the_context_step_is_left_out(page, app_url):
    from playwright.sync_api import expect

    open_app(page, app_url + "/?spec=recursive:800")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Fixes").click()
    expect(main_title(page, "Fixes, cheapest first")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").first
    expect(table).to_be_visible(timeout=60_000)
    omitted = page.get_by_test_id("stCaptionContainer").filter(has_text="+ context line")
    expect(omitted.first).to_contain_text("CHUNK_INSPECTOR_CONTEXT_URL", timeout=60_000)
    settle(page)
    page.get_by_test_id("stSidebar").get_by_text("Stamp the address").click()
    expect(page.get_by_test_id("stSidebar").get_by_role("textbox", name="Stamp template")).to_be_visible(timeout=60_000)
    for _ in range(60):  # the link follows the rerun the click started
        settle(page)
        if "address" in page.url:
            break
        page.wait_for_timeout(500)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible(timeout=60_000)
    assert parse_qs(urlsplit(page.url).query)["spec"] == ["recursive:800+address"]
    shoot(page, "page-fixes")
    assert_no_exception(page)


def test_a_demo_opens_on_the_damage_with_both_splitters_measured_side_by_side(page, app_url):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1400, "height": 1300})
    open_app(page, app_url + "/?spec=fixed:300&vs=structured:800")
    expect(main_title(page, "Document")).to_be_visible()
    settle(page)
    for tile in ("Chunks · b", "Cut atoms · b", "Duplication · b", "Oversized chunks · b"):
        expect(page.get_by_test_id("stMetric").filter(has_text=re.compile("^" + re.escape(tile)))).to_be_visible()
    fixed = page.get_by_text(re.compile(r"^Cut by a, whole in b \(\d+\)$"))
    expect(fixed).to_be_visible()
    assert int(re.search(r"\((\d+)\)", fixed.inner_text()).group(1)) > 0, "structured keeps whole what fixed cuts"
    expect(page.get_by_text(re.compile(r"^Whole in a, cut by b \(\d+\)$"))).to_be_visible()
    expect(page.locator(".ci-strip .ci-strip-lane")).to_have_count(2)
    expect(page.locator(".ci-lanes .ci-lane")).to_have_count(2)
    expect(page.locator("#ci-a-cut-0")).to_be_in_viewport()
    page.set_viewport_size({"width": 1400, "height": 1800})
    main_title(page, "Document").scroll_into_view_if_needed()  # the shot: tiles, lists, strip and lanes
    shoot(page, "document-side-by-side")
    assert_no_exception(page)


def test_ask_shows_the_row_one_splitter_cuts_and_the_other_keeps_whole(page, app_url):
    from playwright.sync_api import expect

    question = quote("How many public holidays does the Singapore office observe in 2026?")
    row = quote("Singapore | 11 | next working day | Lunar New Year eve (half)")
    page.goto(f"{app_url}/ask?spec=structured:800&vs=fixed:300&ask={question}&quote={row}")
    expect(main_title(page, "Ask")).to_be_visible()
    settle(page)
    expect(page.get_by_text("The quote is whole in chunk 1.")).to_be_visible()
    expect(page.get_by_text("The quote is cut: chunk 1 holds only part of it.")).to_be_visible()
    drawn = page.locator(".ci-overlay mark.ci-quote")  # first: each answer on its document
    expect(drawn.first).to_be_visible()
    assert page.locator(".ci-overlay .ci-hit").count() >= 2 and page.locator(".ci-overlay .ci-label").count() >= 2
    shoot(page, "page-ask")
    for tab in page.get_by_role("tab", name="Chunk by chunk").all():
        tab.click()
    marks = page.locator(".ci-card mark.ci-quote")
    expect(marks.first).to_be_visible()
    assert marks.count() >= 2, "the row marked where each splitter's chunks hold it"
    shoot(page, "page-ask-cards")
    assert_no_exception(page)
