"""Reading 100,000 stored chunks from a Chroma folder and from Qdrant's local mode: the time to
read them a page at a time and place every one on its corpus, and the most memory the reading
process held.

    python bench/bench_stores.py

The corpus is copies of the bundled markdown, each copy's files ending with a line of their own;
the chunks are LangChain's (``RecursiveCharacterTextSplitter``, 200 characters, ``start_index``)
of those files read raw, written with the stores' own clients in LangChain's layout with random
8-dimension vectors. Each store is read in a fresh process (``python -m inspector export
--store``, which reads, places and writes every chunk). Targets: under 60 s and 500 MB each. The
figures are written, dated, to ``bench/results/stores.json``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from common import ROOT, big_corpus, record, verdict

CHUNKS, TIME_TARGET, MEMORY_TARGET = 100_000, 60.0, 500.0


def chunks_of(folder: Path) -> list:
    from langchain_core.documents import Document
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    documents = [Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": str(p)})
                 for p in sorted(folder.rglob("*.md"))]
    return RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=0, add_start_index=True).split_documents(
        documents)


def fill_chroma(folder: Path, chunks) -> str:
    import chromadb
    import numpy as np

    collection = chromadb.PersistentClient(path=str(folder)).create_collection("docs")
    rng = np.random.default_rng(0)
    for first in range(0, len(chunks), 5_000):
        part = chunks[first:first + 5_000]
        collection.add(ids=[str(uuid.uuid4()) for _ in part], embeddings=rng.standard_normal((len(part), 8)),
                       documents=[c.page_content for c in part], metadatas=[c.metadata for c in part])
    return f"chroma:{folder}?collection=docs"


def fill_qdrant(folder: Path, chunks) -> str:
    import numpy as np
    from qdrant_client import QdrantClient, models

    client = QdrantClient(path=str(folder))
    client.create_collection("docs", vectors_config=models.VectorParams(size=8, distance=models.Distance.COSINE))
    rng = np.random.default_rng(0)
    for first in range(0, len(chunks), 5_000):
        part = chunks[first:first + 5_000]
        client.upsert("docs", points=[models.PointStruct(id=str(uuid.uuid4()), vector=rng.standard_normal(8).tolist(),
                                                         payload={"page_content": c.page_content,
                                                                  "metadata": c.metadata}) for c in part])
    client.close()
    return f"qdrant:{folder}?collection=docs"


def measured(corpus: Path, uri: str, data: Path) -> dict:
    """``export --store`` in a fresh process: seconds, peak memory and what it said."""
    code = ("import resource, runpy, sys, time; start = time.perf_counter(); sys.argv = ['inspector', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('inspector', run_name='__main__')\nexcept SystemExit as exit:\n"
            "    code = exit.code\nprint(f'{time.perf_counter() - start:.2f} '"
            "f'{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}', file=sys.stderr)\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "export", str(corpus), "--keep-front-matter", "--store", uri,
                           "-o", os.devnull], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, CHUNK_INSPECTOR_DATA=str(data)), timeout=900)
    seconds, memory = done.stderr.strip().splitlines()[-1].split()
    said = next((line for line in done.stderr.splitlines() if "records placed" in line), done.stderr[-300:])
    placed = re.search(r"([\d,]+) of [\d,]+ records placed", said)
    return {"seconds": float(seconds), "wall_seconds": round(time.perf_counter() - started, 2),
            "peak_mb": float(memory), "said": said.split(": ", 1)[-1],
            "placed": int(placed.group(1).replace(",", "")) if placed else 0}


def main() -> None:
    corpus = big_corpus(25_000_000, only=".md", distinct=True)
    work = Path(tempfile.mkdtemp(prefix="ci-bench-stores-"))
    try:
        chunks = chunks_of(corpus)[:CHUNKS]
        print(f"{len(chunks):,} chunks of {sum(len(c.page_content) for c in chunks) / 1e6:.1f} M characters")
        figures = {"chunks": len(chunks), "targets": {"seconds": TIME_TARGET, "peak_mb": MEMORY_TARGET}}
        for name, fill in (("chroma", fill_chroma), ("qdrant", fill_qdrant)):
            started = time.perf_counter()
            uri = fill(work / name, chunks)
            filled = time.perf_counter() - started
            result = measured(corpus, uri, work / f"data-{name}")
            # A reader that stopped early would be fast: every chunk must have been read and placed.
            said = [f"time {verdict(result['seconds'], TIME_TARGET)}",
                    f"memory {verdict(result['peak_mb'], MEMORY_TARGET, ' MB')}",
                    f"placed {verdict(result['placed'], len(chunks), ' chunks', at_least=True)}"]
            print(f"{name:8s} read and placed in {result['seconds']:.1f} s, peak {result['peak_mb']:.0f} MB "
                  f"({'; '.join(said)}); filled in {filled:.0f} s; {result['said']}")
            figures[name] = {**result, "filled_seconds": round(filled, 1), "verdict": said}
        print(f"written to {record('stores', figures).relative_to(ROOT)}")
    finally:
        shutil.rmtree(corpus, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
