"""``chunk-inspector app [CORPUS]``: the app's server on this machine, from a checkout or an
installed package alike.

The pages ship beside ``inspector`` as the ``app_pages`` package; this command runs its main
script (``app_pages/main.py``, which runs the router) under Streamlit, handing the corpus, the
allowed folders and the stores to the app's own start-up (``views.launch``) after Streamlit's ``--``.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from ..errors import AppNotInstalled, CorpusError
from .config import AppOptions, RunConfig
from .opening import Run


def router() -> Path:
    """The app's main script, found without importing the pages (which import Streamlit)."""
    spec = importlib.util.find_spec("app_pages")
    if spec is None or not spec.submodule_search_locations:
        raise AppNotInstalled("the app's pages (the app_pages package) are not installed beside inspector; "
                         "reinstall chunk-inspector")
    main = Path(next(iter(spec.submodule_search_locations))) / "main.py"
    if not main.is_file():
        raise AppNotInstalled(f"the app's router is missing from {main.parent}; reinstall chunk-inspector")
    return main


#: The addresses a server listens on every interface with.
EVERY_INTERFACE = ("0.0.0.0", "::")


def streamlit_command(config: RunConfig, main: Path) -> list[str]:
    """``python -m streamlit run`` with the server's settings, then the app's own arguments."""
    options: AppOptions = config.options
    command = [sys.executable, "-m", "streamlit", "run", str(main), "--browser.gatherUsageStats=false",
               f"--server.port={options.port}", f"--server.address={options.address}"]
    if not options.browser:
        command.append("--server.headless=true")
    if options.address in EVERY_INTERFACE:
        # Named, so Streamlit does not ask an outside service for this machine's address (it
        # would, on every start on all interfaces): the app makes no request beyond its machine.
        command.append(f"--browser.serverAddress={socket.gethostname()}")
    command.append("--")
    if config.corpus.path:
        command += ["--corpus", config.corpus.path]
    for root in options.allow_roots:
        command += ["--allow-root", root]
    for store in options.stores:
        command += ["--store", store]
    return command


def run_app(run: Run[AppOptions]) -> int:
    """Serve the app until interrupted; the server's exit status."""
    config = run.config
    if config.corpus.path and not os.path.isdir(config.corpus.path):
        raise CorpusError(f"corpus folder not found: {config.corpus.path}")
    main = router()
    environ = dict(os.environ)
    # The router imports ``app_pages`` by name; from a checkout, its parent is not on the path
    # of a Streamlit started elsewhere.
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(main.parent.parent), environ.get("PYTHONPATH")]))
    options: AppOptions = config.options
    sys.stderr.write(f"Chunk Inspector on {server_addresses(options.address, options.port)} (Ctrl-C stops it)\n")
    return _serve(streamlit_command(config, main), environ)


def server_addresses(address: str, port: int) -> str:
    """Where a browser reaches a server listening on ``address``: this machine's name too when it
    listens on every interface."""
    if address in EVERY_INTERFACE:
        return f"http://localhost:{port} and, from the network, http://{socket.gethostname()}:{port}"
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}"


def _serve(command: list[str], environ: dict[str, str]) -> int:
    """Run the server until it stops or this command is told to (SIGTERM or SIGINT, from a
    terminal or a process manager): the server is stopped with it, never left serving."""
    server = subprocess.Popen(command, env=environ)
    told: list[int] = []

    def stop(signum, _frame) -> None:
        told.append(signum)
        if server.poll() is None:
            server.terminate()  # Streamlit shuts down cleanly on SIGTERM

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        status = server.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
    return 0 if told else status
