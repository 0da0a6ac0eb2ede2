"""The plotly figures the app's pages chart, built without Streamlit from the frames of
``frames`` and ``imports``: the budget sweep, chunk sizes against the embedder's cap, golden
questions by outcome (the Import page) and the Orphan Test's orphan rate across rounds (Compare's
two charts are Vega-Lite: ``charts``). Pages only lay these out.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from ..model import ATOM_KINDS, ATOM_LABELS
from ..review.agreement import TrendPoint

#: Colours of the probe's three outcomes (the overlay's red for cut).
OUTCOME_COLOURS = {"answer@5": "#2e7d32", "cut": "#c62828", "rank miss": "#9e9e9e"}

#: Colours of a golden question's outcomes: hit, and the three kinds of miss.
#: One colour per atom kind, none of them the red that means "cut" or the green that means
#: "answered" everywhere else in the app.
ATOM_COLOURS = {"code": "#1f5fa8", "table": "#6a51a3", "row": "#1b9aaa", "num": "#8c6d31", "cite": "#5f6b7a"}
GOLDEN_OUTCOME_COLOURS = {"hit": "#2e7d32", "cut": "#c62828", "rank-miss": "#9e9e9e", "uncovered": "#f9a825"}


def golden_outcome_figure(outcomes: pd.DataFrame) -> go.Figure:
    """Golden questions by outcome: one stacked bar per chunking and context budget.

    ``outcomes`` is the frame of ``views.imports.recall_rows``: a "chunks from" and a
    "context budget" column, and a column of question counts per outcome.
    """
    figure = go.Figure()
    x = [list(outcomes["chunks from"]), [f"{b:,} tokens" for b in outcomes["context budget"]]]
    for outcome, colour in GOLDEN_OUTCOME_COLOURS.items():
        figure.add_bar(name=outcome, x=x, y=outcomes[outcome], marker_color=colour,
                       hovertemplate="%{y} questions<extra>" + outcome + "</extra>")
    figure.update_layout(barmode="stack", title="Golden questions by outcome", yaxis_title="questions",
                         height=380, margin=dict(t=50, b=40), legend_title_text="")
    return figure


def orphan_trend_figure(points: Sequence[TrendPoint]) -> go.Figure:
    """One bar per round, in the order given (``agreement.trend``: oldest first): the share of
    its answers that make a chunk an orphan, every reviewer's answers pooled, labelled ``5 of 20
    answers`` (answers, not chunks: a chunk read by two reviewers counts twice), with Wilson's 95% interval as an error
    bar (answers taken as independent). Pass only points with answers."""
    from ..confidence import wilson

    bounds = [wilson(p.orphans, p.judged) for p in points]
    rates = [p.orphan_rate for p in points]
    bars = dict(type="data", symmetric=False, thickness=1.2, width=3,
                array=[max(0.0, high - rate) for rate, (_, high) in zip(rates, bounds)],
                arrayminus=[max(0.0, rate - low) for rate, (low, _) in zip(rates, bounds)])
    figure = go.Figure(go.Bar(x=[f"{n}. {p.label}" for n, p in enumerate(points, 1)], y=rates,
                              width=[0.5] * len(points), text=[f"{p.orphans} of {p.judged} answers" for p in points],
                              textposition="outside", marker_color="#b3261e", error_y=bars, customdata=bounds,
                              hovertemplate="%{x}: %{y:.1%} [%{customdata[0]:.1%}, %{customdata[1]:.1%}]"
                                            "<extra></extra>"))
    figure.update_layout(yaxis_title="orphan answers (all reviewers)", yaxis_tickformat=".0%",
                         yaxis_range=[0, 1.1], height=320, margin=dict(t=20, b=40))
    return figure


def _layout(fig: go.Figure, title: str, y_title: str, *, percent: bool = False) -> go.Figure:
    fig.update_layout(title=title, yaxis_title=y_title, legend_title_text="", margin=dict(t=50, b=40),
                      height=380)
    if percent:
        fig.update_yaxes(tickformat=".0%", range=[0, 1.02])
    return fig


def _error_bars(frame: pd.DataFrame, column: str) -> dict | None:
    """Plotly's asymmetric error bars from ``column``'s 95% interval (``NAME low``/``NAME high``)."""
    if f"{column} low" not in frame:
        return None
    values, low, high = (frame[c].astype(float).fillna(0.0) for c in (column, f"{column} low", f"{column} high"))
    return dict(type="data", symmetric=False, array=(high - values).clip(lower=0).tolist(),
                arrayminus=(values - low).clip(lower=0).tolist(), thickness=1.2, width=3)


def _interval_hover(frame: pd.DataFrame, column: str) -> tuple[list | None, str]:
    """Custom data and a hover line with ``column``'s 95% interval, when the frame has it."""
    if f"{column} low" not in frame:
        return None, ""
    return frame[[f"{column} low", f"{column} high"]].astype(float).values.tolist(), \
        " [%{customdata[0]:.1%}, %{customdata[1]:.1%}]"


def sweep_survival_figure(frame: pd.DataFrame) -> go.Figure:
    """Lines: survival of each atom kind against the budget."""
    fig = go.Figure()
    for kind in ATOM_KINDS:
        data, bounds = _interval_hover(frame, kind)
        fig.add_scatter(name=ATOM_LABELS[kind] + "s", x=frame["budget"], y=frame[kind], mode="lines+markers",
                        line_color=ATOM_COLOURS[kind], error_y=_error_bars(frame, kind), customdata=data,
                        hovertemplate="budget %{x}: %{y:.1%}" + bounds + "<extra>" + ATOM_LABELS[kind] + "s</extra>")
    fig.update_xaxes(title="budget")
    return _layout(fig, "Atoms kept whole, by budget (every atom counted)", "survival", percent=True)


def sweep_context_figure(frame: pd.DataFrame) -> go.Figure:
    """Line: tokens of top-5 context a query pulls in, against the budget."""
    fig = go.Figure()
    fig.add_scatter(name="context tokens", x=frame["budget"], y=frame["ctx tokens"], mode="lines+markers",
                    hovertemplate="budget %{x}: %{y:.0f} tokens<extra></extra>")
    fig.update_xaxes(title="budget")
    fig.update_yaxes(rangemode="tozero")
    return _layout(fig, "Context per query (top 5 chunks), by budget", "tokens")


def size_histogram(sizes: pd.DataFrame, cap: int, unit: str) -> go.Figure:
    """Histogram of embedded chunk sizes with the embedder's cap as a red line."""
    fig = go.Figure()
    fig.add_histogram(x=sizes["tokens"], nbinsx=60, name="chunks", marker_color="#1f77b4",
                      hovertemplate="%{x} " + unit + ": %{y} chunks<extra></extra>")
    fig.add_vline(x=cap, line_color="#c62828", line_width=2, line_dash="dash",
                  annotation_text=f"cap {cap}", annotation_position="top right")
    fig.update_xaxes(title=f"chunk size ({unit}, prefix included)")
    return _layout(fig, "Chunk sizes as the embedder counts them", "chunks")
