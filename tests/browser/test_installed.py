"""The package as a user gets it: a wheel built from this checkout and installed in a fresh
virtual environment outside it runs ``chunk-inspector report`` on the bundled corpus and serves
the app, which a real browser opens.

The fresh environment finds the runtime dependencies through a ``.pth`` line naming this
environment's site-packages (a path in a ``.pth`` file is not scanned for further ``.pth`` files,
so this checkout's own editable install stays out of it); the package itself comes only from the
wheel.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.support.browser import free_port, settle, wait_until_healthy
from tests.support.paths import ROOT

# One wheel for the module: both tests run on the worker that built it.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("installed")]

#: What is not part of a source tree (a clean checkout has none of these).
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".hypothesis", ".pytest_cache",
                                    ".ruff_cache")
#: Folders at the checkout's root that runs write (the data folder, artifacts, builds).
WRITTEN = {"artifacts", "data", "dist", "build"}


def _source(folder: str, names: list[str]) -> set[str]:
    return NOT_SOURCE(folder, names) | (WRITTEN & set(names) if Path(folder) == ROOT else set())


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` folder of a fresh environment with the wheel installed."""
    where = tmp_path_factory.mktemp("installed")
    source = where / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=_source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
                    "-w", str(where / "dist"), str(source)], check=True, cwd=where, timeout=300)
    wheel = next((where / "dist").glob("chunk_inspector-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "app_pages/main.py" in names and "inspector/sample_corpus/golden-questions.jsonl" in names
    assert "app_pages/.streamlit/config.toml" in names, "the server's settings ship beside the router"
    environment = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True, timeout=120)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(environment), "platbase": str(environment)}))
    (site / "runtime-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(environment / "bin" / "python"), "install",
                    "--no-deps", "--no-index", "--quiet", "--disable-pip-version-check", str(wheel)],
                   check=True, cwd=where, timeout=300)
    return environment / "bin"


def _outside(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHUNK_INSPECTOR_", "PYTHON"))}
    return dict(env, CHUNK_INSPECTOR_DATA=str(tmp_path / "data"))


def test_the_installed_command_reports_on_the_bundled_corpus(installed, tmp_path):
    env = _outside(tmp_path)
    where = subprocess.run([installed / "python", "-c", "import inspector, app_pages; print(inspector.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert where.stdout.startswith(str(installed.parent)), where.stdout + where.stderr
    shown = subprocess.run([installed / "chunk-inspector", "report", "--quiet", "--spec", "structured:800",
                            "--spec", "fixed:800"], capture_output=True, text=True, cwd=tmp_path, env=env,
                           timeout=300)
    assert shown.returncode == 0, shown.stderr
    assert "56 documents" in shown.stdout and "structured 800 is best on answer@5" in shown.stdout
    assert "Traceback" not in shown.stderr
    missing = subprocess.run([installed / "chunk-inspector", "report", "sample_corpus"], capture_output=True,
                             text=True, cwd=tmp_path, env=env, timeout=60)
    assert missing.returncode == 2
    assert "no CORPUS" in missing.stderr and "Traceback" not in missing.stderr


#: The colour the app's own settings give its links and chosen options (as a browser computes it).
PRIMARY = "rgb({}, {}, {})".format(*bytes.fromhex(tomllib.loads(
    (ROOT / "app_pages" / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["theme"]["primaryColor"][1:]))
#: How many elements of the page are drawn in ``PRIMARY``.
IN_PRIMARY = """colour => [...document.querySelectorAll('*')].filter(element => {
    const style = getComputedStyle(element);
    return style.color === colour || style.backgroundColor === colour;
}).length"""


def test_the_installed_app_serves_its_pages(installed, tmp_path, browser):
    """Started in a folder of the user's (no Streamlit settings there), the server still runs
    with the app's own settings (error details hidden, uploads capped, its theme): the theme's
    colour shows they were read."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "one.md").write_text("# Only here\n\nA note that the installed app opens.\n", encoding="utf-8")
    port = free_port()
    log_path = tmp_path / "server.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen([installed / "chunk-inspector", "app", str(corpus), "--no-browser",
                                   "--port", str(port), "--address", "127.0.0.1"],
                                  cwd=tmp_path, env=_outside(tmp_path), stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(server, url, log_path, 90)
        tab = browser.new_page()
        tab.goto(url)
        expect(tab.get_by_text("one.md").first).to_be_visible(timeout=60_000)
        settle(tab)
        expect(tab.get_by_text("Traceback")).to_have_count(0)
        # The run has ended, but its elements are styled as React draws them: give them a moment.
        try:
            tab.wait_for_function(f"colour => ({IN_PRIMARY})(colour) > 0", arg=PRIMARY, timeout=15_000)
        except PlaywrightTimeout:
            pytest.fail("the app's theme is not applied: its settings were not read", pytrace=False)
        tab.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
