"""Shared helpers for the benchmarks: a large corpus built from the bundled one, and the app
started as a server on 127.0.0.1."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"
if str(ROOT) not in sys.path:  # run as `python bench/x.py` from anywhere
    sys.path.insert(0, str(ROOT))


def big_corpus(target_bytes: int = 3_500_000, *, only: str = "", distinct: bool = False) -> Path:
    """A temporary folder of sample_corpus copies totalling at least ``target_bytes``.

    Each copy lives in its own subfolder, so document ids stay unique and the corpus has the
    same mix of code, tables and prose as the bundled one. ``only`` (a suffix such as ``.md``)
    keeps the files ending so; ``distinct`` ends each markdown file of each copy with a line
    naming the copy, so no two files share a text and nothing analysed for one copy serves
    another (the engine analyses a text once however many files hold it).
    """
    files = [p for p in SAMPLE.rglob("*") if p.is_file() and p.name.endswith(only)]
    copies = max(1, -(-target_bytes // sum(p.stat().st_size for p in files)))
    folder = Path(tempfile.mkdtemp(prefix="ci-bench-"))
    for k in range(copies):
        for path in files:
            target = folder / f"copy{k:02d}" / path.relative_to(SAMPLE)
            target.parent.mkdir(parents=True, exist_ok=True)
            if distinct and path.suffix == ".md":
                target.write_text(path.read_text(encoding="utf-8") + f"\nThis page is copy {k} of the corpus.\n",
                                  encoding="utf-8")
            else:
                shutil.copyfile(path, target)
    return folder


def corpus_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def best_of(function, repeat: int = 3) -> float:
    """Fastest wall time of ``repeat`` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def timings(function, repeat: int = 5) -> list[float]:
    """Wall times of ``repeat`` calls, in seconds, in call order."""
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        out.append(time.perf_counter() - start)
    return out


def describe(times: list[float]) -> str:
    """Min and median of some timings, with the load average (the machine may be shared)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"min {min(times):.2f} s, median {statistics.median(times):.2f} s over {len(times)} runs, load {load:.2f}"


RESULTS = Path(__file__).resolve().parent / "results"


def verdict(figure: float, target: float, unit: str = " s", *, at_least: bool = False) -> str:
    """Whether ``figure`` meets ``target`` (at most, or ``at_least``), in words that carry both
    figures: ``met (0.19 s <= 0.2 s)`` or ``NOT met (0.21 s > 0.2 s)``."""
    met = figure >= target if at_least else figure <= target
    sign = (">=" if met else "<") if at_least else ("<=" if met else ">")
    return f"{'met' if met else 'NOT met'} ({figure:g}{unit} {sign} {target:g}{unit})"


def record(name: str, figures: dict) -> Path:
    """Write ``figures`` to ``bench/results/<name>.json`` with when and on what they were measured."""
    import datetime
    import json
    import platform

    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    stamp = {"measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}}
    path.write_text(json.dumps({**stamp, **figures}, indent=2) + "\n", encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def health(url: str, timeout: float = 30.0) -> float:
    """Seconds the app's health endpoint took to answer."""
    start = time.perf_counter()
    with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout) as response:
        response.read()
    return time.perf_counter() - start


def start_app(corpus, data, log_name: str, port: int | None = None) -> tuple[subprocess.Popen, str]:
    """The app on 127.0.0.1 over ``corpus`` with its data folder ``data``, answering its health
    check; its output in ``artifacts/<log_name>``."""
    env = dict(os.environ, CHUNK_INSPECTOR_CORPUS=str(corpus), CHUNK_INSPECTOR_DATA=str(data))
    return serve(ROOT / "app.py", log_name, env, port)


def serve(script, log_name: str, env=None, port: int | None = None) -> tuple[subprocess.Popen, str]:
    """The Streamlit ``script`` on 127.0.0.1, served as the app is, answering its health check;
    its output in ``artifacts/<log_name>``."""
    port = port or free_port()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    log = open(ROOT / "artifacts" / log_name, "ab")
    server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.headless=true",
                               f"--server.port={port}", "--server.address=127.0.0.1",
                               "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
                              cwd=ROOT, env=env or dict(os.environ), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            health(url, 2)
            return server, url
        except OSError:
            time.sleep(0.25)
    server.kill()
    raise SystemExit("the app did not start")


def stop_app(server: subprocess.Popen) -> None:
    os.kill(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


#: Streamlit's app element once the script run it shows has ended.
SETTLED = "[data-testid=stApp][data-test-script-state=notRunning]"
#: A drawn Vega-Lite chart.
CHART = "[data-testid=stVegaLiteChart] svg.marks"


def opened(browser, url: str, title: str, charts: int = 0) -> tuple[float, float]:
    """Seconds from a new tab's navigation to its run's end (its level-1 heading ``title`` shown),
    and to ``charts`` Vega-Lite charts drawn."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        start = time.perf_counter()
        page.goto(url, timeout=300_000)
        page.get_by_role("heading", name=title, exact=True, level=1).wait_for(timeout=300_000)
        page.wait_for_selector(SETTLED, timeout=300_000)
        ended = time.perf_counter() - start
        drawn = ended
        if charts:
            page.wait_for_function(f"document.querySelectorAll('{CHART}').length >= {charts}", timeout=300_000)
            drawn = time.perf_counter() - start
        return ended, drawn
    finally:
        page.close()
