"""``inspector.views.charts``: Compare's Vega-Lite charts carry every splitter, every series and
each rate's 95% interval as an error bar, in the app's colours."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from inspector import ATOM_KINDS
from inspector.model import ATOM_LABELS
from inspector.views.charts import probe_chart, survival_chart
from inspector.views.figures import ATOM_COLOURS, OUTCOME_COLOURS
from inspector.views.frames import compare_frame


@pytest.fixture(scope="module")
def frame(workspace_module):
    return compare_frame(workspace_module, ["fixed:400", "structured:800"], fits=800)


@pytest.fixture(scope="module")
def workspace_module():
    from inspector import Workspace, load_corpus
    from tests.support.paths import SAMPLE

    return Workspace(load_corpus(SAMPLE))


def _rows(spec: dict) -> list[dict]:
    return spec["data"]["values"]


@pytest.mark.parametrize("chart", [survival_chart, probe_chart])
def test_each_chart_is_a_valid_vega_lite_specification(frame, chart):
    from altair.utils.schemapi import validate_jsonschema
    from altair.vegalite.v6.schema.core import load_schema

    spec = chart(frame)
    validate_jsonschema(spec, load_schema())  # raises on any property Vega-Lite does not define
    json.dumps(spec, allow_nan=False)  # plain JSON: no NaN, no numpy value


def test_survival_has_a_bar_per_kind_and_splitter_and_an_error_bar_from_each_interval(frame):
    spec = survival_chart(frame)
    bars, rules = spec["layer"]
    assert bars["mark"]["type"] == "bar" and rules["mark"]["type"] == "rule"
    assert bars["encoding"]["xOffset"]["field"] == "series", "grouped, one bar per kind"
    assert bars["encoding"]["color"]["scale"]["range"] == [ATOM_COLOURS[k] for k in ATOM_KINDS]
    assert rules["encoding"]["y"]["field"] == "low" and rules["encoding"]["y2"]["field"] == "high"
    rows = _rows(survival_chart(frame))
    assert len(rows) == len(ATOM_KINDS) * len(frame)
    for kind in ATOM_KINDS:
        for splitter, rate, low, high in zip(frame["splitter"], frame[kind], frame[f"{kind} low"],
                                             frame[f"{kind} high"]):
            (row,) = [r for r in rows if r["splitter"] == splitter and r["series"] == ATOM_LABELS[kind] + "s"]
            assert (row["survival"], row["low"], row["high"]) == pytest.approx((rate, low, high))
            assert row["low"] <= row["survival"] <= row["high"]


def test_probe_stacks_answered_at_the_bottom_with_only_its_interval_drawn(frame):
    spec = probe_chart(frame)
    bars, answered = spec["layer"]
    assert bars["encoding"]["y"]["stack"] == "zero" and bars["encoding"]["order"]["field"] == "position"
    assert bars["encoding"]["color"]["scale"]["domain"] == list(OUTCOME_COLOURS)
    assert bars["encoding"]["color"]["scale"]["range"] == list(OUTCOME_COLOURS.values())
    assert "datum.series === 'answer@5'" in answered["transform"][0]["filter"]
    rows = _rows(probe_chart(frame))
    at5 = [r for r in rows if r["series"] == "answer@5"]
    assert [r["position"] for r in at5] == [0] * len(frame), "answer@5 is the bottom of the stack"
    assert [r["low"] for r in at5] == pytest.approx(list(frame["answer@5 low"]))
    assert [r["high"] for r in at5] == pytest.approx(list(frame["answer@5 high"]))


def test_a_frame_without_intervals_draws_bars_and_no_error_bar():
    plain = pd.DataFrame({"splitter": ["imported"], **{k: [0.5] for k in ATOM_KINDS}})
    rows = _rows(survival_chart(plain))
    assert len(rows) == len(ATOM_KINDS) and all(r["low"] is None and r["high"] is None for r in rows)
