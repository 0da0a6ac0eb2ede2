"""Hostile inputs, each in a fresh process: how long it takes to refuse or measure them and the
most memory that process held.

    python bench/bench_hostile.py

Each case is made by ``tests/support/bombs.py`` (nothing hostile is kept on disk) and read the
way the command line and the app read it. Targets (issue 33): every case refused or measured in
under 10 s and 500 MB. The figures are written to ``bench/results/hostile.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from common import ROOT

TIME_TARGET, MEMORY_TARGET = 10.0, 500.0
RESULTS = Path(__file__).resolve().parent / "results" / "hostile.json"

#: name -> the Python a fresh process runs (it prints one line saying what became of the input).
CASES = {
    "golden set: 1,000 one-letter quotes (32 KB)": """
from tests.support.bombs import letter_golden_set
from inspector import load_corpus
from inspector.retrieval.golden_files import load_golden
golden = load_golden(letter_golden_set(1_000), load_corpus("sample_corpus"), name="g.jsonl")
print(len(golden.items), "located,", len(golden.problems), "left out")
""",
    "golden set: 10,000 one-letter quotes": """
from tests.support.bombs import letter_golden_set
from inspector import load_corpus
from inspector.retrieval.golden_files import load_golden
golden = load_golden(letter_golden_set(10_000), load_corpus("sample_corpus"), name="g.jsonl")
print(len(golden.items), "located,", len(golden.problems), "left out")
""",
    "golden set: 900,000 quotes in one question": """
from tests.support.bombs import many_quotes_golden_set
from inspector import load_corpus
from inspector.retrieval.golden_files import load_golden
golden = load_golden(many_quotes_golden_set(900_000), load_corpus("sample_corpus"), name="g.jsonl")
print(len(golden.items), "located,", len(golden.problems), "left out")
""",
    "golden set: one record nested 100,000 deep": """
from tests.support.bombs import deep_json
from inspector import load_corpus
from inspector.retrieval.golden_files import load_golden
golden = load_golden(deep_json(), load_corpus("sample_corpus"), name="g.jsonl")
print(golden.problems[0].message)
""",
}


def run(code: str) -> tuple[float, float, str]:
    """Seconds, peak megabytes of the process and what it printed."""
    probe = ("import resource, runpy, sys\nsys.path.insert(0, '.')\nexec(compile(sys.argv[1], 'case', 'exec'))\n"
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, file=sys.stderr)\n")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe, code], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        return seconds, float("nan"), f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"
    return seconds, float(done.stderr.strip().splitlines()[-1]), done.stdout.strip()


def main() -> None:
    rows = []
    for name, code in CASES.items():
        seconds, megabytes, said = run(code)
        held = seconds < TIME_TARGET and megabytes < MEMORY_TARGET
        rows.append({"case": name, "seconds": round(seconds, 2), "peak_mb": round(megabytes, 1), "outcome": said,
                     "within_targets": held})
        print(f"{name:55} {seconds:6.2f} s {megabytes:7.1f} MB  {'ok ' if held else 'OVER'}  {said[:70]}")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"targets": {"seconds": TIME_TARGET, "peak_mb": MEMORY_TARGET}, "cases": rows},
                                  indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
