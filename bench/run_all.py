"""Run every benchmark in this folder, one after another; what each prints is also written,
dated, to ``bench/results/<benchmark>.txt``.

``python bench/run_all.py report load`` runs only the benchmarks named (``bench_report.py``,
``bench_load.py``); a name that matches no benchmark is refused before anything runs.

Each benchmark runs in a process of its own: Linux keeps a process's peak memory across
``exec``, so a child started by a runner that had grown would report the runner's peak as its own."""

import datetime
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

scripts = sorted(HERE.glob("bench_*.py"))
wanted = set(sys.argv[1:])
unknown = wanted - {script.stem.removeprefix("bench_") for script in scripts}
if unknown:
    sys.exit(f"no benchmark named {', '.join(sorted(unknown))}; "
             f"these exist: {', '.join(script.stem.removeprefix('bench_') for script in scripts)}")
if wanted:
    scripts = [script for script in scripts if script.stem.removeprefix("bench_") in wanted]
(HERE / "results").mkdir(exist_ok=True)
failed = []
for script in scripts:
    print(f"\n== {script.name}", flush=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(HERE / "results" / f"{script.stem}.txt", "w", encoding="utf-8") as kept:
        kept.write(f"# {script.name}, measured {stamp} on {os.cpu_count()} CPUs\n")
        running = subprocess.Popen([sys.executable, str(script)], cwd=HERE.parent, stdout=subprocess.PIPE, text=True)
        for line in running.stdout:
            sys.stdout.write(line)
            kept.write(line)
        if running.wait():
            failed.append(script.name)
sys.exit(f"failed: {', '.join(failed)}" if failed else 0)
