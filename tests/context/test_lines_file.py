"""``inspector.context.lines_file``: context lines written elsewhere, kept under a name."""

from __future__ import annotations

import json

from inspector import Document, Workspace
from inspector.context.lines_file import import_lines
from inspector.context.store import ContextStore

DOCS = [Document("a.md", "# A\n\nFirst paragraph here.\n\nSecond paragraph here.\n")]


def test_lines_by_chunk_id_or_span_are_kept_and_bad_ones_reported(tmp_path):
    work = Workspace(DOCS)
    work.context_store = ContextStore(tmp_path)
    chunks = work.chunks("paragraph:30")
    first, second = chunks[0], chunks[1]
    records = [
        {"chunk_id": first.id, "line": "  The opening of A.  "},
        {"doc_id": "a.md", "start": second.start, "end": second.end, "context": "The second part of A."},
        {"doc_id": "a.md", "start": 0, "end": 3, "line": "Not a chunk of this splitter."},
        {"chunk_id": "0000000000000000", "line": "x"},
        {"doc_id": "a.md", "start": 5, "end": 10_000, "line": "x"},
        {"doc_id": "nowhere.md", "start": 0, "end": 1, "line": "x"},
        {"chunk_id": first.id},
        "not an object",
    ]
    data = ("\n".join(json.dumps(r) for r in records) + "\n{broken\n").encode()
    result = import_lines(data, DOCS, chunks, work.context_store, "their-model")
    assert (result.stored, result.unmatched) == (3, 1)
    assert [line for line, _ in result.problems] == [4, 5, 6, 7, 8, 9]
    reasons = dict(result.problems)
    assert "no chunk of this splitter" in reasons[4] and "not inside a.md" in reasons[5]
    assert "'line'" in reasons[7] and "not a JSON object" in reasons[8] and "not valid JSON" in reasons[9]
    lined = work.chunks("paragraph:30+context;llm=their-model")
    assert lined[0].prefix == "The opening of A.\n" and lined[1].prefix == "The second part of A.\n"
    assert lined[2].prefix == "" if len(lined) > 2 else True
