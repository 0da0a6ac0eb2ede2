"""One question asked live (the Ask page, ``chunk-inspector ask``) on a 3.6 MB corpus: the top 5
chunks of two splitters and where the quote lands, on a warm workspace (its splits made, as a
page that has drawn them has).

Target: a question is answered for both splitters in at most 1 s (median and worst of the golden
questions); the first question, which splits the corpus, is reported beside it.

    python bench/bench_ask.py
"""

from __future__ import annotations

import json
import shutil
import statistics
import time

from common import SAMPLE, big_corpus, corpus_bytes, record, verdict

from inspector import Workspace, load_corpus
from inspector.measure.asked import ask_question, find_quote

SPECS = ("fixed:400", "structured:800")
TARGET_S = 1.0


def main() -> None:
    folder = big_corpus(3_600_000)
    try:
        workspace = Workspace(load_corpus(folder))
        golden = [json.loads(line) for line in (SAMPLE / "golden-questions.jsonl").read_text().splitlines()]
        retriever = workspace.retriever("bm25")

        def asked(item) -> None:
            quote = find_quote(workspace.documents, item["evidence"])
            for spec in SPECS:
                ask_question(workspace, spec, item["question"], retriever=retriever, quote=quote)

        start = time.perf_counter()
        asked(golden[0])
        first = time.perf_counter() - start
        times = []
        for item in golden:
            start = time.perf_counter()
            asked(item)
            times.append(time.perf_counter() - start)
        median, worst = statistics.median(times), max(times)
        print(f"corpus     {corpus_bytes(folder) / 1e6:.1f} MB, {len(workspace.documents):,} documents; "
              f"{len(golden)} golden questions, each asked of {', '.join(SPECS)} with its evidence as the quote")
        print(f"first      {first:.2f} s (splits the corpus under both splitters)")
        print(f"warm       median {median:.3f} s, worst {worst:.3f} s: {verdict(round(worst, 3), TARGET_S)}")
        record("ask", {"target_s": TARGET_S, "corpus_mb": round(corpus_bytes(folder) / 1e6, 2),
                       "questions": len(golden), "first_s": round(first, 3), "median_s": round(median, 3),
                       "worst_s": round(worst, 3)})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
