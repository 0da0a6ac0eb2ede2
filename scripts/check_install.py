"""Install Chunk Inspector the way a user does and run it: a wheel built from this checkout, a
fresh virtual environment outside it, ``pip install`` of the wheel with its dependencies from the
package index, then ``chunk-inspector report`` on the bundled corpus and ``chunk-inspector app``
on a folder to its health check and its first page.

Run by ``make install-check`` (and CI). It prints what the install took (seconds, megabytes,
packages) and how long the app took to answer; it exits 1, naming the step, when one fails.

    python scripts/check_install.py [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What a clean checkout does not hold: the wheel is built from the source alone.
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".hypothesis", ".pytest_cache",
                                    ".ruff_cache", "site")
WRITTEN = {"artifacts", "data", "dist", "build"}


class Failed(Exception):
    """A step of the install or of the first run failed."""


def _ignored(folder: str, names: list[str]) -> set[str]:
    return NOT_SOURCE(folder, names) | (WRITTEN & set(names) if Path(folder) == ROOT else set())


def _run(step: str, command: list, **options) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, **options)
    if done.returncode != 0:
        raise Failed(f"{step} exited {done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
    return done


def _size_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answer(url: str, server: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise Failed(f"the app exited ({server.returncode}) before answering")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.25)
    raise Failed(f"the app did not answer its health check within {seconds:.0f} s")


def check(where: Path) -> list[str]:
    """Build, install and run in ``where``; the lines of the summary."""
    source = where / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=_ignored)
    _run("building the wheel", [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                                "--disable-pip-version-check", "-w", where / "dist", source], cwd=where)
    wheel = next((where / "dist").glob("chunk_inspector-*.whl"))
    environment = where / "venv"
    _run("making the environment", [sys.executable, "-m", "venv", environment])
    python = environment / "bin" / "python"
    started = time.monotonic()
    _run("pip install of the wheel", [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                                      wheel], cwd=where)
    installed = time.monotonic() - started
    packages = len(_run("pip list", [python, "-m", "pip", "list", "--format=freeze"]).stdout.split())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHUNK_INSPECTOR_", "PYTHON"))}
    env["CHUNK_INSPECTOR_DATA"] = str(where / "data")
    command = environment / "bin" / "chunk-inspector"
    shown = _run("chunk-inspector report", [command, "report", "--quiet", "--spec", "structured:800"],
                 cwd=where, env=env, timeout=600)
    if "56 documents" not in shown.stdout or "Traceback" in shown.stderr:
        raise Failed(f"chunk-inspector report printed an unexpected report:\n{shown.stdout[:2000]}")
    notes = where / "notes"
    notes.mkdir()
    (notes / "one.md").write_text("# One note\n\nThe installed app opens this folder.\n", encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    with open(where / "server.log", "wb") as log:
        server = subprocess.Popen([command, "app", notes, "--no-browser", "--port", str(port), "--address",
                                   "127.0.0.1"], cwd=where, env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        _answer(url, server, 120)
        answered = time.monotonic() - started
        with urllib.request.urlopen(url + "/", timeout=10) as response:
            if response.status != 200:
                raise Failed(f"the app's first page answered {response.status}")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    return [f"wheel          {wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)",
            f"pip install    {installed:.0f} s, {packages} packages, environment {_size_mb(environment):.0f} MB",
            "report         the bundled corpus, 56 documents",
            f"app            health check answered {answered:.1f} s after `chunk-inspector app` started"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the environment and print where it is")
    options = parser.parse_args(argv)
    where = Path(tempfile.mkdtemp(prefix="chunk-inspector-install-"))
    try:
        lines = check(where)
    except (Failed, OSError, subprocess.SubprocessError) as exc:
        print(f"install check failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if not options.keep:
            shutil.rmtree(where, ignore_errors=True)
    print("\n".join(lines))
    if options.keep:
        print(f"kept in {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
