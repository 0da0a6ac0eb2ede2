"""Ten sessions at once on uncached budgets: page times, and how fast the server still answers.

Run: ``python bench/bench_load.py [sessions]``. Starts the app on 127.0.0.1 over a 3.5 MB
corpus (copies of ``sample_corpus``), then opens that many Streamlit sessions at once, each on
the Compare page at a budget no other session asks for, so no cache helps. A session is a
websocket client speaking Streamlit's own protocol (the first message a browser sends), not a
browser: ten Chromium tabs would take most of two cores themselves and measure the browser.
Meanwhile the health endpoint is polled every 100 ms, and one more session, a real Chromium tab,
uploads a DOCX whose one part inflates to 200 MB (``tests/support/bombs.py``): it must be listed
as skipped while the server keeps answering. Prints the median and worst page time (until the
script run that draws the tables finished), the server's CPU time, the health endpoint's worst
response and how long the bomb took to be refused; then as many sessions at once asking Compare
for dense or hybrid retrieval of one budget's chunks (they share one embedding queue); the figures go, dated, to
``bench/results/load.json``.

Targets on a 2-core machine: health endpoint under 1 s, worst page under 15 s.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import ROOT, big_corpus, corpus_bytes, health, record, start_app, stop_app

HEALTH_TARGET, PAGE_TARGET = 1.0, 15.0


def _cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children, from /proc (0 where there is none)."""
    total = 0.0
    pids = [pid] + [int(p) for p in _children(pid)]
    for one in pids:
        try:
            fields = open(f"/proc/{one}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
    return total


def _children(pid: int) -> list[str]:
    try:
        return open(f"/proc/{pid}/task/{pid}/children").read().split()
    except OSError:
        return []


def start_server(corpus) -> tuple[subprocess.Popen, str]:
    # A data folder of its own: nothing kept by an earlier run (analyses, conversions, refusals) helps.
    return start_app(corpus, tempfile.mkdtemp(prefix="ci-data-"), "bench-load-server.log")


async def one_session(url: str, budget: int, extra: str = "") -> float:
    """One new Streamlit session asking for the Compare page, as a browser's first message does;
    seconds until the script run finished with the tables drawn."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=None, open_timeout=60) as socket_:
        ask = BackMsg()
        ask.rerun_script.query_string = f"spec=structured:{budget}{extra}"
        ask.rerun_script.page_name = "compare"
        start = time.perf_counter()
        await socket_.send(ask.SerializeToString())
        tables = False
        while True:
            raw = await asyncio.wait_for(socket_.recv(), timeout=300)
            tables = tables or b"Atoms kept whole" in raw
            message = ForwardMsg()
            message.ParseFromString(raw)
            if message.WhichOneof("type") == "script_finished":
                if not tables:
                    raise SystemExit(f"the Compare page at budget {budget} finished without its tables")
                return time.perf_counter() - start


async def sessions(url: str, count: int) -> list[float]:
    return list(await asyncio.gather(*(one_session(url, 700 + 10 * k) for k in range(count))))


async def dense_sessions(url: str, count: int) -> list[float]:
    """``count`` sessions at once asking Compare for the same splitters at a budget nothing has
    measured, half ranked by the bundled dense model and half by hybrid retrieval over it: two
    computations needing the same chunk texts embedded, through one embedding queue."""
    return list(await asyncio.gather(*(one_session(url, 650, f"&retriever={('dense', 'hybrid')[k % 2]}")
                                       for k in range(count))))


def upload_bomb(url: str, folder, outcome: dict) -> None:
    """A Chromium tab uploads the DOCX bomb beside a page; seconds until its refusal was shown."""
    from playwright.sync_api import sync_playwright

    from tests.support.bombs import zip_bomb_docx

    bomb, page_file = folder / "expenses.docx", folder / "notes.md"
    bomb.write_bytes(zip_bomb_docx())
    page_file.write_text("# Notes\n\nOne page of 3 lines.\n", encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            tab = browser.new_page()
            tab.goto(url, timeout=120_000)
            tab.get_by_test_id("stSidebar").get_by_text("Upload files").click(timeout=120_000)
            tab.wait_for_timeout(1000)
            start = time.perf_counter()
            tab.get_by_test_id("stSidebar").locator("input[type=file]").set_input_files([str(page_file), str(bomb)])
            tab.get_by_test_id("stExpander").filter(has_text="1 file skipped").wait_for(timeout=300_000)
            outcome["refused_after"] = time.perf_counter() - start
        finally:
            browser.close()


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    (ROOT / "artifacts").mkdir(exist_ok=True)
    folder = big_corpus()
    server, url = start_server(folder)
    try:
        health(url)
        # One session first, so the corpus is read and its atoms found before the crowd comes:
        # what is measured is ten sessions at once on budgets nothing has cached.
        warm = asyncio.run(sessions(url, 1))[0]
        answered: list[float] = []
        done = threading.Event()

        def poll() -> None:
            while not done.is_set():
                try:
                    answered.append(health(url))
                except OSError:
                    answered.append(float("inf"))
                time.sleep(0.1)

        poller = threading.Thread(target=poll)
        poller.start()
        cpu = _cpu_seconds(server.pid)
        bomb: dict = {}
        uploader = threading.Thread(target=upload_bomb, args=(url, Path(tempfile.mkdtemp(prefix="ci-upload-")), bomb))
        uploader.start()
        try:
            pages = asyncio.run(sessions(url, count))
        finally:
            uploader.join()
            done.set()
            poller.join()
        cpu = _cpu_seconds(server.pid) - cpu
        dense = asyncio.run(dense_sessions(url, count))
        print(f"corpus: {corpus_bytes(folder) / 1e6:.2f} MB; first session (reads the corpus, finds its atoms) "
              f"{warm:.1f} s")
        print(f"{count} sessions at once on uncached budgets: median page {statistics.median(pages):.1f} s, "
              f"worst {max(pages):.1f} s (target < {PAGE_TARGET:.0f} s: "
              f"{'met' if max(pages) < PAGE_TARGET else 'NOT met'})")
        print(f"server CPU during the sessions (its processes): {cpu:.1f} s")
        print(f"health endpoint: {len(answered)} polls, median {statistics.median(answered) * 1000:.0f} ms, "
              f"worst {max(answered):.2f} s (target < {HEALTH_TARGET:.0f} s: "
              f"{'met' if max(answered) < HEALTH_TARGET else 'NOT met'})")
        print(f"the DOCX bomb uploaded meanwhile: refused after {bomb.get('refused_after', float('nan')):.1f} s")
        print(f"then {count} sessions at once asking Compare for dense or hybrid retrieval: "
              f"median page {statistics.median(dense):.1f} s, worst {max(dense):.1f} s")
        record("load", {
            "corpus_mb": round(corpus_bytes(folder) / 1e6, 2), "sessions": count, "first_session_s": round(warm, 2),
            "median_page_s": round(statistics.median(pages), 2), "worst_page_s": round(max(pages), 2),
            "server_cpu_s": round(cpu, 1), "health_polls": len(answered),
            "health_median_ms": round(statistics.median(answered) * 1000), "health_worst_s": round(max(answered), 3),
            "bomb_refused_after_s": round(bomb.get("refused_after", float("nan")), 2),
            "dense_median_page_s": round(statistics.median(dense), 2), "dense_worst_page_s": round(max(dense), 2),
            "targets": {"worst_page_s": PAGE_TARGET, "health_worst_s": HEALTH_TARGET}})
    finally:
        stop_app(server)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
