"""Chunks as tests need them: a chunking by document, chunk records as JSON Lines, and the span
invariants every splitter keeps."""

from __future__ import annotations

import json

from inspector import Document, Workspace, get_length


def chunks_of(work: Workspace, spec: str, documents=None) -> dict:
    return {r.doc_id: r.chunks for r in work.split(spec) if documents is None or r.doc_id in documents}


def jsonl(records) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def check_span_invariants(text, spec, result) -> None:
    """Chunks tile ``text`` (sorted, no gap, no overlap, none empty), and every chunk over the
    budget in ``spec``'s unit (prefix counted) is reported as oversized."""
    length = get_length(spec.unit)
    spans = [(c.start, c.end) for c in result.chunks]
    doc = Document("d.md", text)
    if not text:
        assert spans == []
        return
    assert spans[0][0] == 0 and spans[-1][1] == len(text), "the chunks cover the text"
    assert all(a < b for a, b in spans), "no empty chunk"
    assert all(x[1] == y[0] for x, y in zip(spans, spans[1:])), "sorted, no gap, no overlap"
    for i, chunk in enumerate(result.chunks):
        if length.count(chunk.embedded_text(doc)) > spec.budget:
            assert i in result.oversized, f"chunk {i} over the budget and not reported"
