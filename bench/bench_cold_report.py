"""A corpus's first look from the command line: the first ``report`` on a folder nothing was kept
for, beside a plain split of the same folder (its markdown files read and cut by LangChain's
``RecursiveCharacterTextSplitter(800)``), each a new process, alternated, on two corpora of about
3.5 MB: the bench corpus's markdown as copies (a text analysed once however many files hold it)
and made distinct (every file its own text). Then the cold report profiled (``--jobs 1``, so one
process does all of it): the functions holding most of its time, by their own time.

Target (issue 58): the first report within 3 times the plain split. The figures go, dated, to
``bench/results/cold_report.json``.

    python bench/bench_cold_report.py
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, big_corpus, corpus_bytes, record, verdict

TARGET = 3.0
ROUNDS = 3

PLAIN = """
import sys
from pathlib import Path
from langchain_text_splitters import RecursiveCharacterTextSplitter
splitter = RecursiveCharacterTextSplitter(chunk_size=800)
chunks = 0
for path in sorted(Path(sys.argv[1]).rglob("*")):
    if path.is_file() and path.suffix in {".md", ".markdown", ".txt"}:
        chunks += len(splitter.split_text(path.read_text(encoding="utf-8", errors="replace")))
print(chunks)
"""


def timed(command: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def cold_report(folder: Path, *extra: str) -> float:
    """Seconds of one ``report`` with a fresh data folder."""
    data = tempfile.mkdtemp(prefix="bench-cold-data-")
    try:
        return timed([sys.executable, "-m", "inspector", "report", str(folder), "--quiet", "--json", *extra],
                     dict(os.environ, CHUNK_INSPECTOR_DATA=data))
    finally:
        shutil.rmtree(data, ignore_errors=True)


def profiled(folder: Path, top: int = 12) -> list[str]:
    """The cold report's functions with the most time of their own, in one process."""
    from inspector.cli import main

    data = tempfile.mkdtemp(prefix="bench-cold-data-")
    saved = os.environ.get("CHUNK_INSPECTOR_DATA")
    os.environ["CHUNK_INSPECTOR_DATA"] = data
    profile = cProfile.Profile()
    try:
        sys.stdout = io.StringIO()
        profile.runcall(main, ["report", str(folder), "--quiet", "--json", "--jobs", "1"])
    finally:
        sys.stdout = sys.__stdout__
        shutil.rmtree(data, ignore_errors=True)
        if saved is None:
            os.environ.pop("CHUNK_INSPECTOR_DATA", None)
        else:
            os.environ["CHUNK_INSPECTOR_DATA"] = saved
    stats = pstats.Stats(profile)
    total = stats.total_tt
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:top]
    lines = []
    for (filename, line, name), (_, calls, own, cumulative, _) in rows:
        # a library's file by its path among the libraries, the project's by its path in it
        where = re.sub(r".*/(site-packages|lib/python3[.][0-9]+)/", "", filename).removeprefix(f"{ROOT}/")
        lines.append(f"{own:6.2f} s own {100 * own / total:4.1f}%  {cumulative:6.2f} s with callees  "
                     f"{calls:>8,d} calls  {where}:{line}({name})")
    return lines


def main() -> None:
    figures: dict = {"target_ratio": TARGET}
    for label, folder in (("copies", big_corpus(only=".md")), ("distinct", big_corpus(only=".md", distinct=True))):
        try:
            plain, report = [], []
            for _ in range(ROUNDS):  # alternated: a machine that slows down slows both alike
                plain.append(timed([sys.executable, "-c", PLAIN, str(folder)]))
                report.append(cold_report(folder))
            ratio = statistics.median(r / p for r, p in zip(report, plain))
            size = corpus_bytes(folder) / 1e6
            print(f"{label:8s} {size:.2f} MB: plain split median {statistics.median(plain):.2f} s, first report "
                  f"median {statistics.median(report):.2f} s, {ratio:.1f}x: {verdict(round(ratio, 1), TARGET, 'x')}")
            figures[label] = {"megabytes": round(size, 2), "plain_s": [round(t, 3) for t in plain],
                              "report_s": [round(t, 3) for t in report], "ratio": round(ratio, 2)}
            if label == "distinct":
                lines = profiled(folder)
                print("the cold report in one process (--jobs 1), by own time:")
                for line in lines:
                    print(f"  {line}")
                figures["profile"] = lines
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    record("cold_report", figures)


if __name__ == "__main__":
    main()
