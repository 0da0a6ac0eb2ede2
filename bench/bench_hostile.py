"""Hostile inputs, each in a fresh process: how long it takes to refuse or measure them and the
most memory that process held.

    python bench/bench_hostile.py

Each case is made by ``tests/support/bombs.py`` (nothing hostile is kept on disk) and read the
way the command line and the app read it; a file is reported beside a markdown page, whose
report must still come. Targets: every case refused or measured in under 10 s and 500 MB of the
process's own memory (a conversion's process is held to 1 GB by the box). The figures are
written, dated, to ``bench/results/hostile.json``; the time includes making the file.
"""

from __future__ import annotations

import subprocess
import sys
import time

from common import ROOT, record

TIME_TARGET, MEMORY_TARGET = 10.0, 500.0

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

_FILE_CASE = """
import pathlib, shutil, tempfile, sys
from tests.support import bombs
folder = pathlib.Path(tempfile.mkdtemp())
(folder / {name!r}).write_bytes(bombs.{maker})
shutil.copy("sample_corpus/handbook/leave-policy.md", folder)
import os
os.environ["CHUNK_INSPECTOR_DATA"] = str(folder / "data")
from inspector.cli import main
import contextlib, io
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    status = main(["report", str(folder), "--spec", "fixed:800", "--budgets", "400", "--quiet"{extra}])
print("exit", status, "|", " ".join(err.getvalue().split())[:200])
"""
for name, maker in (("zip-bomb.docx", "zip_bomb_docx()"), ("zip-bomb.pptx", "zip_bomb_pptx()"),
                    ("deep.docx", "deep_docx()"), ("million-rows.xlsx", "rows_xlsx()"),
                    ("huge-stream.pdf", "huge_stream_pdf()"), ("huge.epub", "huge_epub()")):
    for converter in ("markitdown", "docling"):
        extra = "" if converter == "markitdown" else ', "--converter", "docling"'
        CASES[f"report: {name} beside a page ({converter})"] = _FILE_CASE.format(name=name, maker=maker, extra=extra)


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
    record("hostile", {"targets": {"seconds": TIME_TARGET, "peak_mb": MEMORY_TARGET}, "cases": rows})


if __name__ == "__main__":
    main()
