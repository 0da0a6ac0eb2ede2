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


def _serving(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


@pytest.mark.parametrize("signum", ["SIGTERM", "SIGINT"])
def test_stopping_the_command_stops_its_server(tmp_path, signum):
    import signal
    import time

    from tests.support.services import free_port

    port = free_port()
    command = subprocess.Popen([sys.executable, "-m", "inspector", "app", "--no-browser", "--port", str(port),
                                "--address", "127.0.0.1"], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while not _serving(port):
            assert command.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.5)
        command.send_signal(getattr(signal, signum))
        assert command.wait(timeout=30) == 0
        deadline = time.monotonic() + 15
        while _serving(port) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert not _serving(port), "the server outlived its command"
        assert "http://127.0.0.1:" + str(port) in command.stderr.read()
    finally:
        if command.poll() is None:
            command.kill()


def test_a_server_on_every_interface_names_this_machine_too():
    import socket

    from inspector.cli.app import server_addresses

    # To Streamlit as well, which would otherwise ask an outside service for the machine's address.
    named = f"--browser.serverAddress={socket.gethostname()}"
    assert named in streamlit_command(_config("--address", "0.0.0.0", "--no-browser"), router())
    assert not any(a.startswith("--browser.serverAddress") for a in streamlit_command(_config(), router()))
    shown = server_addresses("0.0.0.0", 8501)
    assert shown.startswith("http://localhost:8501") and f"http://{socket.gethostname()}:8501" in shown
    assert server_addresses("::1", 80) == "http://[::1]:80"
    assert server_addresses("localhost", 8501) == "http://localhost:8501"
