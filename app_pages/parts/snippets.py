"""The "Use this splitter in your pipeline" expander of the Document, Compare and Chunk sizes
pages: the snippets ``inspector.reports.snippets`` writes for the sidebar's splitter. Not a page."""

from __future__ import annotations

import streamlit as st

from inspector.reports import check_floors, snippets_for
from inspector.views import PASTE, SAMPLE, UPLOAD


def snippet_expander(ctx, state) -> None:
    """The sidebar splitter's code for Python, LangChain, LlamaIndex, Chonkie and the command line, each
    with Streamlit's copy button; ``check``'s floors are this corpus's survival now."""
    corpus = ("sample_corpus" if state.corpus == SAMPLE else "YOUR_FOLDER" if state.corpus in (UPLOAD, PASTE)
              else state.corpus)
    floors = check_floors(ctx.workspace.summarize(ctx.spec))
    with st.expander("Use this splitter in your pipeline"):
        for snippet in snippets_for(ctx.spec, corpus, mode=state.mode, floors=floors):
            st.caption(snippet.title)
            st.code(snippet.code, language=snippet.language)
