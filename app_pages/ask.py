"""Ask page: one question typed at two splitters, the chunks each hands back, and where the
passage that answers lands: whole in a chunk, cut across several, or missing."""

import streamlit as st

from app_pages.parts import shared
from app_pages.parts.asking import answers, question_box
from app_pages.parts.retriever import retriever_picker
from inspector.errors import ChunkSetError, SpecError
from inspector.views import checked_spec
from inspector.views import markdown_escape as md

st.title("Ask")
st.caption("Type a question as a user would: each splitter's chunks are ranked for it and the top ones shown, "
           "as a retriever would hand them to the model. Paste the passage that answers to see where it lands: "
           "**whole** in one chunk, **cut** across chunks (no chunk can answer from it), or **missing** from them.")
ctx = shared.ready()
state = shared.state()
shared.keep("ask_lane_b", state.lane_b or state.second_lane())
cols = st.columns([3, 2])
with cols[0]:
    question, quote, k = question_box("ask_page")
with cols[1]:
    text = st.text_input("Second splitter", key="ask_lane_b", persist_state="session",
                         help="Asked beside the sidebar's splitter; leave empty to ask the sidebar's alone.").strip()
    retriever = retriever_picker()
shared.publish()
lanes = [(f"a: {state.spec()}", ctx.spec)]
if text:
    try:
        lane_b = checked_spec(text, shared.uploaded_units())
        if lane_b.is_imported:
            ctx.workspace.chunk_set(lane_b.chunk_set)
        lanes.append((f"b: {lane_b}", shared.engine_spec(lane_b)))
    except (SpecError, ChunkSetError) as exc:
        st.error(md(f"The second splitter cannot be asked: {exc}"))
answers(ctx, lanes, question, quote, k, retriever)
