"""``tune`` over a 40-configuration space on the 3.5 MB bench corpus with a golden set, cold and
warm; and what the intervals and paired tests add to ``report``.

    python bench/bench_tune.py

The corpus is the bundled markdown copied until it holds 3.5 MB, each copy's files made
distinct; the golden set is the bundled one with its document names left out, so each quote is
found in every copy. *Cold* runs get an empty data folder, *warm* ones the folder a cold run
filled (analyses and splits kept). Targets: warm under 60 s; the intervals and verdicts under
10% of a report's time. The figures are written, dated, to ``bench/results/tune.json``.
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


def statistics_share(corpus: Path) -> dict:
    """A warm report's time, and the time of its intervals and verdict computed again alone."""
    from inspector import Workspace, build_report, load_corpus
    from inspector.reports.article import probe_decision, probe_intervals
    from inspector.spec import ARTICLE_SPECS

    work = Workspace(load_corpus(corpus))
    build_report(work, budgets=())  # analyses, splits and probes now held
    started = time.perf_counter()
    report = build_report(work, budgets=())
    whole = time.perf_counter() - started
    started = time.perf_counter()
    for spec in ARTICLE_SPECS:
        summary = work.summarize(spec, fits=800)
        [summary.interval(kind) for kind in summary.survival_fit]
        probe_intervals(work.probe(spec))
    probe_decision(report["compare"])
    alone = time.perf_counter() - started
    return {"report_seconds": round(whole, 2), "statistics_seconds": round(alone, 3),
            "share": round(alone / whole, 4)}


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
        share = statistics_share(corpus)
        verdict = "ok" if warm < WARM_TARGET and share["share"] < SHARE_TARGET else "OVER TARGET"
        print(f"{len(result['candidates'])} configurations on {corpus_bytes(corpus) / 1e6:.1f} MB, "
              f"{result['questions']} questions: cold {cold:.1f} s, warm {warm:.1f} s; intervals and verdict "
              f"{share['statistics_seconds']:.3f} s of a {share['report_seconds']:.1f} s report "
              f"({share['share']:.1%}) ({verdict}); recommended {result['recommended']}")
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
