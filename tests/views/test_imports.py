"""``inspector.views.imports``: the upload handlers, the sample files, and the rows the Import page shows."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Document, Workspace
from inspector.chunks.export import export_text
from inspector.limits import MAX_CHUNK_FILE_BYTES, MAX_GOLDEN_BYTES
from inspector.retrieval.golden import golden_recall
from inspector.views.imports import (
    damage_export,
    folder_rows,
    gap_rows,
    golden_problem_rows,
    golden_upload,
    import_upload,
    imported_spec,
    miss_rows,
    problem_rows,
    recall_rows,
    sample_export,
    side_by_side,
    span_rows,
)
from tests.support.paths import SAMPLE

GOLDEN = (SAMPLE / "golden-questions.jsonl").read_bytes()


SMALL = Workspace([Document("a.md", "# A\n\nThe port is 8080 and the timeout is 30 seconds.\n\n| k | v |\n|---|---|\n"
                                    "| x | 1 |\n"),
                   Document("b.md", "Plain words.\n\nMore plain words here.\n")])


@pytest.fixture(scope="module")
def export(sample_markdown) -> bytes:
    return sample_export(sample_markdown, "structured:800")


def spans(chunks) -> list[tuple[str, int, int]]:
    return [(c.doc_id, c.start, c.end) for c in chunks]


def test_the_sample_export_imports_back_to_the_same_spans(sample_markdown, export):
    result, problem = import_upload("s.jsonl", export, sample_markdown)
    assert problem is None and result.problems == () and result.missing_documents == ()
    assert result.imported == result.records == len(sample_markdown.chunks("structured:800"))
    assert result.placements["offsets"] == result.imported
    assert spans(result.all_chunks()) == spans(sample_markdown.chunks("structured:800"))
    assert gap_rows(result, sample_markdown.documents, blank=False) == []


def test_the_damaged_sample_names_each_broken_record_and_places_the_rest(sample_markdown, export):
    damaged = damage_export(export.decode())
    assert damaged.splitlines()[10:] == export.decode().splitlines()[10:], "only records 2-10 change"
    result, problem = import_upload("d.jsonl", damaged.encode(), sample_markdown)
    assert problem is None
    assert [(p.line, p.kind) for p in result.problems] == [
        (2, "malformed"), (4, "unknown-document"), (6, "offset-mismatch"), (10, "duplicate")]
    assert result.records == result.imported + 3  # malformed, unknown document, duplicate
    assert result.placements["realigned"] == 1 and result.placements["normalised"] == 1
    original = [json.loads(line) for line in export.decode().splitlines()[:10]]
    by_line = {o.line: (o.doc_id, o.start, o.end, o.how) for o in result.origins}
    assert by_line[6] == (original[5]["doc_id"], original[5]["start"], original[5]["end"], "realigned")
    squashed = original[7]["text"]  # placed without the whitespace its edges lost, never more
    lead, trail = len(squashed) - len(squashed.lstrip()), len(squashed) - len(squashed.rstrip())
    assert by_line[8] == (original[7]["doc_id"], original[7]["start"] + lead, original[7]["end"] - trail,
                          "normalised")
    uncovered = {(r["document"], r["start"], r["end"]) for r in gap_rows(result, sample_markdown.documents,
                                                                         blank=False)}
    for lost in (original[3], original[9]):  # the unknown document's chunk and the overwritten one
        assert any(doc == lost["doc_id"] and a <= lost["start"] < b for doc, a, b in uncovered), lost["start"]
    rows = problem_rows(result.problems)
    assert rows[1] == {"line": 4, "chunk id": original[3]["chunk_id"], "kind": "unknown-document",
                       "message": "no document 'not-in-this-corpus.md' in the corpus"}


def test_damage_fits_files_of_few_records():
    text = export_text(SMALL, "paragraph:40")
    lines = text.splitlines()
    assert 2 <= len(lines) < 10
    damaged = damage_export(text).splitlines()
    assert len(damaged) == len(lines) and damaged[0] == lines[0] and damaged[1] != lines[1]


def test_the_upload_handler_refuses_whole_files_with_a_reason(sample_markdown):
    result, problem = import_upload("big.jsonl", b" " * (MAX_CHUNK_FILE_BYTES + 1), sample_markdown)
    assert result is None and problem.startswith("big.jsonl is 20.0 MB; chunk files over 20 MB are refused")
    result, problem = import_upload("x.jsonl", b'{"text": "caf\xe9"}\n', sample_markdown)
    assert result is None and "not UTF-8" in problem and "offset 13" in problem
    for empty in (b"", b"text,doc_id\n", b"\n\n"):
        result, problem = import_upload("e.csv", empty, sample_markdown)
        assert result is None and "holds no chunk records" in problem


def test_the_upload_handler_keeps_good_records_of_a_broken_file(sample_markdown, export):
    good = export.decode().splitlines()[:3]
    data = "\n".join([good[0], "{oops", good[1], json.dumps({"text": "x", "doc_id": "nope.md"}), good[2]])
    result, problem = import_upload("b.jsonl", data.encode(), sample_markdown)
    assert problem is None and result.imported == 3
    assert [(p.line, p.kind) for p in result.problems] == [(2, "malformed"), (4, "unknown-document")]


def test_a_default_document_places_records_that_name_none():
    text = SMALL.documents[0].text
    records = json.dumps([{"text": text[:20], "start_index": 0, "end_index": 20},
                          {"text": text[20:], "start_index": 20, "end_index": len(text)}]).encode()
    result, _ = import_upload("chonkie.json", records, SMALL)
    assert result.imported == 0 and {p.kind for p in result.problems} == {"no-document"}
    result, _ = import_upload("chonkie.json", records, SMALL, default_doc="a.md")
    assert result.imported == 2 and result.placements["offsets"] == 2 and result.problems == ()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(["f.jsonl", "f.json", "f.csv", "f"]),
       data=st.one_of(st.binary(max_size=200),
                      st.lists(st.dictionaries(st.sampled_from(["text", "doc_id", "start", "end", "metadata"]),
                                               st.one_of(st.text(max_size=20), st.integers(-5, 90), st.none())),
                               max_size=4).map(lambda rs: "\n".join(map(json.dumps, rs)).encode())))
def test_the_upload_handler_never_raises(name, data):
    result, problem = import_upload(name, data, SMALL)
    assert (result is None) != (problem is None)
    if result is not None:
        texts = {d.id: d.text for d in SMALL.documents}
        for origin in result.origins:
            assert 0 <= origin.start < origin.end <= len(texts[origin.doc_id])
        if name == "f.jsonl":  # one record per line: every record is placed or named by its line
            accounted = {o.line for o in result.origins} | {p.line for p in result.problems}
            assert len(accounted) == result.records


def test_side_by_side_measures_both_chunkings_on_the_same_documents(sample_markdown, export):
    result, _ = import_upload("s.jsonl", export, sample_markdown)
    same, = {json.dumps({k: v for k, v in row.items() if k != "chunks from"}, sort_keys=True)
             for row in side_by_side(sample_markdown, result, "structured:800")}
    assert json.loads(same)["chunks"] == result.imported
    fixed = side_by_side(sample_markdown, result, "fixed:800", label="my fixed")
    assert [r["chunks from"] for r in fixed] == ["imported:s.jsonl", "my fixed"]
    assert fixed[1]["chunks"] == len(sample_markdown.chunks("fixed:800"))
    assert fixed[0]["table"] > fixed[1]["table"] and fixed[0]["cut"] < fixed[1]["cut"]
    # Only documents that received chunks take part, on both sides.
    two = b"\n".join(export.splitlines()[:3])
    partial, _ = import_upload("p.jsonl", two, sample_markdown)
    rows = side_by_side(sample_markdown, partial, "fixed:800")
    docs = set(partial.chunks)
    assert rows[0]["documents"] == rows[1]["documents"] == len(docs)
    assert rows[1]["chunks"] == sum(1 for c in sample_markdown.chunks("fixed:800") if c.doc_id in docs)


def test_golden_upload_refuses_whole_files_and_lists_bad_lines(sample_markdown):
    assert golden_upload("g.jsonl", b"x" * (MAX_GOLDEN_BYTES + 1), sample_markdown)[1].startswith("g.jsonl is 5.0 MB")
    assert "holds no questions" in golden_upload("g.jsonl", b"\n \n", sample_markdown)[1]
    assert "not UTF-8" in golden_upload("g.jsonl", b"\xff", sample_markdown)[1]
    lines = GOLDEN.splitlines()
    data = b"\n".join([lines[0], b"{broken", json.dumps({"question": "q", "evidence": "e", "doc_id": "no.md"}).encode(),
                       json.dumps({"question": "q", "evidence": "never in the corpus at all"}).encode()])
    golden, problem = golden_upload("g.jsonl", data, sample_markdown)
    assert problem is None and len(golden.items) == 1
    assert [(r["line"], r["kind"]) for r in golden_problem_rows(golden)] == [
        (2, "malformed"), (3, "unknown-document"), (4, "not-found")]


def test_recall_folder_and_miss_rows_agree_with_the_results(sample_markdown, export):
    golden, _ = golden_upload("g.jsonl", GOLDEN, sample_markdown)
    result, _ = import_upload("s.jsonl", export, sample_markdown)
    imported = golden_recall(sample_markdown, golden, imported_spec(sample_markdown, result), label=result.spec)
    fixed = golden_recall(sample_markdown, golden, "fixed:800")
    rows = recall_rows([imported, fixed])
    assert [(r["chunks from"], r["context budget"]) for r in rows] == [
        ("imported:s.jsonl", 2000), ("imported:s.jsonl", 4000), ("fixed:800", 2000), ("fixed:800", 4000)]
    for row, (res, budget) in zip(rows, [(imported, 2000), (imported, 4000), (fixed, 2000), (fixed, 4000)]):
        assert row["recall"] == res.recall(budget) and row["hit"] + row["cut"] + row["rank-miss"] + \
            row["uncovered"] == row["questions"] == len(golden.items)
    assert rows[2]["cut"] > rows[0]["cut"] == 0
    assert rows[0]["recall 95%"] == imported.interval(2000).bounds() and rows[0]["recall 95%"].startswith("[")
    folders = folder_rows([imported, fixed])
    assert [(r["folder"], r["chunks from"]) for r in folders][:2] == [("blog", "imported:s.jsonl"),
                                                                      ("blog", "fixed:800")]
    assert sum(r["questions"] for r in folders if r["chunks from"] == "fixed:800") == len(golden.items)
    small = min(folders, key=lambda r: r["questions"])
    low, high = (float(end) / 100 for end in small["recall@2000 95%"].strip("[]").split(", "))
    assert low <= small["recall@2000"] <= high and high - low > 0.3, "a folder of few questions says little"
    spans = span_rows([fixed])
    assert spans[0]["span recall 95%"].startswith("[") and "span IoU 95%" in spans[0]
    misses = miss_rows([imported, fixed])
    missed = {q.item.line for res in (imported, fixed) for q in res.questions if set(q.outcomes) != {"hit"}}
    assert {m["line"] for m in misses} == missed
    assert all(set(m) >= {"fixed:800 @2000", "imported:s.jsonl @4000"} for m in misses)
    assert miss_rows([]) == []


def test_coverage_rows_total_the_text_no_chunk_holds_per_document():
    from inspector.chunks.importer import import_chunks
    from inspector.views.imports import coverage_rows

    document = Document("a.md", "# Title\n\nKept part.\n\nLost words here.\n")
    kept = document.text.index("Lost")
    result = import_chunks(json.dumps({"doc_id": "a.md", "text": document.text[:kept]}).encode(), [document],
                           name="c.jsonl")
    (row,) = coverage_rows(result, [document])
    assert row["document"] == "a.md" and row["text in no chunk"] == len("Lostwordshere.")
    assert row["share"] == row["text in no chunk"] / len(document.text)
