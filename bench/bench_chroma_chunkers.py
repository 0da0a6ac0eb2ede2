"""Chroma's chunkers against Chroma's own code: every chunk text of ``chroma-recursive`` and
``chroma-fixed`` compared with what ``RecursiveTokenChunker`` and ``FixedTokenChunker`` return, on
Chroma's five corpora, at the sizes of its published table.

    python bench/bench_chroma_chunkers.py CHUNKING_EVALUATION_CHECKOUT

The checkout is ``brandonstarxel/chunking_evaluation`` as cloned (MIT). Its chunker modules
are run as they are: only what they import from the rest of the package (``utils``, which needs
fuzzywuzzy and an OpenAI key) is replaced by the names they use. ``chroma-cluster`` and
``chroma-kamradt`` are compared with Chroma's ClusterSemanticChunker and KamradtModifiedChunker
handed the same embedder (``--embed``, all-MiniLM-L6-v2 by default), whitespace aside (Chroma
joins a chunk's pieces with one space). With ``--write-excerpt`` the
excerpt the tests compare with (``tests/split/data/chroma_excerpt.*``) is written again.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from common import ROOT, SAMPLE, record

from inspector import Document, analyze, get_length, split_document

#: Chroma's published rows (chunker, size, overlap) and the 50-token pieces its cluster chunker groups.
CONFIGURATIONS = [("recursive", 200, 0), ("recursive", 250, 0), ("recursive", 250, 125), ("recursive", 50, 0),
                  ("fixed", 200, 0), ("fixed", 250, 0), ("fixed", 250, 125)]
#: Chroma's chunkers by meaning at the sizes of its table (Kamradt's: the mean it aims at).
MEANING = [("cluster", 200), ("cluster", 250), ("kamradt", 250)]
CORPORA = ("chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts")
EXCERPT = ROOT / "tests" / "split" / "data" / "chroma_excerpt"

_UTILS = '''"""What Chroma's chunker modules import from its utils, without chromadb."""
from enum import Enum
import tiktoken


class Language(str, Enum):
    PYTHON = "python"


def openai_token_count(string):
    return len(tiktoken.get_encoding("cl100k_base").encode(string, disallowed_special=()))


def get_openai_embedding_function():
    raise RuntimeError("the bench hands Chroma's chunkers their embedding function")
'''


def chroma_chunkers(checkout: Path):
    """Chroma's ``chunking`` modules loaded from ``checkout`` (their own code, unchanged)."""
    source = checkout / "chunking_evaluation" / "chunking"
    package = Path(tempfile.mkdtemp(prefix="chroma-code-")) / "chunking_evaluation"
    (package / "chunking").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(_UTILS)
    (package / "chunking" / "__init__.py").write_text("from .recursive_token_chunker import RecursiveTokenChunker\n")
    for name in ("base_chunker.py", "fixed_token_chunker.py", "recursive_token_chunker.py",
                 "cluster_semantic_chunker.py", "kamradt_modified_chunker.py"):
        shutil.copyfile(source / name, package / "chunking" / name)
    _vendored_tiktoken()
    sys.path.insert(0, str(package.parent))
    chunking = "chunking_evaluation.chunking."
    return ChromaCode(importlib.import_module(chunking + "fixed_token_chunker").FixedTokenChunker,
                      importlib.import_module(chunking + "recursive_token_chunker").RecursiveTokenChunker,
                      importlib.import_module(chunking + "cluster_semantic_chunker").ClusterSemanticChunker,
                      importlib.import_module(chunking + "kamradt_modified_chunker").KamradtModifiedChunker,
                      importlib.import_module("chunking_evaluation.utils").openai_token_count)


@dataclass(frozen=True)
class ChromaCode:
    """Chroma's chunker classes and its token count, as its modules define them."""

    fixed: type
    recursive: type
    cluster: type
    kamradt: type
    count: object


def _vendored_tiktoken() -> None:
    """``tiktoken.get_encoding`` answered from the project's vendored files (no download)."""
    import functools

    import tiktoken

    from inspector.lengths import build_encoding

    tiktoken.get_encoding = functools.cache(build_encoding)  # Chroma asks for it on every count


def chroma_texts(chunkers: ChromaCode, kind: str, size: int, overlap: int, text: str) -> list[str]:
    if kind == "fixed":
        return chunkers.fixed(chunk_size=size, chunk_overlap=overlap, encoding_name="cl100k_base").split_text(text)
    return chunkers.recursive(chunk_size=size, chunk_overlap=overlap, length_function=chunkers.count).split_text(text)


def by_meaning(chunkers: ChromaCode, kind: str, size: int, model: str, text: str) -> list[str]:
    """Chroma's cluster or Kamradt chunker, handed the embedder ``chroma-cluster`` uses."""
    from inspector.split.similarity import similarity_embedder

    embedder = similarity_embedder(model)

    def embed(texts):
        return [list(map(float, row)) for row in embedder.embed(list(texts))]

    if kind == "cluster":
        return chunkers.cluster(embedding_function=embed, max_chunk_size=size).split_text(text)
    return chunkers.kamradt(avg_chunk_size=size, embedding_function=embed).split_text(text)


def compare_by_meaning(chunkers: ChromaCode, corpora: Path, model: str) -> list[dict]:
    """Chroma's chunkers by meaning on its corpora: its chunks are its pieces joined by one space,
    so they are compared with ours word for word, whitespace aside."""
    rows = []
    for name in CORPORA:
        text = (corpora / f"{name}.md").read_text(encoding="utf-8")
        analysis = analyze(text)
        for kind, size in MEANING:
            start = time.perf_counter()
            theirs = by_meaning(chunkers, kind, size, model, text)
            their_seconds = time.perf_counter() - start
            start = time.perf_counter()
            spec = f"chroma-{kind}:{size}t:cl100k;embed={model}"
            document = Document("corpus.md", text)
            ours = [chunk.text(document) for chunk in split_document(document, spec, analysis).chunks]
            our_seconds = time.perf_counter() - start
            same = ["".join(a.split()) == "".join(b.split()) for a, b in zip(ours, theirs)]
            identical = len(ours) == len(theirs) and all(same)
            rows.append({"corpus": name, "chunker": kind, "size": size, "embed": model, "chunks": len(theirs),
                         "ours": len(ours), "identical_but_whitespace": identical,
                         "first_difference": [k for k, ok in enumerate(same) if not ok][:1],
                         "chroma_seconds": round(their_seconds, 1), "our_seconds": round(our_seconds, 1)})
            mark = "identical but for whitespace" if identical else f"DIFFER ({len(ours)} vs {len(theirs)})"
            print(f"{name:20s} {kind:9s} {size:4d}  {model:9s} {len(theirs):6,d} chunks  {mark}  "
                  f"(Chroma {their_seconds:.1f} s, here {our_seconds:.1f} s)")
    return rows


def our_texts(kind: str, size: int, overlap: int, text: str, analysis) -> list[str]:
    spec = f"chroma-{kind}:{size}t" + (f"/{overlap}" if overlap else "") + ":cl100k"
    document = Document("corpus.md", text)
    return [chunk.text(document) for chunk in split_document(document, spec, analysis).chunks]


def compare(chunkers, corpora: Path) -> list[dict]:
    rows = []
    for name in CORPORA:
        text = (corpora / f"{name}.md").read_text(encoding="utf-8")
        analysis = analyze(text)
        for kind, size, overlap in CONFIGURATIONS:
            start = time.perf_counter()
            theirs = chroma_texts(chunkers, kind, size, overlap, text)
            their_seconds = time.perf_counter() - start
            start = time.perf_counter()
            ours = our_texts(kind, size, overlap, text, analysis)
            our_seconds = time.perf_counter() - start
            differ = [k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b]
            tokens = sum(get_length("cl100k").count_many(theirs))
            rows.append({"corpus": name, "chunker": kind, "size": size, "overlap": overlap, "chunks": len(theirs),
                         "tokens": tokens,
                         "ours": len(ours), "identical": ours == theirs, "first_difference": differ[:1],
                         "chroma_seconds": round(their_seconds, 2), "our_seconds": round(our_seconds, 2)})
            mark = "identical" if ours == theirs else f"DIFFER at {differ[:3]} ({len(ours)} vs {len(theirs)})"
            print(f"{name:20s} {kind:9s} {size:4d}/{overlap:<4d} {len(theirs):6,d} chunks  {mark}  "
                  f"(Chroma {their_seconds:.1f} s, here {our_seconds:.1f} s)")
    return rows


def compare_sample(chunkers) -> list[dict]:
    """The bundled corpus (56 documents, some in Japanese and Chinese), document by document: a
    chunk may differ only where Chroma's decoded window holds a replacement character."""
    from inspector import load_corpus

    documents = load_corpus(SAMPLE).documents
    rows = []
    for kind, size, overlap in CONFIGURATIONS:
        differing = replaced = 0
        for document in documents:
            theirs = chroma_texts(chunkers, kind, size, overlap, document.text)
            ours = our_texts(kind, size, overlap, document.text, analyze(document.text))
            if ours != theirs:
                differing += 1
                pairs = list(zip(ours, theirs)) if len(ours) == len(theirs) else []
                replaced += bool(pairs) and all(a == b or "\ufffd" in b for a, b in pairs)
        rows.append({"corpus": "sample_corpus", "chunker": kind, "size": size, "overlap": overlap,
                     "documents": len(documents), "differing": differing, "differing_at_replacement": replaced})
        print(f"{'sample_corpus':20s} {kind:9s} {size:4d}/{overlap:<4d} {len(documents)} documents, {differing} differ"
              f" ({replaced} only where Chroma's text holds U+FFFD)")
    return rows


def write_excerpt(chunkers, corpora: Path) -> None:
    """A few thousand characters of the public-domain State of the Union corpus, with the
    chunk texts Chroma's code cuts from them."""
    text = (corpora / "state_of_the_union.md").read_text(encoding="utf-8")[:8_000]
    text = text[:text.rfind("\n") + 1]
    EXCERPT.parent.mkdir(parents=True, exist_ok=True)
    EXCERPT.with_suffix(".md").write_text(text, encoding="utf-8")
    expected = {f"{kind}:{size}/{overlap}": [excerpt_line(chunk) for chunk in chroma_texts(chunkers, kind, size,
                                                                                        overlap, text)]
                for kind, size, overlap in CONFIGURATIONS + [("recursive", 20, 5), ("fixed", 30, 7)]}
    for kind, size in MEANING:  # Chroma joins a chunk's pieces with spaces: compared without whitespace
        expected[f"{kind}:{size}/wordllama"] = [excerpt_line("".join(chunk.split()))
                                                for chunk in by_meaning(chunkers, kind, size, "wordllama", text)]
    EXCERPT.with_suffix(".json").write_text(json.dumps(expected, indent=0) + "\n", encoding="utf-8")


def excerpt_line(chunk: str) -> str:
    """A chunk as the excerpt's file keeps it: its length and the head of its SHA-256."""
    return f"{len(chunk)} {hashlib.sha256(chunk.encode('utf-8')).hexdigest()[:16]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a clone of brandonstarxel/chunking_evaluation")
    parser.add_argument("--write-excerpt", action="store_true", help="write the tests' excerpt and its chunks again")
    parser.add_argument("--embed", default="minilm", help="the embedder Chroma's chunkers by meaning are handed")
    given = parser.parse_args()
    chunkers = chroma_chunkers(given.checkout)
    corpora = given.checkout / "chunking_evaluation" / "evaluation_framework" / "general_evaluation_data" / "corpora"
    if given.write_excerpt:
        write_excerpt(chunkers, corpora)
    rows = compare(chunkers, corpora)
    for kind, size, overlap in CONFIGURATIONS:
        mine = [row for row in rows if (row["chunker"], row["size"], row["overlap"]) == (kind, size, overlap)]
        print(f"{kind:9s} {size:4d}/{overlap:<4d} mean chunk over the five corpora: "
              f"{sum(r['tokens'] for r in mine) / sum(r['chunks'] for r in mine):.0f} cl100k tokens")
    same = sum(row["identical"] for row in rows)
    print(f"\n{same} of {len(rows)} corpus x configuration splits identical to Chroma's code\n")
    sample = compare_sample(chunkers)
    meaning = compare_by_meaning(chunkers, corpora, given.embed)
    alike = sum(row["identical_but_whitespace"] for row in meaning)
    print(f"\n{alike} of {len(meaning)} splits by meaning identical to Chroma's code but for whitespace")
    record("chroma_chunkers", {"rows": rows, "identical": same, "splits": len(rows), "sample_corpus": sample,
                               "by_meaning": meaning, "by_meaning_identical": alike})


if __name__ == "__main__":
    main()
