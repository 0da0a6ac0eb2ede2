"""What a new tab waits for, in Chromium, beside a bare Streamlit page opened the same way in the
same run: the Document page's first look (which opens on the document the splitter cuts most),
the same page under the semantic splitter, a shared Compare link (to its run's end, then to
both its charts drawn), the Ask page with no question (the sidebar every page draws, and a form:
the floor under any page of the app), and the Document page of a new 3.6 MB folder (the bench
corpus's markdown made distinct, nothing kept in the data folder), its first tab.

Targets on a 2-core machine: the semantic splitter's Document page settled within 5 s on the
sample corpus, and a new 3.6 MB folder's within 5 s; a shared Compare link's run ended within
0.3 s of the bare page's, its charts drawn within 0.5 s after that. Each figure is the median of
a few new tabs (after one that warms the server's caches); the Compare link's tabs alternate
with the bare page's, and its figure is the median of each pair's difference. The figures go,
dated, to ``bench/results/first_look.json``.

    python bench/bench_first_look.py
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import SAMPLE, big_corpus, corpus_bytes, opened, record, serve, start_app, stop_app, verdict

TARGETS = {"semantic_document_s": 5.0, "new_folder_document_s": 5.0, "compare_over_bare_s": 0.3,
           "charts_after_run_s": 0.5}
TABS = 3
#: Tabs of a page opened alternately with the bare page's, where a difference is the figure.
PAIRS = 9


def bare_server(folder: Path) -> tuple[subprocess.Popen, str]:
    """A two-line Streamlit page, served the way the app is."""
    script = folder / "bare.py"
    script.write_text('import streamlit as st\n\nst.title("Bare")\nst.write("A page with nothing to compute.")\n')
    return serve(script, "bench-first-look-bare.log")


def median_of(browser, url: str, title: str, charts: int = 0) -> tuple[float, float, float]:
    """The first tab's run end, then the medians of ``TABS`` more: run end and charts drawn."""
    first, _ = opened(browser, url, title, charts)
    runs = [opened(browser, url, title, charts) for _ in range(TABS)]
    return first, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def beside_bare(browser, bare_url: str, url: str, title: str, charts: int) -> tuple[float, float, float, float]:
    """The first tab's run end, then ``PAIRS`` tabs alternated with the bare page's (the machine's
    drift falls on both alike): the medians of the bare page's run end, this page's run end, of
    each pair's difference, and of its charts drawn after its run's end."""
    first, _ = opened(browser, url, title, charts)
    bare, runs = [], []
    for _ in range(PAIRS):
        bare.append(opened(browser, bare_url, "Bare")[0])
        runs.append(opened(browser, url, title, charts))
    return (first, statistics.median(bare), statistics.median(r[0] for r in runs),
            statistics.median(r[0] - b for r, b in zip(runs, bare)), statistics.median(r[1] - r[0] for r in runs))


def main() -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="ci-first-look-"))
    figures: dict = {"targets": TARGETS}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        bare, bare_url = bare_server(folder)
        app, url = start_app(SAMPLE, folder / "data", "bench-first-look-server.log")
        try:
            _, bare_s, _ = median_of(browser, bare_url, "Bare")
            first_look = median_of(browser, url, "Document")
            semantic = median_of(browser, f"{url}/?spec=semantic:800", "Document")
            compare_first, compare_bare_s, compare_s, over, charts = beside_bare(
                browser, bare_url, f"{url}/compare?spec=structured:800", "Compare splitters", charts=2)
            # The floor under every page of the app: its sidebar, and a form with nothing asked.
            _, _, _, ask_over, _ = beside_bare(browser, bare_url, f"{url}/ask?spec=structured:800", "Ask", charts=0)
        finally:
            stop_app(app)
            stop_app(bare)
        new = big_corpus(only=".md", distinct=True)
        app, url = start_app(new, folder / "new-data", "bench-first-look-new-folder.log")
        try:
            new_folder, _ = opened(browser, url, "Document")
        finally:
            stop_app(app)
            browser.close()
    size = corpus_bytes(new)
    shutil.rmtree(new, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    figures.update(bare_s=round(bare_s, 3), document_first_s=round(first_look[0], 3),
                   document_s=round(first_look[1], 3), semantic_document_first_s=round(semantic[0], 3),
                   semantic_document_s=round(semantic[1], 3), compare_first_s=round(compare_first, 3),
                   compare_bare_s=round(compare_bare_s, 3), compare_s=round(compare_s, 3),
                   compare_over_bare_s=round(over, 3), compare_charts_after_run_s=round(charts, 3),
                   ask_over_bare_s=round(ask_over, 3),
                   new_folder_mb=round(size / 1e6, 2), new_folder_document_s=round(new_folder, 3))
    print(f"bare page        {bare_s:.2f} s to its run's end (median of {TABS} new tabs)")
    print(f"Document         first tab {first_look[0]:.2f} s, then {first_look[1]:.2f} s (opens where it cuts most)")
    print(f"semantic:800     first tab {semantic[0]:.2f} s, then {semantic[1]:.2f} s: "
          f"{verdict(round(semantic[1], 2), TARGETS['semantic_document_s'])}")
    print(f"Compare link     first tab {compare_first:.2f} s, then {compare_s:.2f} s beside the bare page's "
          f"{compare_bare_s:.2f} s ({PAIRS} tabs of each, alternated), {over:+.2f} s over it (median of the pairs): "
          f"{verdict(round(over, 2), TARGETS['compare_over_bare_s'])}")
    print(f"Ask, no question {ask_over:+.2f} s over the bare page (the sidebar every page draws, and a form)")
    print(f"Compare charts   drawn {charts:.2f} s after its run: "
          f"{verdict(round(charts, 2), TARGETS['charts_after_run_s'])}")
    print(f"new folder       {size / 1e6:.1f} MB, nothing kept: the Document page's first tab {new_folder:.2f} s: "
          f"{verdict(round(new_folder, 2), TARGETS['new_folder_document_s'])}")
    record("first_look", figures)


if __name__ == "__main__":
    main()
