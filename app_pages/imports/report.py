"""What the Import page shows of one import: where each chunk landed and what did not fit, its
measures next to the sidebar's splitter, and one document drawn with its chunks. Not a page.

The page numbers the sections (``_section``); these functions draw their bodies.
"""

import pandas as pd
import streamlit as st

from app_pages.imports.caches import side_by_side_rows
from app_pages.parts import chunk_sets, shared
from app_pages.parts.tables import data_table, table
from app_pages.parts.window import pick_window
from inspector import ATOM_KINDS
from inspector.model import ATOM_LABELS
from inspector.views import (
    coverage_rows,
    gap_rows,
    lanes_html,
    overlay_cuts,
    overlay_html,
    probe_chart,
    problem_rows,
    survival_chart,
)
from inspector.views import markdown_escape as md

MESSAGE_COLUMNS = {"line": st.column_config.NumberColumn("line", width="small"),
                   "chunk id": st.column_config.TextColumn("chunk id", width="small"),
                   "kind": st.column_config.TextColumn("kind", width="small"),
                   "message": st.column_config.TextColumn("message", width="large")}


def percent_columns(columns) -> dict:
    """Column settings that show these columns' fractions as percentages."""
    return {c: st.column_config.NumberColumn(c, format="percent") for c in columns}


def show_alignment(ctx, result, name: str, data: bytes) -> list[dict]:
    """Where each chunk landed, and every record not taken as given; returns the uncovered text
    stretches (``gap_rows``) the document view marks."""
    workspace = ctx.workspace
    st.caption(f"**{md(name)}** " + md(f"({len(data) / 1e6:.1f} MB) against {ctx.corpus_label} "
                                      f"({len(ctx.corpus.documents)} documents).") +
               " *Offsets*: the chunk's own offsets hold its text. *Exact text*: found verbatim. "
               "*Whitespace-normalised*: found once runs of spaces and newlines count as one space, then "
               "mapped back to exact offsets. *Realigned*: its offsets were wrong, its text placed it.")
    placed = result.placements
    cols = st.columns(6)
    cols[0].metric("Records", result.records)
    cols[1].metric("Placed", result.imported, help="Records that became a chunk.")
    cols[2].metric("By offsets", placed["offsets"])
    cols[3].metric("By exact text", placed["exact"])
    cols[4].metric("Whitespace-normalised", placed["normalised"])
    cols[5].metric("Realigned", placed["realigned"], help="Wrong offsets; placed by the text instead.")
    issues, shifted = result.reviewable, result.shifted  # shifts apart, so the problems that matter show
    text_gaps = gap_rows(result, workspace.documents, blank=False)
    blank_gaps = gap_rows(result, workspace.documents, blank=True)
    cols = st.columns(4)
    cols[0].metric("Problems", len(issues), help=f"Records not taken as given (table below); {len(shifted):,} more "
                                                 "were placed by their text, their offsets shifted.")
    cols[1].metric("Duplicates", len(result.duplicates), help="Records repeating an earlier chunk's span.")
    cols[2].metric("Uncovered text", len(text_gaps), help="Stretches of text no chunk holds.")
    cols[3].metric("Documents without chunks", len(result.missing_documents),
                   help="Corpus documents no record was placed in; left out of the measures below.")
    if result.imported == 0:
        st.error(f"None of the {result.records} records could be placed; the problems below say why.")
    elif result.imported == result.records and not result.problems and not text_gaps:
        st.success(f"All {result.records} records placed exactly as given; no problems, no duplicates, no "
                   "uncovered text.")
    else:
        st.warning(md(result.summary()))
    if result.imported:
        chunk_sets.use_everywhere(result)

    st.subheader(f"Problems ({len(issues)})")
    if issues:
        table(problem_rows(issues), key="import_problems", name="problems",
              column_config=MESSAGE_COLUMNS)
    else:
        st.caption("None: every record was read, named a known document and held its text.")
    if shifted:
        with st.expander(f"Placed by their text, their offsets shifted ({len(shifted):,}): harmless when the "
                         "tool counted in the raw file (tick *Offsets count in the raw files* under the chunk file)"):
            table(problem_rows(shifted), key="import_shifted", name="chunks",
                  column_config=MESSAGE_COLUMNS)
    st.subheader(f"Duplicates ({len(result.duplicates)})")
    if result.duplicates:
        table(problem_rows(result.duplicates), key="import_duplicates", name="duplicates",
              column_config=MESSAGE_COLUMNS)
    else:
        st.caption("None: no two records place the same span.")
    st.subheader(f"Coverage gaps with text ({len(text_gaps)})")
    lost = coverage_rows(result, workspace.documents)
    if lost:
        st.caption(md(f"{sum(r['text in no chunk'] for r in lost):,} characters of text (whitespace not counted) "
                      f"lie in no chunk, in {len(lost)} documents: what the pipeline lost."))
        data_table(lost, key="import_coverage",
                   column_config={"share": st.column_config.NumberColumn("share", format="percent")})
    if text_gaps:
        table(text_gaps, key="import_gaps", name="stretches")
    else:
        st.caption("None: every character of text is in some chunk.")
    if blank_gaps:
        with st.expander(f"Whitespace-only gaps ({len(blank_gaps)}): harmless; splitters that strip chunks "
                         "leave them"):
            table(blank_gaps, key="import_blank_gaps", name="stretches")
    if result.missing_documents:
        with st.expander(f"Documents that received no chunk ({len(result.missing_documents)}); they are left "
                         "out of the measures below"):
            table([{"document": d} for d in result.missing_documents], key="import_missing",
                  name="documents")
    return text_gaps


def show_measures(ctx, state, result, digest: str, default_doc: str | None, retriever: str = "bm25") -> None:
    """The imported chunks measured like a splitter, next to the sidebar's."""
    spec_name, unit = str(state.spec()), shared.unit_label(state.unit)
    fingerprint = ctx.corpus.fingerprint
    st.caption(md(f"The imported chunks and the sidebar's splitter ({spec_name}) over the same "
                  f"{len(result.chunks)} documents, measured alike.") +
               f" Sizes in {unit}, prefix included. Atom columns: share of each kind of atom one chunk holds "
               "whole (every atom counted). *answer@5* / *cut* / *rank miss*: the lexical probe, as on the "
               f"Compare page, ranked by {md(retriever)}.")
    rows = side_by_side_rows(digest, fingerprint, state.mode, default_doc, spec_name, spec_name, retriever, result,
                             ctx)
    frame = pd.DataFrame(rows)
    config = percent_columns([*ATOM_KINDS, "answer@5", "cut", "rank miss"])
    config |= {k: st.column_config.NumberColumn(ATOM_LABELS[k] + "s", format="percent") for k in ATOM_KINDS}
    config["duplication"] = st.column_config.NumberColumn("duplication", format="%.2f×")
    data_table(frame, column_config=config, key="import_measures")
    charts, named = st.columns(2), frame.rename(columns={"chunks from": "splitter"})
    with charts[0]:
        st.vega_lite_chart(spec=survival_chart(named), key="import_survival")
    with charts[1]:
        st.vega_lite_chart(spec=probe_chart(named), key="import_probe")


def show_document(ctx, state, result, text_gaps: list[dict]) -> None:
    """One document with the imported chunks drawn over it (optionally beside the sidebar's)."""
    spec_name = str(state.spec())
    workspace = ctx.workspace
    st.caption("Each chunk is a coloured band with its number and size; **red** text is an atom no single "
               "chunk holds whole; unshaded text is in no chunk.")
    with_chunks = list(result.chunks)
    wanted = ctx.document.id if ctx.document is not None and ctx.document.id in result.chunks else with_chunks[0]
    if st.session_state.get("import_doc") not in with_chunks:
        st.session_state["import_doc"] = wanted  # a new import, or the first visit: follow the sidebar
    left, right = st.columns([3, 2])
    doc_id = left.selectbox(f"Document ({len(with_chunks)} with imported chunks)", with_chunks, key="import_doc",
                            persist_state="session")
    shared.keep("import_lanes", False)
    right.toggle(f"Side by side with {md(spec_name)}", key="import_lanes", persist_state="session",
                 help="Draw the sidebar splitter's chunks of the same document in a second lane.")
    document = ctx.corpus.by_id(doc_id)
    analysis = workspace.analysis(document)
    chunks = result.chunks[doc_id]
    sizes = ctx.length.count_many([c.embedded_text(document) for c in chunks])
    cuts = overlay_cuts(analysis, chunks)
    gaps = [g for g in text_gaps if g["document"] == doc_id]
    cols = st.columns(3)
    cols[0].metric("Imported chunks", len(chunks))
    cols[1].metric("Cut atoms", len(cuts), help="Atoms no single chunk holds whole (red below).")
    cols[2].metric("Uncovered text stretches", len(gaps))
    own = None
    if st.session_state["import_lanes"]:
        own = workspace.split(ctx.spec)[[d.id for d in workspace.documents].index(doc_id)].chunks
    window = pick_window("import_doc", len(document.text), [c.start for c in chunks + (own or ())], cuts)
    drawing = st.container(height=720, border=False)  # the document scrolls here, not the page
    if own is not None:
        own_sizes = ctx.length.count_many([c.embedded_text(document) for c in own])
        drawing.html(lanes_html(document, analysis, [(f"a: {result.spec}", chunks, sizes),
                                                (f"b: {spec_name}", own, own_sizes)],
                           unit=state.unit, window=window))
    else:
        drawing.html(overlay_html(document, chunks, analysis, sizes=sizes, unit=state.unit, lane="a",
                             window=window))
