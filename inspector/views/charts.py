"""Compare's two charts as Vega-Lite specifications, built without Streamlit: atoms kept whole
per kind and splitter, and where the probe's evidence ends up, each rate with its 95% interval as
an error bar.

Vega-Lite, not plotly, because these are the charts a shared Compare link opens on: plotly.js
(4.7 MB) is parsed again by every new tab, Vega-Lite's runtime (0.78 MB) a sixth of that. Plain
dictionaries, not Altair objects: Altair validates a chart against the whole Vega-Lite schema
each time it is drawn (0.2 s of a Compare run for the two); the tests validate these once.
``bench/bench_first_look.py`` measures the page.
"""

from __future__ import annotations

import math

import pandas as pd

from ..model import ATOM_KINDS, ATOM_LABELS
from .figures import ATOM_COLOURS, OUTCOME_COLOURS

#: The height of each chart, in pixels.
HEIGHT = 340
#: The error bars' colour.
INK = "#1f2933"


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _long(frame: pd.DataFrame, columns: dict[str, str], value: str) -> list[dict]:
    """One row per splitter and column (``columns`` maps a frame column to its legend name):
    the rate, its interval (``NAME low``/``NAME high``, None when the frame has none) and the
    column's position."""
    rows = []
    for position, (column, name) in enumerate(columns.items()):
        for splitter, rate, low, high in zip(frame["splitter"], frame[column].astype(float),
                                             frame.get(f"{column} low", [None] * len(frame)),
                                             frame.get(f"{column} high", [None] * len(frame))):
            rows.append({"splitter": str(splitter), "series": name, "position": position,
                         value: None if math.isnan(rate) else float(rate),
                         "low": _number(low), "high": _number(high)})
    return rows


def _tooltip(value: str, label: str) -> list[dict]:
    return [{"field": "splitter", "type": "nominal", "title": "splitter"},
            {"field": "series", "type": "nominal", "title": label},
            {"field": value, "type": "quantitative", "format": ".1%", "title": value},
            {"field": "low", "type": "quantitative", "format": ".1%", "title": "95% low"},
            {"field": "high", "type": "quantitative", "format": ".1%", "title": "95% high"}]


def _splitters(frame: pd.DataFrame) -> dict:
    return {"field": "splitter", "type": "nominal", "sort": [str(s) for s in frame["splitter"]], "title": None,
            "axis": {"labelAngle": 0}}


def _rate(value: str, title: str, **more) -> dict:
    return {"field": value, "type": "quantitative", "title": title, "scale": {"domain": [0, 1.02]},
            "axis": {"format": "%"}, **more}


def _series(order: list[str], colours: list[str]) -> dict:
    return {"field": "series", "type": "nominal", "sort": order, "title": None,
            "scale": {"domain": order, "range": colours}}


def _interval(x: dict, **more) -> dict:
    return {"x": x, **more, "y": {"field": "low", "type": "quantitative"}, "y2": {"field": "high"}}


def survival_chart(frame: pd.DataFrame) -> dict:
    """Grouped bars: the share of atoms kept whole, per kind, per splitter, each with its 95%
    interval (documents resampled) as an error bar."""
    names = {kind: ATOM_LABELS[kind] + "s" for kind in ATOM_KINDS}
    order = list(names.values())
    x, offset = _splitters(frame), {"field": "series", "type": "nominal", "sort": order}
    tooltip = _tooltip("survival", "atoms")
    bars = {"mark": {"type": "bar"},
            "encoding": {"x": x, "xOffset": offset, "y": _rate("survival", "survival"),
                         "color": _series(order, [ATOM_COLOURS[kind] for kind in ATOM_KINDS]), "tooltip": tooltip}}
    intervals = {"transform": [{"filter": "isValid(datum.low)"}], "mark": {"type": "rule", "color": INK},
                 "encoding": {**_interval(x, xOffset=offset), "tooltip": tooltip}}
    return {"title": "Atoms kept whole (table a)", "height": HEIGHT,
            "data": {"values": _long(frame, names, "survival")}, "layer": [bars, intervals]}


def probe_chart(frame: pd.DataFrame) -> dict:
    """Stacked bars per splitter: answered in the top 5 (at the bottom, with its 95% interval as
    an error bar), cut, missed by ranking."""
    order = list(OUTCOME_COLOURS)
    x = _splitters(frame)
    tooltip = _tooltip("share", "outcome")
    bars = {"mark": {"type": "bar"},
            "encoding": {"x": x, "y": _rate("share", "share of queries", stack="zero"),
                         "color": _series(order, list(OUTCOME_COLOURS.values())),
                         "order": {"field": "position", "type": "quantitative"}, "tooltip": tooltip}}
    # answer@5 is the bottom of each stack, so its interval sits on the same axis as drawn.
    answered = {"transform": [{"filter": "datum.series === 'answer@5' && isValid(datum.low)"}],
                "mark": {"type": "rule", "color": INK}, "encoding": {**_interval(x), "tooltip": tooltip}}
    return {"title": "Lexical probe: where the evidence ends up (table b)", "height": HEIGHT,
            "data": {"values": _long(frame, {column: column for column in order}, "share")},
            "layer": [bars, answered]}
