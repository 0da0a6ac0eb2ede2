"""How fast the Orphan Test answers a key in a real browser: the time from the Enter that saves a
chunk's answer to the settled page showing the next unanswered chunk.

Run: ``python bench/bench_review.py``. Starts the app on 127.0.0.1 over the bundled corpus, opens
a 20-chunk round from its link in Chromium, gives a reviewer's name and answers every chunk from
the keyboard (a flip on every fourth chunk), timing each save from its Enter, on an idle page,
to the end of the script run it set off. Target on a 2-core machine: each save settled in at most
0.3 s (worst of 20). The figures go, dated, to ``bench/results/review.json``.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from bench_latency import settle, timed
from common import SAMPLE, record, start_app, stop_app, verdict

TARGET_WORST_S = 0.3


def saves(page, url: str, link: str, size: int) -> list[float]:
    page.goto(f"{url}/orphan-test?{link}", timeout=300_000)
    settle(page)
    name = page.get_by_label("Your name", exact=True)
    name.fill("Bench")
    name.press("Enter")
    page.locator(".ci-card-title").filter(has_text=f"Chunk 1 of {size}").wait_for(timeout=300_000)
    seconds = []
    for position in range(1, size + 1):
        if position % 4 == 0:
            page.keyboard.press("2")
            settle(page)
        seconds.append(timed(page, lambda: page.keyboard.press("Enter")))
        page.get_by_text(f"Saved chunk {position};").wait_for(timeout=60_000)
    return seconds


def main() -> None:
    from playwright.sync_api import sync_playwright

    from inspector import Workspace, load_corpus
    from inspector.review.rounds import ReviewRound

    review_round = ReviewRound.create(Workspace(load_corpus(SAMPLE)), "structured:800", size=20, seed=9)
    link = urlencode({"spec": review_round.spec, **review_round.to_query_params()})
    data = Path(tempfile.mkdtemp(prefix="ci-review-"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--no-sandbox", "--disable-gpu"])
        server, url = start_app(SAMPLE, data, "bench-review-server.log")
        try:
            seconds = saves(browser.new_page(viewport={"width": 1400, "height": 1400}), url, link, review_round.size)
        finally:
            stop_app(server)
            browser.close()
            shutil.rmtree(data, ignore_errors=True)
    worst, median = round(max(seconds), 2), round(statistics.median(seconds), 2)
    said = verdict(worst, TARGET_WORST_S)
    print(f"save and next, Enter to settled      median {median:5.2f} s, worst {worst:5.2f} s over {len(seconds)} "
          f"saves (target worst {said})")
    record("review", {"saves": len(seconds), "median_s": median, "worst_s": worst, "seconds": seconds,
                      "target_worst_s": TARGET_WORST_S, "verdict": said})


if __name__ == "__main__":
    main()
