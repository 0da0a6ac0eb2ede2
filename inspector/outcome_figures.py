"""Figures of outcomes the app's pages chart, built without Streamlit: golden questions by outcome
(the Import page) and the Orphan Test's orphan rate across rounds. Pages only lay these out.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from .agreement import TrendPoint

#: Colours of a golden question's outcomes: hit, and the three kinds of miss.
GOLDEN_OUTCOME_COLOURS = {"hit": "#2e7d32", "cut": "#c62828", "rank-miss": "#9e9e9e", "uncovered": "#f9a825"}


def golden_outcome_figure(outcomes: pd.DataFrame) -> go.Figure:
    """Golden questions by outcome: one stacked bar per chunking and context budget.

    ``outcomes`` is the frame of ``import_view.recall_rows``: a "chunks from" and a
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
    """One bar per round, in the order given (``agreement.trend``: oldest first): its orphan rate,
    labelled with its orphans over its complete answers. Pass only points with answers."""
    figure = go.Figure(go.Bar(x=[f"{n}. {p.label}" for n, p in enumerate(points, 1)],
                              y=[p.orphan_rate for p in points], width=[0.5] * len(points),
                              text=[f"{p.orphans}/{p.judged}" for p in points], textposition="outside",
                              marker_color="#b3261e"))
    figure.update_layout(yaxis_title="orphan rate (all reviewers)", yaxis_tickformat=".0%",
                         yaxis_range=[0, 1.1], height=320, margin=dict(t=20, b=40))
    return figure
