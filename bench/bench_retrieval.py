"""Dense retrieval's cost: the bundled model's throughput, the embedding cache's effect on a
re-split, and ``report --retriever dense`` against ``report`` with BM25 on a 3.5 MB corpus.

Target: a cached re-run of ``report --retriever dense`` takes at most 1.5x the time of
``report`` with BM25 (the first run pays for embedding every chunk once).

    python bench/bench_retrieval.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, big_corpus, corpus_bytes, describe, timings

from inspector import Workspace, load_corpus
from inspector.retrieval.embedders import WordLlama
from inspector.retrieval.opening import open_retriever


def throughput(texts) -> None:
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    model = WordLlama()
    model.embed(texts[:10])  # load the model outside the timing
    start = time.perf_counter()
    for first in range(0, len(texts), 512):
        model.embed(texts[first:first + 512])
    seconds = time.perf_counter() - start
    print(f"embedding  {len(texts):,} chunks, {megabytes:.2f} MB of chunk text in {seconds:.2f} s: "
          f"{megabytes / seconds:.2f} MB/s (wordllama, one process, every text embedded)")


def cache_effect(texts, resplit, data) -> None:
    first = open_retriever("dense", cache_folder=data)
    start = time.perf_counter()
    first.prepare(texts)
    cold = time.perf_counter() - start
    again = open_retriever("dense", cache_folder=data)  # a new process would start like this
    start = time.perf_counter()
    again.prepare(texts)
    warm, cached = time.perf_counter() - start, again.vectors.embedded
    start = time.perf_counter()
    again.prepare(resplit)
    other = time.perf_counter() - start
    # The bench corpus is ten copies of sample_corpus: a chunk text recurs in every copy and is embedded once.
    print(f"cache      structured:800, {len(set(texts)):,} distinct of {len(texts):,} chunk texts: cold {cold:.2f} s "
          f"({first.vectors.embedded:,} embedded), again from the cache {warm:.2f} s "
          f"({cached} embedded); re-split to structured:700 {other:.2f} s "
          f"({again.vectors.embedded:,} of {len(set(resplit)):,} distinct chunks embedded)")


def report_times(folder, data) -> None:
    environ = {**os.environ, "CHUNK_INSPECTOR_DATA": str(data)}

    def run(*extra):
        subprocess.run([sys.executable, "-m", "inspector", "report", str(folder), "--json", "--quiet", *extra],
                       check=True, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    bm25 = timings(run, 3)
    print(f"report --retriever bm25          {describe(bm25)}")
    shutil.rmtree(data, ignore_errors=True)
    cold = timings(lambda: run("--retriever", "dense"), 1)
    print(f"report --retriever dense, cold   {describe(cold)}")
    warm = timings(lambda: run("--retriever", "dense"), 3)
    print(f"report --retriever dense, cached {describe(warm)}")
    ratio = statistics.median(warm) / statistics.median(bm25)
    verdict = "meets" if ratio <= 1.5 else "MISSES"
    print(f"cached dense / bm25 = {ratio:.2f}x ({verdict} the 1.5x target)")


def main() -> None:
    folder = big_corpus()
    data = tempfile.mkdtemp(prefix="ci-bench-vectors-")
    try:
        print(f"corpus: {corpus_bytes(folder) / 1e6:.2f} MB in {folder}")
        work = Workspace(load_corpus(folder))
        texts, resplit = work.pool("structured:800").texts(), work.pool("structured:700").texts()
        throughput(texts)
        cache_effect(texts, resplit, data)
        report_times(folder, data)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
