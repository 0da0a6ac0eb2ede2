"""``inspector.reports.field_table``: a golden section in Chroma's layout, its figures the section's own."""

from __future__ import annotations

from inspector import Workspace, load_corpus
from inspector.reports.field_table import FIELD_SPECS, field_rows, format_field
from inspector.reports.golden_table import golden_section
from inspector.spec import parse_spec
from tests.support.paths import SAMPLE


def test_the_field_table_reads_each_rows_top_five_span_scores():
    workspace = Workspace(load_corpus(SAMPLE))
    golden = workspace.load_golden(SAMPLE / "golden-paraphrase.csv")
    specs = [parse_spec(s) for s in ("fixed:800t/400", "cluster:200t+atoms")]
    section = golden_section(workspace, golden, specs, workspace.retriever("bm25"))
    rows = field_rows(section)
    assert [(r["chunker"], r["size"], r["overlap"], r["unit"]) for r in rows] == [
        ("fixed", 800, 400, "tokens"), ("cluster+atoms", 200, 0, "tokens")]
    for row, measured in zip(rows, section["rows"]):
        top = measured["span_scores"]["top 5"]
        assert (row["recall"], row["precision"], row["iou"]) == (top["recall"], top["precision"], top["iou"])
        assert row["precision_omega"] == measured["precision_omega"] > 0
        assert row["precision_omega_chroma"] == measured["precision_omega_chroma"] <= row["precision_omega"]
        assert row["std"]["recall"] == top["std"]["recall"] > 0
    lines = format_field(section)
    assert lines[0].startswith("golden-paraphrase.csv: 25 questions, the top 5 chunks ranked by bm25")
    fixed = lines[2].split()
    assert fixed[:6] == ["fixed", "800", "400", f"{100 * rows[0]['recall']:.1f}", "±",
                         f"{100 * rows[0]['std']['recall']:.1f}"]
    assert fixed[9:12] == [f"{100 * rows[0]['precision_omega_chroma']:.1f}", "±",
                           f"{100 * rows[0]['std']['precision_omega_chroma']:.1f}"]
    assert lines[3].strip().startswith("[")
    assert lines[-1].startswith("precision-Ω as Chroma's code computes it")
    assert all(parse_spec(s).kind in ("recursive", "fixed", "semantic", "cluster") for s in FIELD_SPECS)
