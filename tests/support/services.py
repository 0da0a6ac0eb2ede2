"""Real services a test starts on 127.0.0.1 and stops at its end."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def started_mlflow_server(folder: Path, wait: float = 120.0):
    """``mlflow server`` with a SQLite store and its artifacts in ``folder``; yields its URL."""
    port = free_port()
    log = open(folder / "server.log", "wb")
    command = [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
               "--backend-store-uri", f"sqlite:///{folder / 'runs.db'}", "--artifacts-destination",
               str(folder / "artifacts"), "--workers", "1"]
    environ = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true"}
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=environ, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("mlflow server did not start: " + (folder / "server.log").read_text()[-2000:])
            time.sleep(0.3)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, 15)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()
        log.close()
