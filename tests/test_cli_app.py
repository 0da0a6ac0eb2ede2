"""``chunk-inspector app``: the server's command, read once, refused with one line when wrong."""

from __future__ import annotations

import subprocess
import sys

import pytest

from inspector.cli import build_parser
from inspector.cli.app import router, streamlit_command
from inspector.cli.config import run_config
from tests.support.paths import ROOT


def _config(*argv: str):
    return run_config(build_parser().parse_args(["app", *argv]), environ={})


def test_the_app_command_hands_the_corpus_and_roots_to_the_app_after_streamlits_separator(tmp_path):
    config = _config(str(tmp_path), "--allow-root", "/srv/docs", "--store", "handbook=chroma:/x?collection=c",
                     "--port", "8600", "--no-browser")
    command = streamlit_command(config, router())
    assert command[:4] == [sys.executable, "-m", "streamlit", "run"]
    assert command[4] == str(ROOT / "app_pages" / "main.py")
    settings, app = command[5:command.index("--")], command[command.index("--") + 1:]
    assert "--server.port=8600" in settings and "--server.address=localhost" in settings
    assert "--server.headless=true" in settings and "--browser.gatherUsageStats=false" in settings
    assert app == ["--corpus", str(tmp_path), "--allow-root", "/srv/docs", "--store", "handbook=chroma:/x?collection=c"]


def test_without_a_corpus_the_app_opens_its_own_sample_and_a_browser():
    command = streamlit_command(_config(), router())
    assert command[command.index("--") + 1:] == []
    assert "--server.headless=true" not in command


@pytest.mark.parametrize("argv, message", [
    (["--port", "0"], "a port is a whole number from 1 to 65535"),
    (["--port", "http"], "a port is a whole number from 1 to 65535"),
    (["/no/such/folder"], "corpus folder not found: /no/such/folder"),
])
def test_a_bad_app_setting_is_refused_with_one_line(argv, message, tmp_path):
    shown = subprocess.run([sys.executable, "-m", "inspector", "app", *argv], capture_output=True, text=True,
                           cwd=tmp_path, timeout=60)
    assert shown.returncode == 2
    assert message in shown.stderr and "Traceback" not in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1 or shown.stderr.startswith("usage:")
