"""The retriever choice of the pages that rank chunks (Compare, Budget sweep, Import, Orphan
Test, Fixes), kept in the URL, and what a paid one will send, said before it is sent. Not a
page. Which retrievers a link may choose, and what the server may spend, are the server's
(``inspector.views.retrievers``, ``inspector.retrieval.spending``)."""

from __future__ import annotations

from contextlib import contextmanager

import streamlit as st

from app_pages.parts.access import audit, refused
from app_pages.parts.state import keep, state, update
from inspector.access import Action
from inspector.errors import EmbeddingServiceError, RerankServiceError, RetrieverError, SpendRefused
from inspector.retrieval import installed, parse_retriever
from inspector.views import checked_retriever, embedding_estimate, rerank_estimate, retriever_choices, texts_estimate
from inspector.views import markdown_escape as md

CONFIRMED = "spend_confirmed"


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
def ranking(retriever: str, ctx=None, specs=()):
    """Around a computation that ranks with ``retriever``: what a paid embedder will be sent for
    ``specs`` (the sidebar's splitter by default) said first, and asked for when it is more than
    the server's threshold; a spinner while a dense model embeds; a clear message (never a
    traceback) when the model or its server fails, or the server's allowance is spent."""
    try:
        if ctx is not None:
            say_what_it_sends(retriever, ctx, specs)
        if retriever == "bm25":
            yield
        else:
            with st.spinner(f"Ranking with {_label(retriever)} (chunks are embedded once, then kept)…"):
                yield
    except (RetrieverError, EmbeddingServiceError, RerankServiceError, SpendRefused) as exc:
        st.error(md(f"Could not rank with {_label(retriever)}: {exc}"))
        st.stop()


def say_what_it_sends(retriever: str, ctx, specs) -> None:
    """Say what ranking ``specs`` with ``retriever`` will send to a paid embedder; stop the page
    when it cannot be sent or waits for a click."""
    from app_pages.parts.context import session_id

    for estimate in (embedding_estimate(ctx.workspace, parse_retriever(retriever).base,
                                        [str(s) for s in specs] or [str(ctx.spec)], ctx.launch.spend, installed(),
                                        session_id()),
                     rerank_estimate(ctx.workspace, retriever, ctx.launch.spend, installed(), session_id())):
        if estimate is not None:
            _said(estimate, ctx)


def say_what_asking_sends(retriever: str, ctx, texts) -> None:
    """Say what embedding ``texts`` (questions a store is asked with) will send; stop the page when
    it cannot be sent or waits for a click."""
    from app_pages.parts.context import session_id

    estimate = texts_estimate(ctx.workspace, retriever, texts, ctx.launch.spend, installed(), session_id())
    if estimate is not None:
        _said(estimate, ctx, "_asking")


def _said(estimate, ctx, which: str = "") -> None:
    st.caption(md(estimate.summary()))
    refusal = estimate.refusal or (refused(ctx, Action.SPEND) if estimate.texts else None)
    if refusal:
        st.error(md(f"Nothing was sent: {refusal.rstrip('.')}."))
        st.stop()
    which = which or ("_rerank" if estimate.questions else "")  # each kind of run is confirmed apart
    if estimate.over_threshold and st.session_state.get(CONFIRMED + which) != estimate.key:
        st.warning(md(f"This run is above the {ctx.launch.spend.confirm_above} this server sends without asking."))
        if not st.button(f"Send {'up to ' if which else ''}{estimate.texts:,} texts to {estimate.model}",
                         key="confirm_spend" + which):
            st.stop()
        st.session_state[CONFIRMED + which] = estimate.key
    if estimate.texts:
        audit(ctx, "paid run", once=estimate.key, model=estimate.model, requests=estimate.requests,
              texts=estimate.texts, tokens=estimate.tokens,
              dollars=round(estimate.dollars, 4) if estimate.dollars is not None else "no price set")
