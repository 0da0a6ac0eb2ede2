"""``tune`` over a 40-configuration space on the 3.5 MB bench corpus with a golden set, cold and
warm; and what the intervals and paired tests add to ``report``.

    python bench/bench_tune.py

The corpus is the bundled markdown copied until it holds 3.5 MB, each copy's files made
distinct; the golden set is the bundled one with its document names left out, so each quote is
found in every copy. *Cold* runs get an empty data folder, *warm* ones the folder a cold run
filled (analyses and splits kept). Targets: warm under 60 s; a warm ``report`` at most 10%
slower with its intervals and verdicts than with every statistic replaced by a constant. The
figures are written, dated, to ``bench/results/tune.json``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, SAMPLE, big_corpus, corpus_bytes, record

WARM_TARGET, SHARE_TARGET = 60.0, 0.10
SPACE = """kinds = ["structured", "recursive", "sentence", "paragraph", "heading", "fixed"]
budgets = [400, 800, 1200, 1600]
overlaps = [0]
prefixes = ["", "+path"]
"""


def tuned(corpus: Path, golden: Path, space: Path, data: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "inspector", "tune", str(corpus), "--golden", str(golden),
                           "--space", str(space), "--json", "--quiet"], cwd=ROOT, capture_output=True, text=True,
                          check=True, env=dict(os.environ, CHUNK_INSPECTOR_DATA=str(data)), timeout=3600)
    return time.perf_counter() - started, json.loads(done.stdout)


#: ``report`` run in a fresh process; with ``bare``, every interval, mean and paired test a
#: constant: what the report costs without its statistics.
REPORT = """import sys
from inspector import confidence
if sys.argv.pop(1) == "bare":
    flat = confidence.Interval(0.5, 0.0, 1.0, 1, 1)
    confidence.rate = lambda hits, count: flat
    confidence.clustered_rate = lambda tally, **_: flat
    confidence.mean = lambda values, **_: flat
    confidence.paired = lambda a, b, **_: confidence.Paired(0.0, 0.0, 0.0, 0.0, 1.0, len(a))
from inspector.cli import main
sys.exit(main(sys.argv[1:]))
"""


def statistics_share(corpus: Path, data: Path, rounds: int = 5) -> dict:
    """A warm ``report``'s wall time (its data folder filled) with its intervals and verdicts and
    without them, the fastest of ``rounds`` each, taken in turns."""
    environment = dict(os.environ, CHUNK_INSPECTOR_DATA=str(data))

    def timed(how: str) -> float:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", REPORT, how, "report", str(corpus), "--json", "--quiet"], cwd=ROOT,
                       check=True, capture_output=True, env=environment)
        return time.perf_counter() - started

    timed("full")  # the data folder filled
    full, bare = [], []
    for _ in range(rounds):
        full.append(timed("full"))
        bare.append(timed("bare"))
    return {"report_seconds": round(min(full), 2), "without_statistics_seconds": round(min(bare), 2),
            "share": round(min(full) / min(bare) - 1, 4)}


def main() -> None:
    corpus = big_corpus(3_500_000, only=".md", distinct=True)
    work = Path(tempfile.mkdtemp(prefix="bench-tune-"))
    try:
        golden = work / "golden.jsonl"
        golden.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "doc_id"}) + "\n"
                                  for line in (SAMPLE / "golden-questions.jsonl").read_text().splitlines()))
        space = work / "space.toml"
        space.write_text(SPACE)
        data = work / "data"
        cold, result = tuned(corpus, golden, space, data)
        warm, again = tuned(corpus, golden, space, data)
        assert again["candidates"] == result["candidates"]
        share = statistics_share(corpus, data)
        verdict = "ok" if warm < WARM_TARGET and share["share"] < SHARE_TARGET else "OVER TARGET"
        print(f"{len(result['candidates'])} configurations on {corpus_bytes(corpus) / 1e6:.1f} MB, "
              f"{result['questions']} questions: cold {cold:.1f} s, warm {warm:.1f} s; a warm report takes "
              f"{share['report_seconds']:.2f} s, {share['without_statistics_seconds']:.2f} s without its intervals "
              f"and verdicts (+{share['share']:.1%}) ({verdict}); recommended {result['recommended']}")
        figures = {"configurations": len(result["candidates"]), "corpus_mb": round(corpus_bytes(corpus) / 1e6, 2),
                   "questions": result["questions"], "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1),
                   **share, "recommended": result["recommended"], "verdict": verdict,
                   "targets": {"warm_seconds": WARM_TARGET, "share": SHARE_TARGET}}
        print(f"written to {record('tune', figures).relative_to(ROOT)}")
    finally:
        shutil.rmtree(corpus, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
