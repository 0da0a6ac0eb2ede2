"""Time ``analyze_markdown`` against markdown-it-py's own parse alone on the same ~2 MB of markdown.

The reference is a plain ``MarkdownIt("commonmark", {"html": True}).enable("table")``: ours
parses less (no inline tokens outside paragraphs, no table cell tokens), so it is also timed.

Run: ``python bench/bench_atoms_markdown.py [target_megabytes]``. Builds the input by
concatenating the ``sample_corpus`` markdown files (front matter removed) until the
target size is reached, or generates synthetic markdown when there is no corpus. Prints
both times (best of a few runs) and their ratio; the goal is a ratio of at most 1.3.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from inspector.atoms.markdown import PARSER, analyze_markdown  # noqa: E402

PLAIN = MarkdownIt("commonmark", {"html": True}).enable("table")


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5 :]
    return text


def _synthetic(target: int) -> str:
    rng = random.Random(7)
    words = "the broker replica 4.2 latency p99 throughput we ran queue disk Harborline e.g. segment".split()
    parts: list[str] = []
    size = 0
    n = 0
    while size < target:
        n += 1
        sents = [
            " ".join(rng.choice(words) for _ in range(rng.randint(5, 18))).capitalize() + "."
            for _ in range(rng.randint(2, 6))
        ]
        block = [f"## Section {n}", " ".join(sents) + f" See [docs](https://x.dev/{n}).", ""]
        if n % 3 == 0:
            block += ["| a | b |", "|---|--:|", *(f"| {i} | {i * 2} |" for i in range(5)), ""]
        if n % 4 == 0:
            block += ["```", "code 1 2 3", "```", ""]
        if n % 5 == 0:
            block += ["- item one with `code` and a link <https://a.b>", "- item two. Another one", ""]
        chunk = "\n".join(block) + "\n"
        parts.append(chunk)
        size += len(chunk)
    return "".join(parts)


def build_input(target: int) -> tuple[str, str]:
    corpus = ROOT / "sample_corpus"
    files = sorted(corpus.rglob("*.md")) if corpus.is_dir() else []
    docs = [_strip_front_matter(p.read_text(encoding="utf-8")).replace("\r\n", "\n") for p in files]
    docs = [d for d in docs if d.strip()]
    if not docs:
        return _synthetic(target), "synthetic"
    parts: list[str] = []
    size = 0
    while size < target:
        for d in docs:
            parts.append(d if d.endswith("\n") else d + "\n")
            parts.append("\n")
            size += len(d) + 2
    return "".join(parts), f"{len(docs)} sample_corpus files concatenated"


def timed(fn, text: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn(text)
    return time.perf_counter() - w0, time.process_time() - c0


def main() -> None:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    text, source = build_input(int(megabytes * 1_000_000))
    analyze_markdown(text[:20000])  # warm up regex caches
    # Interleave the two so machine load hits both alike.
    parse: list[tuple[float, float]] = []
    full: list[tuple[float, float]] = []
    ours: list[tuple[float, float]] = []
    for _ in range(runs):
        parse.append(timed(lambda t: PLAIN.parse(t, {}), text))
        ours.append(timed(lambda t: PARSER.parse(t, {}), text))
        full.append(timed(analyze_markdown, text))
    a = analyze_markdown(text)
    print(f"input: {len(text):,} chars ({source}), {runs} interleaved runs each")
    print("atoms: " + ", ".join(f"{k}={len(v)}" for k, v in a.atoms.items())
          + f", sentences={len(a.sentences)}, paragraphs={len(a.paragraphs)}")
    pw = sorted(w for w, _ in parse)
    fw = sorted(w for w, _ in full)
    pc = min(c for _, c in parse)
    fc = min(c for _, c in full)
    ow = sorted(w for w, _ in ours)
    print(f"md.parse alone:    best {pw[0]:.3f} s   median {pw[len(pw) // 2]:.3f} s   cpu {pc:.3f} s")
    print(f"our parser alone:  best {ow[0]:.3f} s   median {ow[len(ow) // 2]:.3f} s")
    print(f"analyze_markdown:  best {fw[0]:.3f} s   median {fw[len(fw) // 2]:.3f} s   cpu {fc:.3f} s")
    print(f"ratio:             best {fw[0] / pw[0]:.3f}   median {fw[len(fw) // 2] / pw[len(pw) // 2]:.3f}"
          f"   cpu {fc / pc:.3f}   (target <= 1.30)")


if __name__ == "__main__":
    main()
