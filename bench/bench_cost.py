"""The index-time cost columns (``report --cost``) on the bundled sample and on a corpus of about
4 MB built from its markdown: the article's seven splitters beside the semantic and cluster chunkers, their
chunks embedded by the bundled dense model.

    python bench/bench_cost.py

Seconds are the splitters' own on this machine (each document's atoms found beforehand, as a
report shares them); texts and tokens are counts, the same on any machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile

from common import ROOT, SAMPLE, big_corpus, corpus_bytes, record

SPECS = ("fixed:400", "fixed:800", "fixed:800/120", "paragraph:800", "recursive:800", "sentence:800", "structured:800",
         "semantic:800", "semantic:800+atoms", "cluster:400t", "cluster:400t+atoms")


def costs(folder) -> dict:
    data = tempfile.mkdtemp(prefix="bench-cost-")
    try:
        args = [sys.executable, "-m", "inspector", "report", str(folder), "--cost", "--json", "--quiet",
                "--budgets", "800", "--retriever", "dense", *(f"--spec={spec}" for spec in SPECS)]
        found = subprocess.run(args, check=True, cwd=ROOT, capture_output=True, text=True,
                               env={**os.environ, "CHUNK_INSPECTOR_DATA": data})
    finally:
        shutil.rmtree(data, ignore_errors=True)
    return json.loads(found.stdout)["cost"]


def main() -> None:
    big = big_corpus(3_600_000, only=".md", distinct=True)
    try:
        figures = {}
        for name, folder in (("sample", SAMPLE), ("large", big)):
            block = costs(folder)
            print(f"{name}: {corpus_bytes(folder) / 1e6:.2f} MB")
            print(f"{'spec':22s}{'split s':>9s}{'chunks':>8s}{'splitter embeds':>16s}{'tokens':>11s}"
                  f"{'chunks embedded':>16s}{'tokens':>11s}")
            for spec, cost in block.items():
                print(f"{spec:22s}{cost['seconds']:9.2f}{cost['chunks']:8,d}{cost['chunker_texts']:16,d}"
                      f"{cost['chunker_tokens']:11,d}{cost['embedded_texts']:16,d}{cost['embedded_tokens']:11,d}")
            figures[name] = {"megabytes": round(corpus_bytes(folder) / 1e6, 2), "cost": block}
        record("cost", figures)
    finally:
        shutil.rmtree(big, ignore_errors=True)


if __name__ == "__main__":
    main()
