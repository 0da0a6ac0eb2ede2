"""Document page: one document with its chunks drawn over it and every bisected atom in red."""

import streamlit as st

from app_pages.parts import shared
from app_pages.parts.asking import QUESTION, answers, question_box
from app_pages.parts.snippets import snippet_expander
from app_pages.parts.state import OPENED_ON_DAMAGE
from app_pages.parts.window import pick_window
from inspector import ATOM_KINDS
from inspector.errors import ChunkSetError, SpecError
from inspector.model import ATOM_LABELS
from inspector.views import (
    checked_spec,
    chunk_card_html,
    chunk_numbers,
    cut_list_html,
    doc_view,
    drawn_lines,
    lane_changes,
    lanes_html,
    overlay_html,
    scroll_to_html,
    strip_html,
    style_html,
)
from inspector.views import markdown_escape as md

st.title("Document")
st.caption("Each chunk is a coloured band with its number and size. **Red** text is a *bisected atom*: "
           "a code block, table, table row, figure sentence (10+ words with a number) or citing "
           "sentence (with a link) that no single chunk holds whole, so no retrieved chunk can "
           "answer from it. Hover a red mark to see which chunks split it.")
ctx = shared.context()
if not shared.show_problems(ctx) or ctx.document is None:
    shared.publish()
    st.stop()

state = shared.state()
doc, spec = ctx.document, ctx.spec
shared.keep("side_by_side", bool(state.lane_b))
shared.keep("lane_b", state.lane_b or state.second_lane())
side = st.toggle("Side by side with a second splitter", key="side_by_side", persist_state="session",
                 help="Draw the same document split by another spec in a second lane.")
lane_b = None
if side:
    text = st.text_input("Second splitter spec", key="lane_b", persist_state="session",
                         help="KIND:BUDGET[t][/OVERLAP][:UNIT][+path][+header], e.g. fixed:800/120, "
                              "heading:256t:o200k").strip()
    try:
        lane_b = checked_spec(text, shared.uploaded_units())
        if lane_b.is_imported:
            ctx.workspace.chunk_set(lane_b.chunk_set)
        shared.update(lane_b=str(lane_b))
    except (SpecError, ChunkSetError) as exc:
        lane_b = None
        st.error(md(f"The second splitter cannot run: {exc}"))
        shared.update(lane_b="")
else:
    shared.update(lane_b="")
shared.publish()

view = doc_view(ctx.workspace, doc, spec, ctx.length)
chunks = view.result.chunks
unit = shared.unit_label(state.unit)
sets = shared.chunk_sets(ctx)
title = shared.spec_title(spec, sets)

st.subheader(md(doc.title))
st.caption(f"{md(doc.id)} · {len(doc.text):,} characters · language {md(view.analysis.language)} · "
           f"split by `{state.spec()}` ({md(title)}, sizes in {unit})")
cols = st.columns(4)
cols[0].metric("Chunks", len(chunks), help="Chunks this splitter makes of this document.")
cols[1].metric("Cut atoms", len(view.cuts), help="Atoms no single chunk holds whole (red below).")
cols[2].metric("Duplication", f"{view.duplication:.2f}×",
               help="Characters inside chunks over the document's length: above 1 means overlap repeats text.")
cols[3].metric("Oversized chunks", len(view.result.oversized),
               help="Chunks over the budget because one indivisible piece (a table row, a code line) is.")
cols = st.columns(len(ATOM_KINDS))
for col, kind in zip(cols, ATOM_KINDS):
    intact, counted = view.survival[kind]
    value = f"{intact}/{counted}" if counted else "none"
    col.metric(f"{ATOM_LABELS[kind].capitalize()}s whole", value,
               help=f"{ATOM_LABELS[kind].capitalize()}s kept whole by one chunk, of those in this document.")
if view.uncovered:
    st.warning(f"{view.uncovered:,} characters of text lie in no chunk (the grey stretches below): what this "
               "chunking lost of the document.")
if view.result.oversized:
    st.warning(f"{len(view.result.oversized):,} chunk(s) exceed the budget of {spec.budget} {unit} "
               f"because a single piece cannot be split further: {chunk_numbers(view.result.oversized)}.")

view_b = None
if lane_b is not None:
    view_b = doc_view(ctx.workspace, doc, shared.engine_spec(lane_b), shared.length_for(
        shared.engine_unit(lane_b.unit)))
    cols = st.columns(4)
    cols[0].metric("Chunks · b", len(view_b.result.chunks), help=f"Chunks {lane_b} makes of this document.")
    cols[1].metric("Cut atoms · b", len(view_b.cuts), delta=len(view_b.cuts) - len(view.cuts), delta_color="inverse",
                   help="Atoms no single chunk of b holds whole; the arrow compares them with a's.")
    cols[2].metric("Duplication · b", f"{view_b.duplication:.2f}×", help="Characters inside b's chunks over the "
                                                                           "document's length.")
    cols[3].metric("Oversized chunks · b", len(view_b.result.oversized), help="b's chunks over its budget.")
starts = [c.start for c in chunks] + ([c.start for c in view_b.result.chunks] if view_b else [])
# A first look opens where the splitter cuts most, scrolled to its first cut (once: the reader
# scrolls on from there; a run stopped before the script was sent leaves it to the next).
first_cut = view.cuts[0] if view.cuts and st.session_state.get(OPENED_ON_DAMAGE) == doc.id else None
window = pick_window("doc", len(doc.text), starts, view.cuts, open_at=first_cut)
st.html(style_html())  # once; the fragments below leave theirs out
if view.cuts:
    shown = [c for c in view.cuts if window is None or window[0] <= c.start < window[1]]
    with st.expander(f"Jump to a cut atom ({len(view.cuts):,}" + ("" if window is None else
                                                                   f", {len(shown):,} in this part") + ")"):
        st.html(cut_list_html(doc, list(view.cuts), "a", limit=500, style=False, only=shown))
else:
    st.success(f"No atom of this document is cut by {md(title)}. To see what cutting looks like, "
               "choose the *fixed* splitter in the sidebar.")
if view_b is not None:
    changes = lane_changes(view.cuts, view_b.cuts)
    drawn = lambda cuts: [c for c in cuts if window is None or window[0] <= c.start < window[1]]  # noqa: E731
    cols = st.columns(2)
    with cols[0].expander(f"Cut by a, whole in b ({len(changes.fixed):,})", expanded=bool(changes.fixed)):
        st.html(cut_list_html(doc, list(view.cuts), "a", limit=500, style=False, only=drawn(changes.fixed))
                if changes.fixed else "<p>b keeps no atom whole that a cuts.</p>")
    with cols[1].expander(f"Whole in a, cut by b ({len(changes.broken):,})", expanded=bool(changes.broken)):
        st.html(cut_list_html(doc, list(view_b.cuts), "b", limit=500, style=False, only=drawn(changes.broken))
                if changes.broken else "<p>b cuts no atom that a keeps whole.</p>")

text_column, strip_column = st.columns([60, 1 if view_b is None else 2], gap="small")
with strip_column:  # the whole drawn stretch at a glance: chunk starts, and each cut a link to it
    st.html(strip_html(len(doc.text), [("a", view.result.spans, view.cuts)] + (
        [("b", view_b.result.spans, view_b.cuts)] if view_b is not None else []), window=window, style=False,
        lines=drawn_lines(doc.text, window, 100 if view_b is None else 50)))
if view_b is not None:
    # One unit labels every lane: a lane counted in another unit is labelled with span characters.
    sizes_b = list(view_b.sizes) if lane_b.unit == state.unit else None
    text_column.html(lanes_html(doc, view.analysis, [
        (f"a: {state.spec()}" + (f" ({title})" if spec.is_imported else ""), chunks, list(view.sizes)),
        (f"b: {lane_b}" + (f" ({shared.spec_title(lane_b, sets)})" if lane_b.is_imported else ""),
         view_b.result.chunks, sizes_b),
    ], unit=state.unit, window=window, style=False))
else:
    text_column.html(overlay_html(doc, chunks, view.analysis, sizes=list(view.sizes), unit=state.unit,
                                  lane="a", window=window, style=False))

if first_cut is not None:
    st.html(scroll_to_html("ci-a-cut-0"), unsafe_allow_javascript=True)
st.session_state.pop(OPENED_ON_DAMAGE, None)

with st.expander("What the embedder receives, chunk by chunk"):
    if chunks:
        if not 1 <= st.session_state.get("chunk_pick", 1) <= len(chunks):
            st.session_state["chunk_pick"] = 1  # another document or splitter: fewer chunks
        shared.keep("chunk_pick", 1)
        pick = st.number_input("Chunk number", min_value=1, max_value=len(chunks), step=1, key="chunk_pick",
                               persist_state="session")
        chunk = chunks[int(pick) - 1]
        hints = [f"{view.sizes[int(pick) - 1]} {unit}, span {chunk.start}–{chunk.end}"]
        if chunk.heading_path:
            hints.append("Section: " + " › ".join(chunk.heading_path))
        st.html(chunk_card_html(chunk.text(doc), chunk.prefix, title=f"Chunk #{int(pick)}", hint_lines=hints,
                                style=False))

with st.expander("Ask a question of " + ("both splitters" if lane_b is not None else "this splitter"),
                 expanded=bool(st.query_params.get(QUESTION))):
    question, quote, k = question_box("doc")
    lanes = [(f"a: {state.spec()}", spec)] + ([(f"b: {lane_b}", shared.engine_spec(lane_b))] if lane_b else [])
    answers(ctx, lanes, question, quote, k, state.retriever)

snippet_expander(ctx, shared.state())
