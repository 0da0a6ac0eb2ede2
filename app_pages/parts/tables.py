"""Tables as every page draws them. Not a page."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from inspector.csv_cells import frame_csv
from inspector.views import MAX_TABLE_ROWS
from inspector.views import markdown_escape as md

#: What a cell without a value shows (Streamlit's default is the word "None").
MISSING = "–"


def data_table(data, *, key: str | None = None, column_config: dict | None = None,
               notes: pd.DataFrame | None = None, **options):
    """``data`` as wide as the page, a missing value as a dash, and its first column (what the
    row is) pinned, so a table wider than the page keeps its rows named when it scrolls sideways.
    Each ``NAME 95%`` column says on hover what it holds. With ``notes`` (a sentence per cell,
    ``views.interval_notes``) a cell can be clicked, and its sentence is shown under the table:
    Streamlit's tables show no tooltip of a cell's own."""
    columns = list(data.columns) if isinstance(data, pd.DataFrame) else list(data[0]) if data else []
    config = dict(column_config or {})
    if columns and columns[0] not in config:
        config[columns[0]] = st.column_config.Column(columns[0], pinned=True)
    for column in columns:
        if column.endswith(" 95%") and column not in config:
            rate = (config.get(column[:-4]) or {}).get("label") or column[:-4]  # as the rate's header says
            config[column] = st.column_config.TextColumn(
                f"{rate} 95%", help=f"The 95% interval of *{rate}* in percent, and how many items it counts.")
    if notes is None:
        return st.dataframe(data, hide_index=True, width="stretch", placeholder=MISSING, column_config=config,
                            key=key, **options)
    event = st.dataframe(data, hide_index=True, width="stretch", placeholder=MISSING, column_config=config,
                         key=key, on_select="rerun", selection_mode="single-cell", **options)
    st.caption(md(cell_note(notes, event.selection.cells)))
    return event


def cell_note(notes: pd.DataFrame, cells) -> str:
    """The sentence of the clicked cell, or how to get one."""
    for row, column in cells or ():
        if column in notes.columns and 0 <= row < len(notes) and notes.iloc[row][column]:
            return notes.iloc[row][column]
    return "Click a rate or its interval for its count and how the interval was drawn."


class SoFar:
    """The rows a page has measured so far, drawn in one place while it measures the others;
    drawn only once a row had to be measured (rows read from the cache come at once), and gone
    when ``clear`` is called with every row in."""

    #: A row taking longer than this was measured, not read from the cache.
    MEASURED_AFTER = 0.2

    def __init__(self, noun: str, total: int, columns: Sequence[str], percent: Sequence[str] = ()) -> None:
        self.noun, self.total, self.columns, self.percent = noun, total, tuple(columns), tuple(percent)
        self.place = st.empty()
        self.rows: list[pd.DataFrame] = []
        self.waited = False
        self._started = time.perf_counter()

    def add(self, row: pd.DataFrame) -> None:
        """``row`` just came; drawn with the others when more are to come."""
        self.rows.append(row)
        self.waited = self.waited or time.perf_counter() - self._started > self.MEASURED_AFTER
        if self.waited and len(self.rows) < self.total:
            so_far = pd.concat(self.rows, ignore_index=True)
            with self.place.container():
                st.caption(f"Measured so far: {len(self.rows)} of {self.total} {self.noun}.")
                data_table(so_far[[c for c in self.columns if c in so_far]],
                           column_config={c: st.column_config.NumberColumn(c, format="percent") for c in self.percent})
        self._started = time.perf_counter()

    def clear(self) -> list[pd.DataFrame]:
        """Every row, in order; the partial table gone."""
        self.place.empty()
        return self.rows


def table(rows, *, key: str | None = None, name: str = "rows", **options) -> None:
    """``rows`` (a list of dicts or a DataFrame) as a table of at most ``MAX_TABLE_ROWS`` rows;
    all of them in a CSV download when there are more."""
    data = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    data_table(data.head(MAX_TABLE_ROWS), key=key, **options)
    if len(data) > MAX_TABLE_ROWS:
        st.caption(f"The first {MAX_TABLE_ROWS:,} of {len(data):,} {name}; the download holds them all.")
        st.download_button(f"Download all {len(data):,} {name} (CSV)", frame_csv(data),
                           f"{key or name}.csv", "text/csv", key=f"{key or name}_csv", on_click="ignore")
