"""The Orphan Test's rounds drawn from the user's own questions. Not a page.

A question file (JSONL, CSV or plain text) is kept on the server by its id, so a round drawn from
what a retriever returns for those questions has a link colleagues can open. When the file also
says what the user's system retrieved, those very chunks can be reviewed instead: they are placed
on the corpus as an imported chunk set and become the sidebar's splitter.
"""

from __future__ import annotations

import streamlit as st

from app_pages.parts.access import upload_closed
from app_pages.parts.chunk_sets import keep_and_use, question_store
from inspector.errors import QuestionsError
from inspector.limits import MAX_GOLDEN_BYTES
from inspector.measure import ask_theirs
from inspector.retrieval import load_questions
from inspector.views import markdown_escape as md

CHOSEN, MESSAGE = "orphan_questions", "_orphan_questions_message"


def _uploaded(ctx) -> None:
    """Callback of the question-file uploader: keep the questions and choose them."""
    file = st.session_state.get("orphan_questions_upload")
    if file is None:
        return
    try:
        questions = load_questions(file.getvalue(), name=file.name)
    except QuestionsError as exc:
        st.session_state[MESSAGE] = ("error", f"{file.name} cannot be read: {exc}")
        return
    if not questions.items:
        reason = questions.problems[0].message if questions.problems else "the file is empty"
        st.session_state[MESSAGE] = ("error", f"No question could be read from {file.name}: {reason}")
        return
    try:
        question_store(ctx).put(questions)
    except OSError as exc:
        st.session_state[MESSAGE] = ("error", f"The questions cannot be kept on this server: {exc}")
        return
    st.session_state[CHOSEN] = questions.id
    st.session_state["_orphan_question_file"] = questions
    left_out = f"; {len(questions.problems)} lines left out" if questions.problems else ""
    st.session_state[MESSAGE] = ("success", f"{len(questions.items)} questions read from {file.name}{left_out}.")


def _review_theirs(questions) -> None:
    """Callback: the chunks the user's system retrieved become the sidebar's splitter."""
    ctx = st.session_state["_context"]
    _, placed = ask_theirs(ctx.workspace, questions)
    if not placed.imported:
        st.session_state[MESSAGE] = ("error", "None of the retrieved chunks could be placed on this corpus: "
                                              f"{placed.summary()}")
        return
    keep_and_use(placed)
    st.session_state["orphan_source"] = "sample"
    st.session_state[MESSAGE] = ("success", f"Reviewing the chunks your system retrieved: {placed.summary()}.")


def show_message() -> None:
    """What the last upload or button did (shown whatever the round's source now is)."""
    found = st.session_state.pop(MESSAGE, None)
    if found:
        (st.error if found[0] == "error" else st.success)(md(found[1]))


def question_set_picker(*, theirs: bool = True) -> str:
    """The uploader and what it holds; the chosen question set's id ('' when none is). The set
    is shared by the pages that ask your questions (the Orphan Test, Tune); ``theirs`` offers to
    review the chunks the file says your system retrieved."""
    ctx = st.session_state["_context"]
    closed = upload_closed(ctx)
    st.file_uploader("Your questions or a golden set (JSONL, CSV or one per line)",
                     type=["jsonl", "ndjson", "json", "csv", "txt"], disabled=bool(closed),
                     key="orphan_questions_upload", on_change=_uploaded, args=(ctx,),
                     max_upload_size=MAX_GOLDEN_BYTES // 1_000_000,
                     help="The questions your users ask, one per line, or a golden set (Chroma's CSV or this "
                          "tool's JSONL: its questions are asked); with a 'retrieved' list of what your system "
                          "returned for each, you can review exactly those chunks.")
    questions = st.session_state.get("_orphan_question_file")
    if theirs and questions is not None and questions.id == st.session_state.get(CHOSEN) and questions.has_retrieved:
        st.button("Review the chunks your system retrieved instead", key="orphan_theirs", on_click=_review_theirs,
                  args=(questions,), help="Places the retrieved chunks on the corpus (every one that cannot be "
                                          "placed exactly is reported) and makes them the sidebar's splitter.")
    return st.session_state.get(CHOSEN, "")
