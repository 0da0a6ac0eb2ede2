"""``inspector.review.answers``: the orphan rule, a reviewer's progress, CSV exports."""

from __future__ import annotations

import csv
import io
import json

from tests.support.review import CHUNKS, ROUND


def test_exports_round_trip_and_neutralise_formulas(store):
    store.save_answer(ROUND.id, CHUNKS[0], 1, "=HYPERLINK(1)", address=True, references=False,
                      completeness=True, note="-2 rows, \"quoted\", comma")
    store.save_answer(ROUND.id, CHUNKS[1], 2, "Bob", address=True)
    rows = list(csv.DictReader(io.StringIO(store.export_csv(ROUND.id))))
    assert [r["reviewer"] for r in rows] == ["'=HYPERLINK(1)", "Bob"]
    assert rows[0]["references"] == "no" and rows[0]["orphan"] == "yes"
    assert rows[0]["note"] == "'-2 rows, \"quoted\", comma"
    assert rows[1]["references"] == "" and rows[1]["orphan"] == ""
    data = json.loads(store.export_json())
    (only,) = data["rounds"]
    assert only["definition"] == ROUND.to_dict() and only["label"] == "structured:800"
    assert only["answers"][0]["reviewer"] == "=HYPERLINK(1)"  # JSON keeps the text as typed
    assert only["answers"][0]["orphan"] is True
