"""Streamlit glue every page shares, in one place to import from: this run's context, the error
display, and (re-exported) the settings, units and chunk-set helpers the pages use.

Not a page (``st.navigation`` lists the pages explicitly). Settings live in one ``AppState``
kept in ``st.session_state["app_state"]`` and mirrored into the URL (``parts.state``); the sidebar
that settles each run's ``Context`` is ``sidebar.panel``; length units and uploaded tokenizers are
``parts.units``; imported chunk sets ``parts.chunk_sets``. Computation stays in ``inspector``.
"""

from __future__ import annotations

import streamlit as st

from app_pages.parts.chunk_sets import chunk_set_store, chunk_sets, spec_title
from app_pages.parts.context import Context
from app_pages.parts.state import HELD, ORPHAN_PAGE, STATE, held_round, keep, publish, state, update
from app_pages.parts.tables import table
from app_pages.parts.units import UNIT_LABELS, engine_spec, engine_unit, length_for, unit_label, uploaded_units
from app_pages.sidebar.panel import sidebar
from inspector.views import markdown_escape as md

__all__ = ["HELD", "ORPHAN_PAGE", "STATE", "UNIT_LABELS", "Context", "chunk_set_store", "chunk_sets", "context",
           "engine_spec", "engine_unit", "held_round", "keep", "length_for", "publish", "ready", "show_problems",
           "sidebar", "spec_title", "state", "unit_label", "update", "uploaded_units"]


def context() -> Context:
    """This run's context, set by app.py before the page runs."""
    return st.session_state["_context"]


def ready() -> Context:
    """This run's context for a page that measures the corpus: its problems shown, and the page
    stopped (the settings still mirrored into the URL) when it cannot go on."""
    ctx = context()
    if not show_problems(ctx):
        publish()
        st.stop()
    return ctx


def show_problems(ctx: Context) -> bool:
    """Show link warnings, skipped files and the blocking problem; True when the page can go on."""
    for problem in ctx.launch.problems:
        st.warning(md(problem))
    for problem in st.session_state.get("url_problems", []):
        st.warning(md(problem))
    if ctx.corpus is not None and ctx.corpus.skipped:
        skipped = ctx.corpus.skipped
        with st.expander(f"{len(skipped)} file{'s' * (len(skipped) != 1)} skipped"):
            table([{"file": s.path, "reason": s.reason} for s in skipped], key="skipped_files", name="files")
    if ctx.problem:
        st.error(md(ctx.problem))
        return False
    if ctx.waiting:
        st.info(md(ctx.waiting))
        return False
    return ctx.corpus is not None and ctx.workspace is not None and ctx.spec is not None
