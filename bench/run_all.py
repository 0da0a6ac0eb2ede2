"""Run every benchmark in this folder, one after another; what each prints is also written,
dated, to ``bench/results/<benchmark>.txt``.

``python bench/run_all.py report load`` runs only the benchmarks named (``bench_report.py``,
``bench_load.py``); a name that matches no benchmark is refused before anything runs."""

import contextlib
import datetime
import io
import os
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


class _Both(io.TextIOBase):
    """Writes to the terminal and to a file at once."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


scripts = sorted(HERE.glob("bench_*.py"))
wanted = set(sys.argv[1:])
unknown = wanted - {script.stem.removeprefix("bench_") for script in scripts}
if unknown:
    sys.exit(f"no benchmark named {', '.join(sorted(unknown))}; "
             f"these exist: {', '.join(script.stem.removeprefix('bench_') for script in scripts)}")
if wanted:
    scripts = [script for script in scripts if script.stem.removeprefix("bench_") in wanted]
(HERE / "results").mkdir(exist_ok=True)
for script in scripts:
    print(f"\n== {script.name}")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(HERE / "results" / f"{script.stem}.txt", "w", encoding="utf-8") as kept:
        kept.write(f"# {script.name}, measured {stamp} on {os.cpu_count()} CPUs\n")
        with contextlib.redirect_stdout(_Both(sys.stdout, kept)):
            sys.argv = [str(script)]  # each benchmark reads its own arguments: none, its defaults
            runpy.run_path(str(script), run_name="__main__")
