"""``inspector.views.comparison``: what the Compare page draws from its measured rows is what
each piece computes from the whole frame, the rows kept in order and named as the user wrote them;
a store's own search joins table b alone."""

from __future__ import annotations

import pandas as pd
import pytest

from inspector import ATOM_KINDS
from inspector.views.charts import probe_chart, survival_chart
from inspector.views.comparison import compare_tables
from inspector.views.frames import TABLE_A, compare_frame, probe_verdict, survival_verdict
from inspector.views.intervals import interval_notes, with_intervals

SPECS = ["fixed:400", "structured:800", "recursive:800"]


@pytest.fixture(scope="module")
def rows(workspace) -> list[pd.DataFrame]:
    """One row per splitter, as the page gets them, in the order of ``SPECS``."""
    return [compare_frame(workspace, [spec], fits=800) for spec in SPECS]


def test_the_tables_are_the_whole_frames_tables_in_the_order_given(rows):
    titles = ("Fixed", "Structured (mine)", "Recursive")
    written = ("fixed:400", "structured:800", "recursive:800:0")
    tables = compare_tables(rows, written, titles)
    frame = pd.concat(rows, ignore_index=True)
    frame["spec"], frame["splitter"] = list(written), list(titles)
    pd.testing.assert_frame_equal(tables.frame, frame)
    assert list(tables.table_a["splitter"]) == list(titles) and list(tables.table_a["spec"]) == list(written)
    shown = with_intervals(frame, ATOM_KINDS)
    pd.testing.assert_frame_equal(tables.table_a, shown[[c for c in shown.columns if c in TABLE_A or
                                                         c.endswith(" 95%")]])
    assert [c for c in tables.table_a.columns if c.endswith(" 95%")] == [f"{kind} 95%" for kind in ATOM_KINDS]
    notes = interval_notes(frame, ATOM_KINDS, label="splitter", counted="atoms", method="documents resampled")
    assert tables.notes_a["code 95%"].tolist() == [note.replace(", code:", ", code blocks:")
                                                   for note in notes["code 95%"]]
    assert tables.survival_said == survival_verdict(frame) and tables.probe_said == probe_verdict(frame)
    assert tables.survival_chart == survival_chart(frame) and tables.probe_chart == probe_chart(frame)
    assert list(tables.probe.shown.columns) == ["splitter", "spec", "answer@5", "answer@5 95%", "cut", "cut 95%",
                                            "rank miss", "ctx chars", "ctx tokens"]
    assert tables.probe.notes["answer@5"].str.contains("Wilson's, each query one trial").all()


def test_a_stores_own_search_joins_table_b_only(rows):
    tables = compare_tables(rows, SPECS, SPECS)
    searched = tables.probe.rows.iloc[[1]].assign(splitter="your search prod", **{"answer@5": 0.5})
    joined = tables.with_searched([searched])
    assert list(joined.probe.shown["splitter"]) == [*SPECS, "your search prod"]
    assert joined.probe.notes["answer@5"].iloc[-1].startswith("your search prod, answer@5: 50.0%")
    pd.testing.assert_frame_equal(joined.table_a, tables.table_a)
    assert joined.probe_said == tables.probe_said and len(tables.probe.shown) == len(SPECS)
    assert tables.with_searched([]) is tables
