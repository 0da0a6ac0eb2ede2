"""``inspector.views.frames``: the app's tables agree with the engine and the CLI report."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import ATOM_KINDS, Document, SplitterSpec, Workspace, build_report, get_length
from inspector.chunks.sets import make_chunk_set
from inspector.kinds import offered_kinds
from inspector.measure import percentile
from inspector.measure.survival import cut_atoms
from inspector.spec import ARTICLE_SPECS, parse_spec
from inspector.views.frames import (
    TABLE_A,
    TABLE_B,
    article_specs,
    compare_frame,
    compare_suggestions,
    doc_view,
    probe_verdict,
    size_summary,
    sizes_frame,
    survival_verdict,
    sweep_frame,
    uploads_corpus,
)
from inspector.views.intervals import bound_columns, interval_notes, with_intervals
from tests.support.chunks import chunks_of


def test_the_overlay_view_of_an_imported_set_is_the_splitters(work):
    doc = work.documents[5]
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "fixed:700"))
    spec = work.add_chunk_set(chunk_set)
    length = get_length("chars")
    mine, theirs = doc_view(work, doc, spec, length), doc_view(work, doc, "fixed:700", length)
    assert mine.result.spans == theirs.result.spans and mine.cuts == theirs.cuts and mine.sizes == theirs.sizes


def test_intervals_are_shown_after_their_rates_and_the_verdict_is_the_reports(workspace):
    frame = compare_frame(workspace, ["fixed:400", "structured:800"], fits=800)
    shown = with_intervals(frame, ("answer@5", "cut"))
    columns = list(shown.columns)
    assert columns[columns.index("answer@5") + 1] == "answer@5 95%" and "answer@5 low" not in columns
    assert shown["answer@5 95%"].iloc[0] == "[{:.1f}, {:.1f}] of {}".format(
        100 * frame["answer@5 low"].iloc[0], 100 * frame["answer@5 high"].iloc[0], frame["queries"].iloc[0])
    assert "answer@5 of" not in columns and "code of" in frame
    assert probe_verdict(frame).startswith("structured 800 is best on answer@5")
    assert probe_verdict(frame.drop(columns=["answered"])) == ""


def test_a_clicked_cell_says_its_count_interval_and_method(workspace):
    frame = compare_frame(workspace, ["fixed:400", "structured:800"], fits=800)
    notes = interval_notes(frame, ATOM_KINDS, label="splitter", counted="atoms", method="documents resampled")
    shown = with_intervals(frame, ATOM_KINDS)
    assert list(notes.columns) == list(shown.columns) and len(notes) == len(shown)
    row = frame.iloc[0]
    hits = round(row["code"] * row["code of"])
    expected = (f"{row['splitter']}, code: {100 * row['code']:.1f}% of {int(row['code of']):,} atoms ({hits}); "
                f"95% interval {100 * row['code low']:.1f}–{100 * row['code high']:.1f}% (documents resampled).")
    assert notes.loc[0, "code"] == expected == notes.loc[0, "code 95%"]
    assert notes.loc[0, "chunks"] == "" and notes.loc[0, "splitter"] == ""
    per_column = interval_notes(frame, ("answer@5", "code"), label="splitter", method="m",
                                counted={"answer@5": "queries", "code": "atoms"})
    assert f"of {frame['queries'].iloc[1]} queries" in per_column.loc[1, "answer@5"]
    assert "atoms" in per_column.loc[1, "code"]


def test_article_specs_at_800_are_the_articles_seven():
    assert article_specs(800) == ARTICLE_SPECS


def test_article_specs_scale_budget_overlap_and_unit():
    specs = [str(s) for s in article_specs(400, "cl100k")]
    assert specs == ["fixed:200t:cl100k", "fixed:400t:cl100k", "fixed:400t/60:cl100k", "paragraph:400t:cl100k",
                     "recursive:400t:cl100k", "sentence:400t:cl100k", "structured:400t:cl100k"]
    tiny = article_specs(1)  # fixed:400 and fixed:800 both become budget 1; duplicates go
    assert len(tiny) == len(set(tiny)) and all(s.overlap < s.budget for s in tiny)


def test_compare_frame_is_the_reports_tables_a_and_b(workspace):
    specs = ["fixed:400", "fixed:800/120", "structured:800"]
    calls = []
    frame = compare_frame(workspace, specs, fits=800, progress=lambda *a: calls.append(a))
    report = build_report(workspace, specs=specs, fits=800, budgets=())
    assert list(frame["spec"]) == specs
    rates = (*ATOM_KINDS, "answer@5", "cut")
    helpers = {"queries", "answered", "documents", "groups", "over cap"}
    assert set(TABLE_A) | set(TABLE_B) | helpers | set(bound_columns(rates)) == set(frame.columns)
    assert set(frame["queries"]) == {report["queries"]} and set(frame["over cap"]) == {0}  # BM25 cuts nothing
    assert survival_verdict(frame) == report["survival_decision"]["sentence"]
    assert "structured 800 is best on atoms kept whole" in survival_verdict(frame)
    for row, expected in zip(frame.to_dict("records"), report["compare"]):
        assert row["chunks"] == expected["chunks"] and row["answered"] == expected["answered"]
        for kind in ATOM_KINDS:
            assert row[kind] == expected["survival"][kind]
            interval = expected["intervals"]["survival"][kind]
            assert (row[f"{kind} low"], row[f"{kind} high"]) == ((interval["low"], interval["high"]) if interval
                                                                 else (None, None))
        assert row["answer@5 low"] == expected["intervals"]["answer_at_5"]["low"]
        assert row["answer@5"] == expected["answer_at_5"] and row["cut"] == expected["cut"]
        assert row["answer@5"] + row["cut"] + row["rank miss"] == pytest.approx(1.0)
        assert row["ctx tokens"] == pytest.approx(expected["ctx_tokens"], abs=0.05)
    assert frame.loc[1, "duplication"] > 1.0 >= frame.loc[0, "duplication"]  # overlap repeats text
    assert calls[-1][1] == calls[-1][2]  # progress reaches its total


def test_sweep_frame_matches_the_reports_sweep(workspace):
    budgets = (300, 900)
    calls = []
    frame = sweep_frame(workspace, "structured:800", budgets, progress=lambda *a: calls.append(a))
    report = build_report(workspace, specs=(), sweep_spec="structured:800", budgets=budgets)
    assert list(frame["budget"]) == list(budgets)
    for row, expected in zip(frame.to_dict("records"), report["sweep"]):
        assert row["chunks"] == expected["chunks"] and row["spec"] == expected["spec"]
        for kind in ("code", "table", "num"):
            assert row[kind] == expected["survival"][kind]
    assert frame.loc[0, "chunks"] > frame.loc[1, "chunks"]
    assert [c[1:] for c in calls] == [(1, 2), (2, 2)]


def test_sweep_keeps_overlap_only_where_it_fits(workspace):
    frame = sweep_frame(workspace, "fixed:800/300", (200, 800))
    assert list(frame["spec"]) == ["fixed:200", "fixed:800/300"]


def test_sizes_frame_counts_what_is_embedded(workspace):
    length = get_length("o200k")
    frame = sizes_frame(workspace, "heading:400", length)
    chunks = workspace.chunks("heading:400")
    assert len(frame) == len(chunks)
    docs = {d.id: d for d in workspace.documents}
    assert sum(bool(c.prefix) for c in chunks) > len(chunks) // 2  # heading paths are embedded too
    for row, chunk in zip(frame.to_dict("records")[:20], chunks):
        text = chunk.embedded_text(docs[chunk.doc_id])
        assert row["tokens"] == length.count(text) and row["chars"] == len(text)
        assert row["chunk"] == chunk.index + 1 and row["doc"] == chunk.doc_id


def test_size_summary_finds_runts_and_over_cap_chunks(workspace):
    frame = sizes_frame(workspace, "structured:800", get_length("o200k"))
    tokens = sorted(frame["tokens"])
    cap = tokens[-3]  # the two largest chunks exceed it, unless tied
    summary = size_summary(frame, cap, overhead=0)
    expected = frame[frame["tokens"] > cap]
    assert len(summary.over_cap) == len(expected) >= 1
    assert list(summary.over_cap["tokens"]) == sorted(expected["tokens"], reverse=True)
    assert summary.stats.p50 == percentile(tokens, 50) and summary.stats.p99 == percentile(tokens, 99)
    with_overhead = size_summary(frame, cap, overhead=2)
    assert len(with_overhead.over_cap) >= len(summary.over_cap)
    runts = size_summary(frame, 10_000, runt_tokens=tokens[len(tokens) // 2] + 1)
    assert runts.cap.runt_ratio >= 0.5 and runts.over_cap.empty


def test_doc_view_marks_cut_atoms_and_measures_the_document(workspace):
    document = next(d for d in workspace.documents if workspace.analysis(d).count("table"))
    length = get_length("chars")
    fixed = doc_view(workspace, document, "fixed:200", length)
    spans = fixed.result.spans
    assert list(fixed.cuts) == cut_atoms(workspace.analysis(document).atoms, spans)
    assert fixed.cuts and fixed.duplication == pytest.approx(1.0)
    assert fixed.sizes == tuple(b - a for a, b in spans)
    intact_tables, tables = fixed.survival["table"]
    assert tables == workspace.analysis(document).count("table") and intact_tables < tables
    overlapped = doc_view(workspace, document, "fixed:200/50", length)
    assert overlapped.duplication > 1.0
    whole = doc_view(workspace, document, SplitterSpec("fixed", 10 * len(document.text)), length)
    assert whole.cuts == () and len(whole.result.chunks) == 1


def test_doc_view_of_an_empty_document():
    empty = Document("empty.md", "")
    view = doc_view(Workspace([empty]), empty, "structured:800", get_length("chars"))
    assert view.cuts == () and view.duplication == 0.0


def test_uploads_corpus_checks_sizes_on_the_server():
    corpus, problem = uploads_corpus([("a.md", b"# A\n\ntext"), ("b.md", b"x" * 200), ("c.md", b"\0bin")],
                                     mode="markdown", max_file_bytes=100)
    assert problem is None
    assert [d.id for d in corpus.documents] == ["a.md"]
    assert {s.path: s.reason for s in corpus.skipped}.keys() == {"b.md", "c.md"}
    assert "limit" in {s.path: s.reason for s in corpus.skipped}["b.md"]
    corpus, problem = uploads_corpus([("a.md", b"x" * 60), ("b.md", b"x" * 60)], mode="markdown",
                                     max_total_bytes=100)
    assert corpus is None and "limit" in problem


@pytest.mark.parametrize("budget, unit", [(800, "chars"), (512, "cl100k"), (1, "chars"), (1_000_000, "chars")])
def test_compare_suggestions_are_valid_distinct_specs_in_the_sidebars_unit(budget, unit):
    suggested = compare_suggestions(budget, unit, ["ext-langchain"])
    specs = [parse_spec(s) for s in suggested]
    assert len(set(suggested)) == len(suggested) and [str(s) for s in specs] == list(suggested)
    assert {s.unit for s in specs} == {unit} and {s.kind for s in specs} == {*offered_kinds(), "ext-langchain"}
    assert all(s.overlap < s.budget for s in specs)
    assert {s.budget for s in specs} == {max(1, budget // 2), budget, min(budget * 2, 1_000_000)}


@given(st.lists(st.integers(min_value=0, max_value=200_000), max_size=40), st.integers(min_value=1, max_value=12),
       st.integers(min_value=1, max_value=100_000))
def test_document_parts_tile_the_corpus_in_runs_of_enough_text(lengths, parts, least):
    from inspector.views.frames import document_parts

    documents = [Document(f"d{i}.md", "x" * n) for i, n in enumerate(lengths)]
    runs = document_parts(documents, parts, least)
    assert runs[0][0] == 0 and runs[-1][1] == len(documents)
    assert all(stop == first for (_, stop), (first, _) in zip(runs, runs[1:]))
    assert len(runs) <= parts + 1
    size = max(least, -(-sum(lengths) // parts))
    assert all(sum(lengths[first:stop]) >= size for first, stop in runs[:-1])


def test_a_corpus_the_probe_draws_no_query_from_says_so_and_shows_no_rate():
    work = Workspace([Document("a.md", "# Notes\n\nNo figures here at all.\n")])
    frame = compare_frame(work, ["fixed:400", "structured:800"], fits=800)
    assert frame["answer@5"].isna().all() and frame["cut"].isna().all() and frame["rank miss"].isna().all()
    assert "drew no query" in probe_verdict(frame)
