"""The retriever choice of the pages that rank chunks (Compare, Budget sweep, Import, Orphan
Test), kept in the URL. Not a page. Which retrievers a link may choose is the server's
(``inspector.views.retrievers``)."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from app_pages._state import keep, state, update
from inspector.errors import EmbeddingServiceError, RetrieverError
from inspector.retrieval import parse_retriever
from inspector.views import checked_retriever, retriever_choices
from inspector.views import markdown_escape as md


def retriever_picker(container=st) -> str:
    """The chosen retriever's spec string (``bm25`` until one is chosen)."""
    current = state().retriever
    choices = retriever_choices()
    if current not in choices:
        choices.append(current)
    keep("retriever", current)
    if st.session_state["retriever"] not in choices:
        choices.append(st.session_state["retriever"])
    picked = container.selectbox(
        "Retriever", choices, key="retriever", persist_state="session", accept_new_options=True,
        format_func=lambda text: _label(text),
        help="What ranks the chunks for the probe and golden questions: BM25 (the article's), the dense "
             "model bundled with the app, or a hybrid of both (reciprocal rank fusion, k = 60). Type "
             "dense:openai:MODEL for the embeddings server this app was started with.")
    try:
        spec = checked_retriever(picked)
    except RetrieverError as exc:
        container.error(md(f"Retriever {picked!r} not used: {exc}. Ranking with {current}."))
        return current
    update(retriever=str(spec))
    return str(spec)


def _label(text: str) -> str:
    try:
        return parse_retriever(text).label
    except RetrieverError:
        return text


@contextmanager
def ranking(retriever: str):
    """Around a computation that ranks with ``retriever``: a spinner while a dense model embeds,
    and a clear message (never a traceback) when the model or its server fails."""
    try:
        if retriever == "bm25":
            yield
        else:
            with st.spinner(f"Ranking with {_label(retriever)} (chunks are embedded once, then kept)…"):
                yield
    except (RetrieverError, EmbeddingServiceError) as exc:
        st.error(md(f"Could not rank with {_label(retriever)}: {exc}"))
        st.stop()
