"""Imported chunks in a real Chromium: an import made the sidebar's splitter, drawn on the
Document page, and a colleague's copy of the link showing the same chunks on Chunk sizes."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from inspector import Workspace, load_corpus
from tests.support.app import OPENED
from tests.support.browser import all_metrics, assert_no_exception, main_title, metric, open_app, settle, shoot
from tests.support.paths import ROOT


def exact_metric(page, label: str):
    """The metric labelled exactly ``label`` ("Chunks", not "Oversized chunks")."""
    return page.get_by_test_id("stMetric").filter(
        has=page.get_by_test_id("stMetricLabel").get_by_text(label, exact=True)).get_by_test_id("stMetricValue")


pytestmark = pytest.mark.browser

SAMPLE = Workspace(load_corpus(ROOT / "sample_corpus"))
STRUCTURED = SAMPLE.split("structured:800")


def test_an_import_becomes_the_splitter_and_its_link_travels(page, context, app_url):
    from playwright.sync_api import expect

    page.goto(app_url + "/import")  # no metric before an import: open_app would wait for one
    expect(main_title(page, "Import chunks")).to_be_visible()
    settle(page)
    page.get_by_role("button", name="Try with an export of structured:800").click()
    expect(metric(page, "Placed")).to_have_text(str(sum(len(r.chunks) for r in STRUCTURED)))
    page.get_by_role("button", name="Use these chunks on every page").click()
    settle(page)
    total = sum(len(r.chunks) for r in STRUCTURED)
    expect(page.get_by_role("combobox", name="Splitter")).to_have_value(
        f"imported: structured-800.jsonl ({total:,} chunks)")
    expect(page.get_by_label("Budget", exact=True)).to_be_disabled()
    # The address follows the run that drew the widgets: waited for, not read at once.
    expect(page).to_have_url(re.compile(r"[?&]spec=imported%3A[^&]{16}(&|$)"))
    spec = parse_qs(urlsplit(page.url).query)["spec"][0]
    assert spec.startswith("imported:") and len(spec) == len("imported:") + 16

    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Document").click()
    expect(main_title(page, "Document")).to_be_visible()
    opened = next(r for r in STRUCTURED if r.doc_id == OPENED.id)  # the first look opened on it
    expect(exact_metric(page, "Chunks")).to_have_text(str(len(opened.chunks)))
    expect(page.locator(".ci-overlay .ci-legend").first).to_contain_text(f"{len(opened.chunks)} chunks")
    shoot(page, "document-imported-chunks")
    assert_no_exception(page)

    colleague = context.browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        reader = colleague.new_page()
        reader.page_errors = []
        open_app(reader, f"{app_url}/sizes?spec={spec}")
        expect(main_title(reader, "Chunk sizes")).to_be_visible()
        expect(exact_metric(reader, "Chunks")).to_have_text(str(total))
        assert all_metrics(reader)["Chunks"] == str(total)
        assert_no_exception(reader)
    finally:
        colleague.close()
