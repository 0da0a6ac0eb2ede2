"""Throughput of every splitter in MB/s, with atoms computed once per document and reused.

Target: structured splitting at least as fast as semantic-text-splitter's MarkdownSplitter
(measured here when that package is installed: pip install semantic-text-splitter).
"""

from __future__ import annotations

import shutil
import time

from common import big_corpus, corpus_bytes

from inspector import Workspace, load_corpus
from inspector.spec import parse_spec

SPECS = ["fixed:800", "fixed:800/120", "paragraph:800", "sentence:800", "recursive:800", "structured:800",
         "heading:800", "structured:200t", "heading:256t"]


def main() -> None:
    folder = big_corpus()
    try:
        megabytes = corpus_bytes(folder) / 1e6
        corpus = load_corpus(folder)
        texts = [d.text for d in corpus.documents]
        for mode in ("markdown", "seed"):
            work = Workspace(corpus, mode)
            start = time.perf_counter()
            work.analyses()
            atoms = time.perf_counter() - start
            print(f"[{mode}] atoms once: {atoms:.2f} s ({megabytes / atoms:.2f} MB/s)")
            for text in SPECS:
                spec = parse_spec(text)
                start = time.perf_counter()
                work.split(spec)
                took = time.perf_counter() - start
                print(f"[{mode}] {text:16s} {megabytes / took:8.2f} MB/s  ({took:.2f} s)")
        try:
            from semantic_text_splitter import MarkdownSplitter
        except ImportError:
            print("semantic-text-splitter not installed: pip install semantic-text-splitter to compare")
            return
        splitter = MarkdownSplitter(800)
        start = time.perf_counter()
        for text in texts:
            splitter.chunk_indices(text)
        took = time.perf_counter() - start
        print(f"semantic-text-splitter MarkdownSplitter(800): {megabytes / took:8.2f} MB/s  ({took:.2f} s)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
