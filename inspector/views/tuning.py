"""What the Tune page shows, without Streamlit: the search's table, its Pareto chart, and the
goal and space built from the page's choices."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from ..tune.result import TuneResult
from ..tune.space import DEFAULT_KINDS, Space

#: Columns of ``tune_frame``.
TUNE_COLUMNS: tuple[str, ...] = ("rank", "splitter", "spec", "score", "score 95%", "questions", "chunks", "embedded",
                                 "duplication", "over cap", "verdict")
#: Columns ``tune_frame`` adds with the user's own questions: the share of them whose five chunks
#: hold no atom cut in two, and the tokens those five chunks bring.
ASKED_COLUMNS: tuple[str, ...] = ("whole@5", "whole@5 95%", "your ctx tokens")


def page_space(kinds: Sequence[str], budgets: Sequence[int], unit: str, overlap: bool, path: bool) -> Space:
    """The Tune page's space: the kinds and budgets chosen, in the sidebar's unit; 15% overlap
    and a heading path tried when asked."""
    return Space(kinds=tuple(kinds) or DEFAULT_KINDS, budgets=tuple(budgets), unit=unit,
                 overlaps=(0.0, 0.15) if overlap else (0.0,), prefixes=("", "+path") if path else ("",))


def tune_frame(result: TuneResult) -> pd.DataFrame:
    """One row per configuration: ranked ones first (their rank and verdict), then those scored
    on the sample only, then those left out (the reason as the verdict); with the user's own
    questions, ``ASKED_COLUMNS`` too."""
    clear = bool(result.decision and result.decision.clear)
    winners = set(result.winners)
    rows = []
    for rank, c in enumerate(result.candidates, 1):
        ranked = c.score is not None and not c.sampled and not c.excluded
        verdict = c.excluded or ("sample only" if c.sampled else "best" if clear and c.label in winners else
                                 "tied for best" if c.label in winners else "below")
        if result.recommended is not None and c.spec == result.recommended:
            verdict += ", recommended"
        rows.append({"rank": rank if ranked else None, "splitter": c.label, "spec": str(c.spec),
                     "score": c.score.value if c.score else None,
                     "score 95%": f"[{100 * c.score.low:.1f}, {100 * c.score.high:.1f}]" if c.score else "",
                     "questions": c.score.count if c.score else None, "chunks": c.chunks, "embedded": c.embedded,
                     "duplication": round(c.duplication, 3), "over cap": c.over_cap, "verdict": verdict,
                     **({"whole@5": c.whole.value if c.whole else None,
                         "whole@5 95%": f"[{100 * c.whole.low:.1f}, {100 * c.whole.high:.1f}]" if c.whole else "",
                         "your ctx tokens": round(c.asked_tokens, 1) if c.whole else None} if result.asked else {})})
    return pd.DataFrame(rows, columns=list(TUNE_COLUMNS) + (list(ASKED_COLUMNS) if result.asked else []))


def tune_figure(result: TuneResult) -> go.Figure:
    """The objective against tokens embedded, one point per ranked configuration with its 95%
    interval; the Pareto front joined by a line, the recommended one ringed."""
    ranked = result.ranked
    figure = go.Figure()
    figure.add_scatter(
        x=[c.embedded for c in ranked], y=[c.score.value for c in ranked], mode="markers", name="configurations",
        marker=dict(size=9, color=["#1565c0" if c.front else "#90a4ae" for c in ranked]),
        error_y=dict(type="data", symmetric=False, array=[c.score.high - c.score.value for c in ranked],
                     arrayminus=[c.score.value - c.score.low for c in ranked], thickness=1, width=2),
        customdata=[[str(c.spec), c.score.low, c.score.high, c.chunks, c.duplication] for c in ranked],
        hovertemplate="%{customdata[0]}<br>" + result.objective + " %{y:.1%} [%{customdata[1]:.1%}, "
                      "%{customdata[2]:.1%}]<br>%{x:,} tokens embedded, %{customdata[3]:,} chunks, "
                      "duplication %{customdata[4]:.2f}<extra></extra>")
    front = sorted((c for c in ranked if c.front), key=lambda c: c.embedded)
    if front:
        figure.add_scatter(x=[c.embedded for c in front], y=[c.score.value for c in front], mode="lines",
                           name="Pareto front", line=dict(color="#1565c0", dash="dot"), hoverinfo="skip")
    chosen = [c for c in ranked if c.spec == result.recommended]
    if chosen:
        figure.add_scatter(x=[chosen[0].embedded], y=[chosen[0].score.value], mode="markers", name="recommended",
                           marker=dict(size=18, color="rgba(0,0,0,0)", line=dict(color="#c62828", width=2)),
                           hoverinfo="skip")
    figure.update_layout(title=f"{result.objective} against what the index costs", height=420,
                         margin=dict(t=50, b=40), legend_title_text="")
    figure.update_xaxes(title=f"tokens embedded ({result.unit})")
    figure.update_yaxes(title=result.objective, tickformat=".0%")
    return figure
