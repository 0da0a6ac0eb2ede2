"""Tables that stay light however many rows they have. Not a page."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.views import MAX_TABLE_ROWS


def table(rows, *, key: str | None = None, name: str = "rows", **options) -> None:
    """``rows`` (a list of dicts or a DataFrame) as a table of at most ``MAX_TABLE_ROWS`` rows;
    all of them in a CSV download when there are more."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    st.dataframe(frame.head(MAX_TABLE_ROWS), hide_index=True, key=key, **options)
    if len(frame) > MAX_TABLE_ROWS:
        st.caption(f"The first {MAX_TABLE_ROWS:,} of {len(frame):,} {name}; the download holds them all.")
        st.download_button(f"Download all {len(frame):,} {name} (CSV)", frame.to_csv(index=False),
                           f"{key or name}.csv", "text/csv", key=f"{key or name}_csv", on_click="ignore")
