"""Time and peak memory of `report` (markdown atoms) as the corpus grows, on each engine.

Corpora of 3.6, 36 and 360 MB are built from copies of the bench corpus (``SCALES`` picks which,
``BENCH_SCALE_MB=3.6,36`` for a quick run). Each run gets a fresh data folder, so nothing is read
from an earlier one. Peak memory comes from ``getrusage`` of the children: the largest resident
set of any one process of the run (the command or a worker it forked); *all processes* is the
largest sum, sampled every half second, of the proportional set sizes of the command and every
process under it (Ray's workers, raylet and object store included, when the command started
them). Engines: ``stream`` (what ``--engine local`` runs from 16 MB of files: a batch of documents
at a time, the rest parked on disk), ``memory`` (the corpus held, as below 16 MB) and ``ray``.
Issue 15's targets on a 2-core, 24 GB machine: 36 MB under 1 GB peak; 360 MB under 4 GB and 150 s
locally; peak memory growing at most half as fast as the corpus between 36 and 360 MB.

Each run also says which process held the peak: the command (the driver) or one of its workers
(each process's own high-water mark). For the streamed engine, the driver's run is traced once
more at the smallest scale of at least 36 MB (``BENCH_TRACE=0`` leaves it out): Python's
allocations at the driver's traced peak, the three largest sites, so the bench names the
structure that holds the peak.

``BENCH_GOLDEN=1`` adds the sample corpus's golden set to every run (its questions without their
document names, so that any copy of a quote answers): a streamed golden set is located and scored
over the batches too.

    python bench/bench_scale.py
    BENCH_SCALE_MB=3.6,36 BENCH_ENGINES=stream,memory python bench/bench_scale.py
    BENCH_GOLDEN=1 BENCH_SCALE_MB=36,360 BENCH_ENGINES=stream python bench/bench_scale.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import ROOT, big_corpus, corpus_bytes

SCALES = tuple(float(x) for x in os.environ.get("BENCH_SCALE_MB", "3.6,36,360").split(","))
GOLDEN = os.environ.get("BENCH_GOLDEN") == "1"
ENGINES = tuple(os.environ.get("BENCH_ENGINES", "stream,memory,ray").split(","))
TIMEOUT = 1_800


def grown(base: Path, megabytes: float) -> Path:
    """A folder holding enough copies of ``base`` to reach ``megabytes``."""
    size = corpus_bytes(base)
    copies = max(1, round(megabytes * 1e6 / size))
    folder = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    for k in range(copies):
        shutil.copytree(base, folder / f"x{k:03d}")
    return folder


def measure(folder: Path, engine: str) -> tuple[float, float, float, float, float] | str:
    """Seconds, peak resident megabytes of one process, peak proportional megabytes of all of
    them, and the peaks of the driver and of its largest worker, of one `report`, or why it failed."""
    data = tempfile.mkdtemp(prefix="bench-scale-data-")
    command = _command(folder, engine, data)
    start = time.perf_counter()
    try:
        # Through a wrapper process of its own: the children's peak is the largest any child has
        # had so far, so a run measured from here would inherit a larger earlier run's.
        run = subprocess.Popen([sys.executable, "-c", _PEAK, *command], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env={**os.environ, "CHUNK_INSPECTOR_DATA": data})
        sampler = _Sampler(run.pid)
        sampler.start()
        try:
            _, stderr = run.communicate(timeout=TIMEOUT)
        finally:
            sampler.stop.set()
            sampler.join()
    except subprocess.TimeoutExpired:
        run.kill()
        return f"over {TIMEOUT} s"
    finally:
        shutil.rmtree(data, ignore_errors=True)
    seconds = time.perf_counter() - start
    lines = stderr.decode(errors="replace").strip().splitlines()
    if run.returncode:
        return f"exit {run.returncode}: {lines[-1:]}"
    return (seconds, int(lines[-1].split()[-1]) / 1024, sampler.peak / 1024, sampler.driver / 1024,
            sampler.worker / 1024)


def _command(folder: Path, engine: str, data: str) -> list[str]:
    command = [sys.executable, "-m", "inspector", "report", str(folder), "--json", "--quiet", "--engine", engine]
    return command + (["--golden", _golden_set(data)] if GOLDEN else [])


# Runs `report` in this process under tracemalloc, the collector's snapshot taken each time the
# traced total passes the last one by 8 MB, and prints the three largest sites of the last.
_TRACED = """
import re, sys, threading, time, tracemalloc
from inspector.cli import main
tracemalloc.start(25)
held = [0, None]
def watch():
    while True:
        now = tracemalloc.get_traced_memory()[0]
        if now > held[0] + 8e6:
            held[:] = [now, tracemalloc.take_snapshot()]
        time.sleep(0.2)
threading.Thread(target=watch, daemon=True).start()
main(sys.argv[1:])
for stat in held[1].statistics("traceback")[:3]:
    ours = [f for f in stat.traceback if "/inspector/" in f.filename] or list(stat.traceback)
    # a project file by its path in the project, another by its path among the libraries
    site = f"{re.sub(r'.*/(inspector|lib/python3[.][0-9]+)/', '', ours[-1].filename)}:{ours[-1].lineno}"
    print(f"{stat.size / 2**20:5.0f} MB in {stat.count} blocks, {site}", file=sys.stderr)
"""


def traced(folder: Path) -> list[str]:
    """The streamed driver's three largest holders at its traced peak (a slow run: every
    allocation traced)."""
    data = tempfile.mkdtemp(prefix="bench-scale-data-")
    try:
        done = subprocess.run([sys.executable, "-c", _TRACED, *_command(folder, "local", data)[3:]], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT,
                              env={**os.environ, "CHUNK_INSPECTOR_DATA": data})
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return done.stderr.decode(errors="replace").strip().splitlines()[-3:]


def _golden_set(folder: str) -> str:
    """The sample corpus's golden set without the documents its questions name, in ``folder``."""
    records = [json.loads(line) for line in (ROOT / "sample_corpus" / "golden-questions.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    path = Path(folder) / "golden.jsonl"
    path.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "doc_id"}) + "\n" for r in records),
                    encoding="utf-8")
    return str(path)


class _Sampler(threading.Thread):
    """Every half second, the proportional set size (kB; shared pages split among the processes
    sharing them) of a process and all its descendants: Ray's workers and object store included;
    and the high-water marks of the command (the wrapper's child) and of its largest worker."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root, self.peak, self.stop = root, 0, threading.Event()
        self.driver = self.worker = 0

    def run(self) -> None:
        while not self.stop.wait(0.5):
            found = _descendants(self.root)
            self.peak = max(self.peak, sum(_pss(pid) for pid in found))
            for pid in found[1:2]:  # the wrapper's child: the command
                self.driver = max(self.driver, _high_water(pid))
            for pid in found[2:]:
                self.worker = max(self.worker, _high_water(pid))


def _high_water(pid: int) -> int:
    return _kilobytes(f"/proc/{pid}/status", "VmHWM:")


def _descendants(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = [root], [root]
    while frontier:
        frontier = [pid for pid, parent in parents.items() if parent in frontier]
        found += frontier
    return found


def _pss(pid: int) -> int:
    return _kilobytes(f"/proc/{pid}/smaps_rollup", "Pss:")


def _kilobytes(path: str, field: str) -> int:
    """A ``/proc`` file's figure in kB (0 once the process is gone)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# Runs the command and prints the largest resident set (kB) of any of its processes.
_PEAK = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
         "print('peak', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
         "sys.exit(done.returncode)")


def main() -> None:
    base = big_corpus()
    size = corpus_bytes(base)
    print(f"bench corpus: {size / 1e6:.2f} MB; scales {', '.join(f'{s:g} MB' for s in SCALES)}")
    results: dict[tuple[str, float], tuple[float, float] | str] = {}
    try:
        for engine in ENGINES:
            for megabytes in sorted(SCALES):
                folder = grown(base, megabytes)
                try:
                    found = measure(folder, engine)
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
                results[engine, megabytes] = found
                if isinstance(found, str):
                    print(f"{engine:6s} {megabytes:6g} MB  failed: {found}")
                else:
                    held = "the driver" if found[3] >= found[4] else "a worker"
                    print(f"{engine:6s} {megabytes:6g} MB  {found[0]:7.1f} s  peak {found[1]:7.0f} MB, "
                          f"all processes {found[2]:7.0f} MB  ({megabytes / found[0]:.2f} MB/s); "
                          f"driver {found[3]:.0f} MB, largest worker {found[4]:.0f} MB: {held} held the peak")
        small = [mb for mb in sorted(SCALES) if mb >= 36] or sorted(SCALES)
        if "stream" in ENGINES and os.environ.get("BENCH_TRACE") != "0":
            folder = grown(base, small[0])
            try:
                print(f"stream {small[0]:g} MB, the driver traced: its largest holders at its peak")
                for line in traced(folder):
                    print(f"  {line}")
            finally:
                shutil.rmtree(folder, ignore_errors=True)
        for engine in ENGINES:
            runs = {mb: r for (e, mb), r in results.items() if e == engine and not isinstance(r, str)}
            if 36 in runs and 360 in runs:
                growth = (runs[360][1] / runs[36][1]) / 10
                print(f"{engine} peak memory grows {growth:.2f}x as fast as the corpus from 36 to 360 MB (target 0.5)")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
