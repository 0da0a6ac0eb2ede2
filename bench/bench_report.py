"""Time the full `report` on 3.5 MB corpora, cold and warm, and compare with the article's script.

Targets: seed mode at least 20x faster than the article's script (which recomputes atoms dozens
of times per file); markdown mode 12x cold and 30x warm (issue 15). *Cold* runs each get an
empty data folder; *warm* runs share one an earlier run filled, so they read every document's
analysis (``atoms.store``) and what runs derive from it (``measure.kept``) instead of computing them.
The package's bytecode is compiled first, as an installed package has it (with
``PYTHONDONTWRITEBYTECODE`` set, every run would otherwise compile every module again).
Wall times are noisy on a shared machine: each is run several times and the medians are
compared (the minimum is shown too), the article's script three times. The article's script is
not part of this project: save it yourself from ``../shared/seeds/000_940905ea2d7d3d5d.txt``
with its corpus glob pointed at ``sys.argv[1]`` (every ``*.md`` below it, sorted) and pass its
path in ``ARTICLE_SCRIPT`` to time it here.

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


#: The corpora measured: the bundled corpus's copies as they are (PDF, DOCX, PPTX and HTML files
#: converted too, which the article's script never reads); only the ``.md`` files the script reads;
#: and those made distinct, so that no analysis serves two files (the engine analyses a text
#: once however many files hold it, which flatters copies).
CORPORA = (("whole corpus, copies", {}), ("its .md files, copies", {"only": ".md"}),
           ("its .md files, distinct", {"only": ".md", "distinct": True}))
TARGETS = (("seed", 20), ("markdown", 12), ("markdown warm", 30))


def measure(folder, modes: tuple[tuple[str, int], ...]) -> dict[str, float]:
    """Our median wall times on ``folder``: each mode cold (a fresh data folder a run) and warm."""
    size = corpus_bytes(folder)
    ours = {}
    warm = tempfile.mkdtemp(prefix="bench-data-warm-")
    try:
        for mode, repeat in modes:
            command = [sys.executable, "-m", "inspector", "report", str(folder), "--atoms", mode, "--json", "--quiet"]
            times = timings(lambda c=command: run(c), repeat)
            ours[mode] = statistics.median(times)
            print(f"  report --atoms {mode:8s} cold {describe(times)}  ({size / 1e6 / ours[mode]:.2f} MB/s)")
            run(command, warm)
            times = timings(lambda c=command: run(c, warm), repeat)
            ours[mode + " warm"] = statistics.median(times)
            print(f"  report --atoms {mode:8s} warm {describe(times)}  ({size / 1e6 / ours[mode + ' warm']:.2f} MB/s, "
                  "analyses kept)")
    finally:
        shutil.rmtree(warm, ignore_errors=True)
    return ours


def main() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "inspector")], check=True,
                   stdout=subprocess.DEVNULL)
    script = os.environ.get("ARTICLE_SCRIPT")
    for number, (name, how) in enumerate(CORPORA):
        folder = big_corpus(**how)
        try:
            print(f"{name}: {corpus_bytes(folder) / 1e6:.2f} MB in {folder}")
            modes = (("seed", 7), ("markdown", 3)) if number == 0 else (("markdown", 3),)
            ours = measure(folder, modes)
            if not script:
                continue
            # Its median of three too: on a shared machine one run of it varied from 15.8 to 21.6 s.
            times = timings(lambda f=folder: run([sys.executable, script, str(f)]), repeat=3)
            theirs = statistics.median(times)
            print(f"  article script       {describe(times)}")
            for what, target in TARGETS:
                if what in ours:
                    ratio = theirs / ours[what]
                    verdict = "meets" if ratio >= target else "MISSES"
                    print(f"  report --atoms {what:13s} (median) is {ratio:5.1f}x faster "
                          f"({verdict} the {target}x target)")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if not script:
        print("set ARTICLE_SCRIPT to the article's script to measure the speed-ups (targets: seed 20x; "
              "markdown 12x cold, 30x warm)")


if __name__ == "__main__":
    main()
