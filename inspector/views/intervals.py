"""A rate's 95% interval and its denominator as the app's tables carry and show them: three
columns beside each rate in a frame (``NAME low``, ``NAME high``, ``NAME of``), one text column
on the page (``[94.3, 98.9] of 200``), and one sentence per cell for a reader who clicks it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

#: What a frame keeps of each rate's interval: its bounds and how many items it counts.
BOUNDS: tuple[str, ...] = ("low", "high", "of")


def bound_columns(columns) -> list[str]:
    """The columns holding the 95% interval of each of ``columns``: ``NAME low``, ``NAME high``
    and ``NAME of`` (the denominator)."""
    return [f"{column} {end}" for column in columns for end in BOUNDS]


def is_bound(column: str) -> bool:
    """Whether ``column`` is one of ``bound_columns``' (``NAME low``, ``NAME high``, ``NAME of``)."""
    return column.endswith(tuple(f" {end}" for end in BOUNDS))


def bound_values(intervals: Mapping) -> dict:
    """The ``bound_columns`` of ``intervals`` (column -> the report's interval dict, or None) as
    one row's values."""
    out = {}
    for column, interval in intervals.items():
        for end in BOUNDS:
            out[f"{column} {end}"] = interval.get(end) if interval else None
    return out


def interval_text(low, high, of=None) -> str:
    """``[94.3, 98.9] of 200`` (percent), or empty without an interval."""
    if low is None or pd.isna(low):
        return ""
    counted = f" of {int(of):,}" if of is not None and pd.notna(of) else ""
    return f"[{100 * low:.1f}, {100 * high:.1f}]{counted}"


def with_intervals(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` for display: after each of ``columns`` (rates), its 95% interval and
    denominator as text (``NAME 95%``: ``[94.3, 98.9] of 200``), the bound columns left out."""
    shown = frame.drop(columns=[c for c in bound_columns(columns) if c in frame], errors="ignore")
    for column in reversed(list(columns)):
        if f"{column} low" not in frame:
            continue
        counts = frame[f"{column} of"] if f"{column} of" in frame else [None] * len(frame)
        texts = [interval_text(low, high, of)
                 for low, high, of in zip(frame[f"{column} low"], frame[f"{column} high"], counts)]
        shown.insert(shown.columns.get_loc(column) + 1, f"{column} 95%", texts)
    return shown


def interval_notes(frame: pd.DataFrame, columns: Sequence[str], *, label: str,
                   counted: str | Mapping[str, str], method: str,
                   names: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One sentence per cell of ``with_intervals(frame, columns)``: on a rate and on its ``95%``
    cell, the row (named by its ``label`` column), the rate, how many items it is of (``counted``
    names them, or names them per column), its interval and how the interval was drawn
    (``method``); empty elsewhere. A rate is called by its column's name, or as ``names`` says."""
    shown = with_intervals(frame, columns)
    cells = {column: [""] * len(shown) for column in shown.columns}
    for column in columns:
        if column not in frame or f"{column} low" not in frame:
            continue
        counts = frame[f"{column} of"] if f"{column} of" in frame else [None] * len(frame)
        for position, (name, value, low, high, of) in enumerate(zip(
                frame[label], frame[column], frame[f"{column} low"], frame[f"{column} high"], counts)):
            if value is None or pd.isna(value):
                continue
            share = f"{100 * value:.1f}%"
            if of is not None and pd.notna(of):
                noun = counted if isinstance(counted, str) else counted.get(column, "items")
                share += f" of {int(of):,} {noun} ({round(value * of):,})"
            bounds = (f"; 95% interval {100 * low:.1f}–{100 * high:.1f}% ({method})" if pd.notna(low)
                      else "; no interval (nothing counted)")
            sentence = f"{name}, {(names or {}).get(column, column)}: {share}{bounds}."
            cells[column][position] = sentence
            if f"{column} 95%" in cells:
                cells[f"{column} 95%"][position] = sentence
    return pd.DataFrame(cells, index=shown.index, columns=shown.columns)
