"""Time the full `report` on a 3.5 MB corpus, cold and warm, and compare with the article's script.

Target: at least 20x faster than the article's script (which recomputes atoms dozens of times
per file). *Cold* runs each get an empty data folder; *warm* runs share one an earlier run
filled, so they read every document's analysis (``atoms.store``) instead of computing it.
Wall times are noisy on a shared machine: ours is run several times and its
median is compared (the minimum is shown too); the article's script, which takes half a
minute, once. The article's script is not part of this project: save it yourself from
``../shared/seeds/000_940905ea2d7d3d5d.txt`` with its corpus glob pointed at ``sys.argv[1]``
(every ``*.md`` below it, sorted) and pass its path in ``ARTICLE_SCRIPT`` to time it here.

    python bench/bench_report.py
    ARTICLE_SCRIPT=/path/to/article_script.py python bench/bench_report.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from common import ROOT, big_corpus, corpus_bytes, describe, timings


def run(args: list[str], data: str | None = None) -> None:
    """Run ``args`` with ``data`` as the data folder (None: a fresh, empty one)."""
    folder = data or tempfile.mkdtemp(prefix="bench-data-")
    try:
        subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env={**os.environ, "CHUNK_INSPECTOR_DATA": folder})
    finally:
        if data is None:
            shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    folder = big_corpus()
    try:
        size = corpus_bytes(folder)
        print(f"corpus: {size / 1e6:.2f} MB in {folder}")
        ours = {}
        warm = tempfile.mkdtemp(prefix="bench-data-warm-")
        for mode, repeat in (("seed", 7), ("markdown", 3)):
            command = [sys.executable, "-m", "inspector", "report", str(folder), "--atoms", mode, "--json", "--quiet"]
            times = timings(lambda c=command: run(c), repeat)
            ours[mode] = statistics.median(times)
            print(f"report --atoms {mode:8s} cold {describe(times)}  ({size / 1e6 / ours[mode]:.2f} MB/s)")
            run(command, warm)
            times = timings(lambda c=command: run(c, warm), repeat)
            ours[mode + " warm"] = statistics.median(times)
            print(f"report --atoms {mode:8s} warm {describe(times)}  ({size / 1e6 / ours[mode + ' warm']:.2f} MB/s, "
                  "analyses kept)")
        shutil.rmtree(warm, ignore_errors=True)
        script = os.environ.get("ARTICLE_SCRIPT")
        if script:
            theirs = timings(lambda: run([sys.executable, script, str(folder)]), repeat=1)[0]
            ratio = theirs / ours["seed"]
            verdict = "meets" if ratio >= 20 else "MISSES"
            print(f"article script       {theirs:7.2f} s  -> report (median) is {ratio:.1f}x faster "
                  f"({verdict} the 20x target)")
        else:
            print("set ARTICLE_SCRIPT to the article's script to measure the speed-up (target: 20x)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
