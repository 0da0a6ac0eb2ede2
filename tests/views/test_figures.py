"""``inspector.views.figures``: the charts the pages show, built without Streamlit."""

from __future__ import annotations

import pandas as pd
import pytest

from inspector import ATOM_KINDS, get_length
from inspector.review.agreement import TrendPoint
from inspector.views.charts import survival_chart
from inspector.views.figures import (
    GOLDEN_OUTCOME_COLOURS,
    OUTCOME_COLOURS,
    golden_outcome_figure,
    orphan_trend_figure,
    size_histogram,
    sweep_context_figure,
    sweep_survival_figure,
)
from inspector.views.frames import (
    compare_frame,
    sizes_frame,
    sweep_frame,
)


def test_figures_have_a_trace_per_series_and_the_cap_line(workspace):
    sweep = sweep_frame(workspace, "structured:800", (400, 800))
    assert len(sweep_survival_figure(sweep).data) == len(ATOM_KINDS)
    assert list(sweep_context_figure(sweep).data[0].y) == list(sweep["ctx tokens"])
    sizes = sizes_frame(workspace, "structured:800", get_length("chars"))
    histogram = size_histogram(sizes, 512, "characters")
    assert [shape.x0 for shape in histogram.layout.shapes] == [512]


def test_every_rate_charted_carries_its_95_percent_interval_as_an_error_bar(workspace):
    sweep = sweep_frame(workspace, "structured:800", (400, 800))
    code = sweep_survival_figure(sweep).data[0]
    assert list(code.error_y.array) == pytest.approx(list(sweep["code high"] - sweep["code"]))
    assert (sweep["code low"] <= sweep["code"]).all()


def test_golden_outcomes_stack_one_bar_per_chunking_and_budget():
    outcomes = pd.DataFrame({"chunks from": ["imported", "structured:800"], "context budget": [2000, 2000],
                             "hit": [7, 9], "cut": [2, 0], "rank-miss": [1, 1], "uncovered": [0, 0]})
    figure = golden_outcome_figure(outcomes)
    assert [trace.name for trace in figure.data] == list(GOLDEN_OUTCOME_COLOURS)
    cut = figure.data[1]
    assert list(cut.y) == [2, 0] and cut.marker.color == GOLDEN_OUTCOME_COLOURS["cut"]
    assert [list(level) for level in cut.x] == [["imported", "structured:800"], ["2,000 tokens", "2,000 tokens"]]
    assert figure.layout.barmode == "stack"


def test_orphan_trend_bars_carry_wilsons_interval():
    from inspector.confidence import wilson

    figure = orphan_trend_figure([TrendPoint("r1", "structured:800", "2026-11-01T00:00:00Z", 20, 5, 2)])
    low, high = wilson(5, 20)
    bars = figure.data[0].error_y
    assert list(bars.array) == pytest.approx([high - 0.25]) and list(bars.arrayminus) == pytest.approx([0.25 - low])


def test_orphan_trend_labels_each_round_with_its_orphan_answers_over_answers():
    points = [TrendPoint("r1", "structured:800", "2026-11-01T00:00:00Z", 20, 5, 2),
              TrendPoint("r2", "structured:800+path", "2026-11-02T00:00:00Z", 10, 1, 1)]
    (bar,) = orphan_trend_figure(points).data
    assert list(bar.x) == ["1. structured:800", "2. structured:800+path"]
    assert list(bar.y) == [0.25, 0.1]
    assert list(bar.text) == ["5 of 20 answers", "1 of 10 answers"], "answers, not chunks: the unit is said"


def test_no_atom_kind_is_drawn_in_the_red_of_a_cut_or_the_green_of_an_answer(workspace):
    taken = {OUTCOME_COLOURS["cut"], OUTCOME_COLOURS["answer@5"], "#b3261e"}
    bars = survival_chart(compare_frame(workspace, ["fixed:400", "structured:800"], fits=800))[
        "layer"][0]["encoding"]["color"]["scale"]["range"]
    lines = [t.line.color for t in sweep_survival_figure(sweep_frame(workspace, "structured:800", (400, 800))).data]
    assert bars == lines and len(set(bars)) == len(ATOM_KINDS) and not set(bars) & taken
    for colour in bars:  # no kind is a red: its red channel does not dominate
        red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert red < max(green, blue) + 40, colour
