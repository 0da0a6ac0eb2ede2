"""What moves Chroma's table away from this one: the rows of ``bench_chroma_table.py`` ranked again
by Chroma itself (an in-memory collection, ``hnsw:search_ef`` 50 as its evaluation sets it) from
the same all-MiniLM-L6-v2 vectors, beside the exact ranking; and each chunk placed as Chroma's
evaluation places it (its text searched in the corpus, first occurrence, a final ``.`` dropped)
beside where it was cut.

    python bench/bench_chroma_hnsw.py CHUNKING_EVALUATION_CHECKOUT

Run it after ``bench_chroma_table.py``: the vectors are read from the data folder it filled.
Writes ``bench/results/chroma_hnsw.json``: per row, the questions whose top 5 differ (as a set,
and in order), the chunks Chroma's search places elsewhere, and recall, precision, IoU and
precision-Ω (Chroma's rule) for each ranking and placement.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from bench_chroma_table import PUBLISHED, spec_of
from common import record

from inspector import Workspace, load_corpus
from inspector.data_folder import data_folder
from inspector.measure.services import Services
from inspector.retrieval.span_scores import merged, overlap, precision_omega, size

TOP = 5


def scores(evidence: list[tuple[str, int, int]], retrieved: list[tuple[str, int, int]]) -> tuple[float, ...]:
    """Chroma's recall, precision and IoU of one question: what the retrieved chunks of the
    evidence's documents hold of it, over the evidence, over every retrieved character, and
    over their union."""
    held = whole = 0
    for doc in {d for d, _, _ in evidence}:
        wanted = merged([(a, b) for d, a, b in evidence if d == doc])
        held += overlap(wanted, merged([(a, b) for d, a, b in retrieved if d == doc]))
        whole += size(wanted)
    paid = sum(b - a for _, a, b in retrieved)
    return (held / whole if whole else 0.0, held / paid if paid else 0.0,
            held / (paid + whole - held) if paid + whole - held else 0.0)


def searched(text: str, start: int, end: int) -> tuple[int, int]:
    """Where Chroma's evaluation places a chunk: its text (a final ``.`` dropped) found first."""
    target = text[start:end]
    target = target[:-1] if target.endswith(".") else target
    at = text.find(target)
    return at, at + len(target)


def omega(evidence: list[tuple[str, int, int]], spans: list[tuple[str, int, int]]) -> float:
    """Precision-Ω by Chroma's rule over the chunks of the evidence's document."""
    doc = evidence[0][0]
    return precision_omega([(a, b) for _, a, b in evidence], [(a, b) for d, a, b in spans if d == doc],
                           touching=True)


def main() -> None:
    import chromadb

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--row", action="append", default=[], metavar="KIND:SIZE/OVERLAP",
                        help="only this row of the table, e.g. recursive:200/0 (repeatable; default: every row)")
    given = parser.parse_args()
    data = given.checkout / "chunking_evaluation" / "evaluation_framework" / "general_evaluation_data"
    workspace = Workspace(load_corpus(data / "corpora"), services=Services.in_folder(data_folder()))
    golden = workspace.load_golden(data / "questions_df.csv")
    retriever = workspace.retriever("dense:minilm")
    questions = retriever.vectors.of([item.question for item in golden.items]).astype(np.float64)
    evidence = [[quote.locations[0] for quote in item.quotes] for item in golden.items]
    documents = {d.id: d for d in workspace.documents}
    client = chromadb.EphemeralClient()
    rows = []
    keys = [key for key in PUBLISHED if not given.row or f"{key[0]}:{key[1]}/{key[2]}" in given.row]
    for number, key in enumerate(keys):
        spec = spec_of(*key)
        chunks = [(r.doc_id, c) for r in workspace.split(spec) for c in r.chunks]
        texts = [c.embedded_text(documents[doc]) for doc, c in chunks]
        vectors = retriever.vectors.of(texts).astype(np.float64)
        exact = np.argsort(-(questions @ vectors.T), axis=1, kind="stable")[:, :TOP]
        collection = client.create_collection(f"row{number}", metadata={"hnsw:search_ef": 50})
        for first in range(0, len(texts), 500):
            collection.add(ids=[str(i) for i in range(first, min(first + 500, len(texts)))],
                           embeddings=vectors[first:first + 500].tolist())
        found = collection.query(query_embeddings=questions.tolist(), n_results=TOP)["ids"]
        hnsw = [[int(i) for i in ids] for ids in found]
        cut = [(doc, c.start, c.end) for doc, c in chunks]
        placed = [(doc, *searched(documents[doc].text, c.start, c.end)) for doc, c in chunks]
        by = {}
        for ranking_name, ranking in (("exact", [list(r) for r in exact]), ("hnsw", hnsw)):
            for place_name, spans in (("cut", cut), ("placed", placed)):
                per = np.array([(*scores(ev, [spans[j] for j in ranked]), omega(ev, spans))
                                for ev, ranked in zip(evidence, ranking)])
                by[f"{ranking_name}/{place_name}"] = [round(100 * float(v), 2) for v in per.mean(axis=0)]
        as_set = sum(set(a) != set(b) for a, b in zip(exact.tolist(), hnsw))
        in_order = sum(list(a) != list(b) for a, b in zip(exact.tolist(), hnsw))
        moved = sum(a != b for a, b in zip(cut, placed))
        rows.append({"spec": spec, "chunks": len(chunks), "questions": len(golden.items),
                     "top5_differs_as_set": as_set, "top5_differs_in_order": in_order, "placed_elsewhere": moved,
                     "recall_precision_iou_omega": by})
        print(f"{spec}: {len(chunks):,} chunks, {moved:,} placed elsewhere by Chroma's search; top 5 differs "
              f"under HNSW for {as_set} of {len(golden.items)} questions ({in_order} in order)")
        for name, figures in by.items():
            print(f"    {name:14s} recall {figures[0]:5.1f}  precision {figures[1]:4.1f}  IoU {figures[2]:4.1f}  "
                  f"precision-Ω {figures[3]:5.1f}")
    record("chroma_hnsw", {"rows": rows})


if __name__ == "__main__":
    main()
