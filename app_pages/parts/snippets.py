"""The "Use this splitter in your pipeline" expander of the Document, Compare and Chunk sizes
pages: the snippets ``inspector.reports.snippets`` writes for the sidebar's splitter. Not a page."""

from __future__ import annotations

import streamlit as st

from inspector.reports import check_floors, snippets_for
from inspector.views import PASTE, SAMPLE, UPLOAD

#: The expander's key: its state says whether it is open.
SECTION = "snippets"


def snippet_expander(ctx, state) -> None:
    """The sidebar splitter's code for Python, LangChain, LlamaIndex, Chonkie and the command line, each
    with Streamlit's copy button; ``check``'s floors are this corpus's survival now.

    Drawn when opened: closed, it computes nothing and sends no code block (whose highlighter a new
    tab would load before the page's charts). Open, a splitter that embeds or asks a model to split
    (minutes over a corpus) measures the floors only when the reader asks."""
    corpus = ("sample_corpus" if state.corpus == SAMPLE else "YOUR_FOLDER" if state.corpus in (UPLOAD, PASTE)
              else state.corpus)
    section = st.expander("Use this splitter in your pipeline", key=SECTION, on_change="rerun")
    if not section.open:
        return
    with section:
        measure = not ctx.spec.splits_by_meaning or st.toggle(
            "Write check's floors from this corpus", key="snippet_floors",
            help="Splits the whole corpus with this splitter (it embeds or asks a model, so it takes a while) "
                 "to put its survival now in the check command's --min floors.")
        floors = check_floors(ctx.workspace.summarize(ctx.spec)) if measure else None
        for snippet in snippets_for(ctx.spec, corpus, mode=state.mode, floors=floors):
            st.caption(snippet.title)
            st.code(snippet.code, language=snippet.language)
