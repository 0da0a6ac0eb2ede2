"""Time the full `report` on a 3.5 MB corpus, and compare with the article's script.

Target: at least 20x faster than the article's script (which recomputes atoms dozens of times
per file). The article's script is not part of this project: save it yourself from
``../shared/seeds/000_940905ea2d7d3d5d.txt`` with its corpus glob pointed at ``sys.argv[1]``
(every ``*.md`` below it, sorted) and pass its path in ``ARTICLE_SCRIPT`` to time it here.

    python bench/bench_report.py
    ARTICLE_SCRIPT=/path/to/article_script.py python bench/bench_report.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from common import ROOT, best_of, big_corpus, corpus_bytes


def run(args: list[str]) -> None:
    subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    folder = big_corpus()
    try:
        size = corpus_bytes(folder)
        print(f"corpus: {size / 1e6:.2f} MB in {folder}")
        ours = {}
        for mode in ("seed", "markdown"):
            ours[mode] = best_of(lambda m=mode: run([sys.executable, "-m", "inspector", "report", str(folder),
                                                     "--atoms", m, "--json", "--quiet"]))
            print(f"report --atoms {mode:8s} {ours[mode]:7.2f} s  ({size / 1e6 / ours[mode]:.2f} MB/s)")
        script = os.environ.get("ARTICLE_SCRIPT")
        if script:
            theirs = best_of(lambda: run([sys.executable, script, str(folder)]), repeat=1)
            ratio = theirs / ours["seed"]
            verdict = "meets" if ratio >= 20 else "MISSES"
            print(f"article script       {theirs:7.2f} s  -> report is {ratio:.1f}x faster ({verdict} the 20x target)")
        else:
            print("set ARTICLE_SCRIPT to the article's script to measure the speed-up (target: 20x)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
