"""The window of a long document a page draws, and the widgets that move it. Not a page.

A document whose overlay would be too large for a browser (``inspector.views.window``) is
drawn one part at a time: a part picker, and a box that jumps to the part holding a cut atom.
"""

from __future__ import annotations

import streamlit as st

from inspector.model import Span
from inspector.views import cut_window, windows


def _jump(key: str, parts: list[Span], cuts) -> None:
    """Callback of the jump box: show the part holding the chosen cut atom."""
    number = st.session_state.get(f"{key}_cut")
    if number:
        st.session_state[f"{key}_part"] = cut_window(cuts[int(number) - 1], parts) + 1


def pick_window(key: str, length: int, starts: list[int], cuts, *, open_at=None) -> Span | None:
    """The stretch of the text to draw (None: all of it), with the widgets choosing it; with
    ``open_at`` (a cut atom), the part holding it."""
    parts = windows(length, starts)
    if len(parts) == 1:
        return None
    part_key = f"{key}_part"
    if open_at is not None:
        st.session_state[part_key] = cut_window(open_at, parts) + 1
    if not 1 <= st.session_state.get(part_key, 1) <= len(parts):
        st.session_state[part_key] = 1  # another document or splitter: fewer parts
    left, right = st.columns([2, 1])
    part = left.number_input(f"Part of the document (1–{len(parts)})", min_value=1, max_value=len(parts), step=1,
                             key=part_key, help="A document this long, or cut into this many chunks, is drawn one "
                                                "part at a time so the page stays fast.")
    if cuts:
        right.number_input(f"Go to cut atom (1–{len(cuts)})", min_value=1, max_value=len(cuts), step=1, value=None,
                           key=f"{key}_cut", on_change=_jump, args=(key, parts, cuts),
                           help="Shows the part of the document holding that red atom.")
    start, end = parts[int(part) - 1]
    st.caption(f"Part {int(part)} of {len(parts)}: characters {start + 1:,}–{end:,} of {length:,}.")
    return (start, end)
