"""``--engine ray``: files read and analysed on a Ray cluster with Ray Data, measured as the local engine does.

Reading a file and finding its atoms are a pure function of the file and the atom mode, and
the costliest steps of a run; they map onto Ray Data as one ``map_batches``: over a listing of
paths (``ray_read``, which hands each file's document, analysis and facts on in corpus order,
for ``ray.corpus``), or over documents the driver read (``ray_analyses``). Each analysis
comes back as ``marshal`` bytes of ``Analysis.to_plain``. The corpus then goes, with its
analyses, to the cluster's partitions (``ray.partitions``), which split and measure every
built-in splitter and index and rank BM25 with the local engine's own code, the driver summing
and merging what they send back, so the printed numbers are identical. Every pass goes to
every partition at once (the driver, a process holding Ray's threads, must not fork measuring
workers of its own).

The cluster is ``$RAY_ADDRESS`` when set (``ray job submit -- python -m inspector report ...``
runs the same command on one), else a local Ray started for the run. Ray is an optional extra.
The package travels to a cluster's workers with the job (``runtime_env`` ``py_modules``), so a
cluster needs only the requirements installed; a local Ray's workers import it as the command does.
"""

from __future__ import annotations

import marshal
import os
import site
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ...atoms.analysis import Analysis
from ...errors import EngineError
from ...extras import install_hint
from ...model import Document

ENV_ADDRESS = "RAY_ADDRESS"
#: Ray Data's workers draw no progress bars (the command draws its own).
QUIET_DATA = "RAY_DATA_DISABLE_PROGRESS_BARS"
#: Ray's notices that tell a user of Ray, not of this command, what Ray chose: that a local Ray
#: enables token authentication (an invitation to switch it off), that Ray Data draws no
#: progress bars (the command draws its own). Kept from the command's output; errors still show.
RAY_NOTICES = ("ray._private.authentication.authentication_token_setup", "ray.data._internal.progress")
#: Documents per Ray Data batch: large enough to pay for a task, small enough to spread a corpus.
BATCH = 64


class _Session:
    """A command's time on Ray (``ray_session``): whether ``start_ray`` started or reached Ray in it."""

    started = False


_SESSION: _Session | None = None


def ray_available() -> bool:
    """Whether Ray Data can be imported (checked before a run, not half-way through it)."""
    import importlib.util

    return importlib.util.find_spec("ray") is not None


def start_ray(num_cpus: int | None = None) -> bool:
    """Connect to ``$RAY_ADDRESS``, or start a local Ray (no dashboard, loopback only); False,
    doing nothing, when Ray is already running in this process."""
    if not ray_available():
        raise EngineError(f"--engine ray needs Ray: {install_hint('ray')}")
    import logging

    import ray

    if ray.is_initialized():
        return False
    for name in RAY_NOTICES:
        logging.getLogger(name).setLevel(logging.ERROR)
    package = Path(__file__).resolve().parents[2]  # the inspector package
    address = os.environ.get(ENV_ADDRESS) or None
    try:
        if address:
            runtime_env = {"py_modules": [str(package)], "env_vars": {QUIET_DATA: "1"}}
            ray.init(address=address, runtime_env=runtime_env, log_to_driver=False, logging_level=logging.WARNING)
        else:
            with local_workers_environment(package):
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.WARNING, _node_ip_address="127.0.0.1")
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "a local Ray"
        raise EngineError(f"could not start or reach {where}: {' '.join(str(exc).split())[:300]}") from None
    if _SESSION is not None:
        _SESSION.started = True
    return True


@contextmanager
def local_workers_environment(package: Path) -> Iterator[None]:
    """The environment a local Ray starts in, which its workers inherit: they run this interpreter,
    so they import the package as this process does, from the same site-packages or from the
    folder holding it put on their path. A runtime environment (``py_modules``) would start each
    worker through Ray's set-up process, a second interpreter importing Ray before the worker's
    own, which every command's partitions (new actors, new workers) would wait for."""
    parent = str(package.parent)
    sites = {str(Path(folder).resolve()) for folder in (*site.getsitepackages(), site.getusersitepackages())}
    path = os.environ.get("PYTHONPATH")
    wanted = {QUIET_DATA: "1"}
    if parent not in sites:
        wanted["PYTHONPATH"] = os.pathsep.join(filter(None, (parent, path)))
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:  # the processes Ray started have their copy; this one's environment is as it was
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def ray_session() -> Iterator[None]:
    """A command's time on Ray: a Ray that ``start_ray`` starts, or a cluster it connects to,
    inside it is let go on exit (a local Ray stops; a cluster ends this run's actors)."""
    global _SESSION
    _SESSION = session = _Session()
    try:
        yield
    finally:
        _SESSION = None
        if session.started:
            import ray

            ray.shutdown()


def _analyse_batch(mode: str) -> Callable[[dict], dict]:
    def analyse(batch: dict) -> dict:
        import numpy as np

        from inspector.atoms.detect import analyze

        plain = [marshal.dumps(analyze(str(text), mode).to_plain()) for text in batch["text"]]
        return {"position": batch["position"], "plain": np.array(plain, dtype=object)}

    return analyse


def ray_analyses(documents: Sequence[Document], mode: str) -> list[Analysis]:
    """Every document's analysis, computed on the Ray cluster, in the order given (Ray is
    connected or started when it is not yet, and left running: see ``ray_session``)."""
    if not documents:
        return []
    items = [{"position": i, "text": d.text} for i, d in enumerate(documents)]
    found: list[Analysis | None] = [None] * len(documents)
    for row in _mapped(items, _analyse_batch(mode)):
        found[int(row["position"])] = Analysis.from_plain(marshal.loads(row["plain"]))
    missing = [documents[i].id for i, a in enumerate(found) if a is None]
    if missing:
        raise EngineError(f"the Ray job returned no analysis for {len(missing)} documents (first {missing[0]})")
    return found  # type: ignore[return-value]


def _read_batch(reading, store: str | None) -> Callable[[dict], dict]:
    def read(batch: dict) -> dict:
        import pickle

        import numpy as np

        from inspector.engines.reading import facts_of, read_analysed

        items, plains, facts = [], [], []
        for found in read_analysed(reading, store, list(zip(map(str, batch["id"]), map(str, batch["path"])))):
            if isinstance(found, tuple):
                document, analysis = found
                items.append(pickle.dumps(document))
                plains.append(marshal.dumps(analysis.to_plain()))
                facts.append(marshal.dumps(facts_of(document, analysis, reading.mode)))
            else:
                items.append(pickle.dumps(found))
                plains.append(b"")
                facts.append(b"")
        column = lambda values: np.array(values, dtype=object)  # noqa: E731
        return {"position": batch["position"], "item": column(items), "plain": column(plains), "facts": column(facts)}

    return read


def ray_read(listing, reading, store: str | None = None) -> Iterator[tuple[bytes, bytes, bytes]]:
    """Every file of a ``corpus.Listing`` read on the Ray cluster by ``reading`` (a
    ``corpus.Reading``), with its analysis (from ``store``, a data folder, where the worker
    reaches it, else computed and kept there) and facts, in the listing's order: per file, the
    pickled document or ``SkippedFile``, the analysis as ``marshal`` bytes of ``to_plain`` and
    ``marshal`` bytes of ``(id, characters, language, atom lengths by kind, query candidates)``
    (both empty for a skipped file). Rows are handed over as they come, so only a few batches
    are held at a time."""
    if not listing.entries:
        return
    items = [{"position": i, "id": doc_id, "path": path} for i, (doc_id, path) in enumerate(listing.entries)]
    waiting: dict[int, tuple[bytes, bytes, bytes]] = {}
    expected = 0
    for row in _mapped(items, _read_batch(reading, store)):
        waiting[int(row["position"])] = (row["item"], row["plain"], row["facts"])
        while expected in waiting:  # in the listing's order, whatever order the batches finish in
            yield waiting.pop(expected)
            expected += 1
    if expected != len(items):
        raise EngineError(f"the Ray job returned {expected} of {len(items)} files")


def _mapped(items: list[dict], function: Callable[[dict], dict]) -> Iterator[dict]:
    """The rows ``function`` makes of ``items``, batch by batch, on the Ray cluster (connected or
    started when it is not yet), in the items' order as far as Ray Data keeps it."""
    start_ray()
    import logging

    import ray.data

    logging.getLogger("ray.data").setLevel(logging.WARNING)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.execution_options.preserve_order = True
    dataset = ray.data.from_items(items, override_num_blocks=max(1, min(len(items) // BATCH, 256)))
    return dataset.map_batches(function, batch_format="numpy", batch_size=BATCH).iter_rows()
