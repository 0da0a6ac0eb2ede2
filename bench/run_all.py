"""Run every benchmark in this folder, one after another; what each prints is also written,
dated, to ``bench/results/<benchmark>.txt``."""

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


(HERE / "results").mkdir(exist_ok=True)
for script in sorted(HERE.glob("bench_*.py")):
    print(f"\n== {script.name}")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with open(HERE / "results" / f"{script.stem}.txt", "w", encoding="utf-8") as kept:
        kept.write(f"# {script.name}, measured {stamp} on {os.cpu_count()} CPUs\n")
        with contextlib.redirect_stdout(_Both(sys.stdout, kept)):
            runpy.run_path(str(script), run_name="__main__")
