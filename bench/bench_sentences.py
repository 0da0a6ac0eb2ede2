"""Sentence segmentation speed, in MB of UTF-8 per second, on English and on Chinese prose.

Times ``prose.split_sentences`` on the paragraph contents of ``sample_corpus`` (English, the
module's own rules), on the same paragraphs through sentencex (what every language without
rules of its own gets) and on the Chinese paragraphs of ``sample_corpus/international``,
repeated to about 2 MB, with the rules for Chinese. The markdown atom detection target
(``bench_atoms_markdown``: within 1.3x of markdown-it-py's parse) is what these must not break.

Run: ``python bench/bench_sentences.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from inspector.atoms.prose import split_sentences  # noqa: E402

PARSER = MarkdownIt("commonmark").enable("table")


def paragraphs(paths) -> list[str]:
    out = []
    for path in paths:
        for token in PARSER.parse(path.read_text(encoding="utf-8")):
            if token.type == "inline" and token.map and token.content:
                out.append(token.content)
    return out


def speed(parts: list[str], language: str, target: int = 2_000_000) -> tuple[float, int]:
    """MB/s of UTF-8 (best of three) and the sentences found, over ``parts`` repeated to ``target`` bytes."""
    size = sum(len(p.encode("utf-8")) for p in parts)
    parts = parts * max(1, target // max(size, 1))
    size = sum(len(p.encode("utf-8")) for p in parts)
    best, found = float("inf"), 0
    for _ in range(3):
        start = time.perf_counter()
        found = sum(len(split_sentences(p, p, language)) // 2 for p in parts)
        best = min(best, time.perf_counter() - start)
    return size / best / 1e6, found


def main() -> None:
    english = paragraphs(sorted((ROOT / "sample_corpus").glob("[!i]*/**/*.md")))
    chinese = paragraphs(sorted((ROOT / "sample_corpus" / "international" / "zh").glob("*.md")))
    for label, parts, language in [("English, own rules", english, "en"), ("English, sentencex (fr)", english, "fr"),
                                   ("Chinese, own rules", chinese, "zh"), ("Chinese, sentencex", chinese, "xx")]:
        rate, found = speed(parts, language)
        print(f"{label:22s} {rate:7.1f} MB/s  ({found:,} sentences)")


if __name__ == "__main__":
    main()
