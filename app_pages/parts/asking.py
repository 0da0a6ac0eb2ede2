"""A question typed at one or two splitters: the box, and the chunks each hands back with where
the answer lands. The Ask page and the Document page draw it; its question and quote ride in the
link (``ask``, ``quote``), so a shared link asks the same thing. Not a page."""

from __future__ import annotations

import streamlit as st

from app_pages.parts import offload
from app_pages.parts.retriever import ranking
from app_pages.parts.state import keep
from inspector.errors import ChunkSetError, QuestionsError, SpecError
from inspector.measure import MAX_K, find_quote, question_problem
from inspector.views import (
    answer_document,
    answer_document_said,
    asked_cards_html,
    asked_on_document_html,
    landing_line,
    style_html,
)
from inspector.views import markdown_escape as md

#: The link's keys this part owns.
QUESTION, QUOTE = "ask", "quote"


@st.cache_data(max_entries=256, show_spinner=False)
def _asked(fingerprint: str, mode: str, spec: str, question: str, retriever: str, k: int, quote, _ctx):
    return offload.run(_ctx, "ask", spec, question, retriever, k, quote)


def _from_link(key: str, widget: str) -> None:
    keep(widget, st.query_params.get(key, ""))


def _to_link(key: str, value: str) -> None:
    if value:
        if st.query_params.get(key) != value:
            st.query_params[key] = value
    elif key in st.query_params:
        del st.query_params[key]


def question_box(key: str) -> tuple[str, str, int]:
    """The question, the passage that answers (empty: none) and how many chunks to bring back,
    as typed (their first values from the link)."""
    _from_link(QUESTION, f"{key}_question")
    _from_link(QUOTE, f"{key}_quote")
    question = st.text_input("Question", key=f"{key}_question", persist_state="session",
                             placeholder="How many public holidays does the Singapore office observe in 2026?",
                             help="Asked as a user would type it; each splitter's chunks are ranked for it.")
    cols = st.columns([4, 1])
    quote = cols[0].text_input("The passage that answers (optional)", key=f"{key}_quote", persist_state="session",
                               help="Copied from the document: each splitter says whether a retrieved chunk holds "
                                    "it whole, the chunks hold it cut in pieces, or it is missing from them.")
    k = cols[1].number_input("Chunks", min_value=1, max_value=MAX_K, value=5, step=1, key=f"{key}_k",
                             help="How many chunks each splitter hands back (the top k).")
    _to_link(QUESTION, question.strip())
    _to_link(QUOTE, quote.strip())
    return question.strip(), quote.strip(), int(k)


def answers(ctx, lanes: list[tuple[str, object]], question: str, quote_text: str, k: int, retriever: str) -> None:
    """Each lane's (``(label, spec)``) top ``k`` chunks for ``question``, side by side, with where
    ``quote_text`` lands in each."""
    if not question:
        st.caption("Type a question to see the chunks each splitter hands back for it.")
        return
    problem = question_problem(question)
    if problem:
        st.error(md(f"This question cannot be asked: {problem}."))
        return
    quote = None
    if quote_text:
        try:
            quote = find_quote(ctx.workspace.documents, quote_text)
        except QuestionsError as exc:
            st.warning(md(f"{exc}; the chunks are shown without it."))
    with ranking(retriever, ctx, [spec for _, spec in lanes]):
        found = []
        for label, spec in lanes:
            try:
                found.append((label, _asked(ctx.workspace.fingerprint, ctx.workspace.mode, str(spec), question,
                                            retriever, k, quote, ctx)))
            except (SpecError, ChunkSetError, QuestionsError) as exc:
                found.append((label, str(exc)))
    documents = {d.id: d for d in ctx.workspace.documents}
    st.html(style_html())
    for column, (label, asked) in zip(st.columns(len(found)), found):
        with column:
            st.markdown(f"**{md(label)}**")
            if isinstance(asked, str):
                st.error(md(f"Not asked: {asked}"))
                continue
            alert, sentence = landing_line(asked)
            getattr(st, alert)(md(sentence))
            if not asked.chunks:
                st.caption("No chunk holds a word of the question.")
                continue
            on_document, cards = st.tabs(["On the document", "Chunk by chunk"])
            with on_document:
                doc_id = answer_document(asked, quote)
                st.caption(md(answer_document_said(asked, quote)))
                st.html(asked_on_document_html(asked, documents[doc_id], quote))
            with cards:
                st.html(asked_cards_html(asked, documents, quote))
