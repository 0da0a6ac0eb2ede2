"""Compare's two charts as Vega-Lite (through Altair), built without Streamlit: atoms kept whole
per kind and splitter, and where the probe's evidence ends up, each rate with its 95% interval as
an error bar.

Vega-Lite, not plotly, because these are the charts a shared Compare link opens on: a new tab
draws a Vega-Lite chart about 0.3 s after its page's run ends, a plotly one about 1.7 s after
(plotly.js, 4.7 MB, is parsed again by every tab); ``bench/bench_first_look.py`` measures it.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..model import ATOM_KINDS, ATOM_LABELS
from .figures import ATOM_COLOURS, OUTCOME_COLOURS

#: The height of each chart, in pixels.
HEIGHT = 340


def _long(frame: pd.DataFrame, columns: dict[str, str], value: str) -> pd.DataFrame:
    """One row per splitter and column (``columns`` maps a frame column to its legend name):
    the rate, its interval (``NAME low``/``NAME high``, empty when the frame has none) and the
    column's position."""
    rows = []
    for position, (column, name) in enumerate(columns.items()):
        for splitter, rate, low, high in zip(frame["splitter"], frame[column].astype(float),
                                             frame.get(f"{column} low", [None] * len(frame)),
                                             frame.get(f"{column} high", [None] * len(frame))):
            rows.append({"splitter": splitter, "series": name, "position": position, value: rate,
                         "low": None if low is None or pd.isna(low) else float(low),
                         "high": None if high is None or pd.isna(high) else float(high)})
    return pd.DataFrame(rows, columns=["splitter", "series", "position", value, "low", "high"])


def _tooltip(value: str, label: str) -> list:
    return [alt.Tooltip("splitter:N", title="splitter"), alt.Tooltip("series:N", title=label),
            alt.Tooltip(f"{value}:Q", format=".1%", title=value),
            alt.Tooltip("low:Q", format=".1%", title="95% low"), alt.Tooltip("high:Q", format=".1%", title="95% high")]


def survival_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Grouped bars: the share of atoms kept whole, per kind, per splitter, each with its 95%
    interval (documents resampled) as an error bar."""
    names = {kind: ATOM_LABELS[kind] + "s" for kind in ATOM_KINDS}
    data = _long(frame, names, "survival")
    order = list(names.values())
    x = alt.X("splitter:N", sort=list(frame["splitter"]), title=None, axis=alt.Axis(labelAngle=0))
    offset = alt.XOffset("series:N", sort=order)
    base = alt.Chart(data)
    bars = base.mark_bar().encode(
        x=x, xOffset=offset,
        y=alt.Y("survival:Q", title="survival", scale=alt.Scale(domain=[0, 1.02]), axis=alt.Axis(format="%")),
        color=alt.Color("series:N", sort=order, title=None,
                        scale=alt.Scale(domain=order, range=[ATOM_COLOURS[kind] for kind in ATOM_KINDS])),
        tooltip=_tooltip("survival", "atoms"))
    bars_of_intervals = base.transform_filter("isValid(datum.low)").mark_rule(color="#1f2933").encode(
        x=x, xOffset=offset, y="low:Q", y2="high:Q", tooltip=_tooltip("survival", "atoms"))
    return alt.layer(bars, bars_of_intervals).properties(title="Atoms kept whole (table a)", height=HEIGHT)


def probe_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Stacked bars per splitter: answered in the top 5 (at the bottom, with its 95% interval as
    an error bar), cut, missed by ranking."""
    names = {column: column for column in OUTCOME_COLOURS}
    data = _long(frame, names, "share")
    order = list(OUTCOME_COLOURS)
    x = alt.X("splitter:N", sort=list(frame["splitter"]), title=None, axis=alt.Axis(labelAngle=0))
    base = alt.Chart(data)
    bars = base.mark_bar().encode(
        x=x,
        y=alt.Y("share:Q", stack="zero", title="share of queries", scale=alt.Scale(domain=[0, 1.02]),
                axis=alt.Axis(format="%")),
        color=alt.Color("series:N", sort=order, title=None,
                        scale=alt.Scale(domain=order, range=list(OUTCOME_COLOURS.values()))),
        order=alt.Order("position:Q"), tooltip=_tooltip("share", "outcome"))
    # answer@5 is the bottom of each stack, so its interval sits on the same axis as drawn.
    answered = base.transform_filter("datum.series === 'answer@5' && isValid(datum.low)").mark_rule(
        color="#1f2933").encode(x=x, y="low:Q", y2="high:Q", tooltip=_tooltip("share", "outcome"))
    return alt.layer(bars, answered).properties(title="Lexical probe: where the evidence ends up (table b)",
                                                height=HEIGHT)
