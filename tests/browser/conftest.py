"""Fixtures for the real-browser suite: one app server and one Chromium for the whole session.

Chromium is Debian's (``apt-get install chromium``), driven through Playwright's Python API;
``playwright install`` is never run (it downloads browsers). Without Chromium these tests skip,
except under CI (``CI`` set), where a missing browser is a failure, not a silent pass.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.browser import free_port, wait_until_healthy
from tests.support.hostile import wide_table
from tests.support.paths import ROOT

ARTIFACTS = ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
HOSTILE = ROOT / "tests" / "data" / "hostile"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
HOW_TO_GET_CHROMIUM = ("Chromium not found: install Debian's with `apt-get update && apt-get install -y "
                       "chromium` (or set CHROMIUM_PATH); never `playwright install`.")


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so the browser tests may not be skipped)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium, or skip (fail under CI)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _unavailable("the playwright Python package is not installed (pip install -r requirements-dev.txt)")
    path = _chromium()
    if path is None:
        _unavailable(HOW_TO_GET_CHROMIUM)
    return path


@pytest.fixture(scope="session")
def hostile_corpus(tmp_path_factory) -> Path:
    """Documents written to attack the overlay (the render suite's, or a small one of our own)."""
    if any(HOSTILE.glob("*.md")):
        return HOSTILE
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "scripts.md").write_text(
        "# Release notes <script>alert(1)</script>\n\nWe shipped 3 fixes in version 2.4 and cut p99 "
        "latency by 40 percent across all regions.\n<script>alert(document.cookie)</script>\n\n"
        "<img src=x onerror=alert(1)>\n\nSee the [changelog](javascript:alert(1)) for details.\n",
        encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def heavy_corpus(tmp_path_factory) -> Path:
    """A document that once took the server down: a 450 kB table of 300 columns."""
    folder = tmp_path_factory.mktemp("heavy")
    (folder / "wide-table.md").write_text(wide_table(), encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def app_data(tmp_path_factory) -> Path:
    """The data folder of the test server (its review store lives here, not in the repo)."""
    return tmp_path_factory.mktemp("app-data")


@pytest.fixture(scope="session")
def index_store(tmp_path_factory) -> str:
    """A Chroma store filled by LangChain with the sample corpus's chunks (the server offers it
    as the index "handbook")."""
    from tests.support.stores import app_chunks, fill_chroma

    return fill_chroma(tmp_path_factory.mktemp("index") / "chroma", app_chunks())


@pytest.fixture(scope="session")
def app_url(chromium_path, hostile_corpus, heavy_corpus, app_data, index_store, tmp_path_factory) -> str:
    """A running app (its output in artifacts/streamlit-server.log); stopped by its pid afterwards,
    leaving nothing in its temporary folder (corpora written for its workers, tokenizers uploaded)."""
    ARTIFACTS.mkdir(exist_ok=True)
    SCREENSHOTS.mkdir(exist_ok=True)
    port = free_port()
    roots = os.pathsep.join([str(hostile_corpus), str(heavy_corpus)])
    env = dict(os.environ, CHUNK_INSPECTOR_ROOTS=roots, CHUNK_INSPECTOR_DATA=str(app_data),
               CHUNK_INSPECTOR_STORES=f"handbook={index_store}")
    env.pop("CHUNK_INSPECTOR_CORPUS", None)
    scratch = env["TMPDIR"] = str(tmp_path_factory.mktemp("server-tmp"))
    log_path = ARTIFACTS / "streamlit-server.log"
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
               f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
               "--server.fileWatcherType=none"]
    with open(log_path, "wb") as log:  # a file, not a pipe: a full pipe would block the server
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(server, url, log_path, 60)
        yield url
    finally:
        os.kill(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
            return  # killed: nothing of its own ran at its exit
        left = sorted(p.name for p in Path(scratch).glob("chunk-inspector-*"))
        assert left == [], f"the stopped server left its scratch folders behind: {left}"


@pytest.fixture(scope="session")
def browser(chromium_path):
    """One headless Chromium for the session."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)  # a cold whole-corpus page takes seconds on 2 cores

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser):
    """A fresh browser profile per test (no shared cookies or storage)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.set_default_timeout(60_000)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    """A tab that records script dialogs and page errors for the test to assert on."""
    tab = context.new_page()
    tab.dialogs = []
    tab.page_errors = []
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))
    tab.on("pageerror", lambda error: tab.page_errors.append(str(error)))
    return tab
