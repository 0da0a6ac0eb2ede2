"""Import page: chunks made by another tool, placed on the corpus as exact spans, checked, and
measured like a built-in splitter's; golden-question recall; the sidebar splitter's chunks as JSONL.

Session state this page owns (other pages use the import through the chunk set that
*Use these chunks on every page* stores, see ``_chunk_sets``):

- ``imported_chunks``: the last import's ``inspector.importer.ImportResult`` (absent before one);
- ``imported_chunks_corpus``: the fingerprint of the corpus it was placed on. Use the import only
  while it equals ``ctx.corpus.fingerprint``; ``result.splits(ctx.workspace, unit=...)`` then
  measures and draws it as any splitter's chunks;
- ``import_source`` / ``golden_source``: the chosen file as ``(name, bytes)``. The uploaders and
  buttons set them through ``take_chunk_file`` / ``take_golden_file``; code (and tests) may set
  them directly, no file path involved.
"""

import hashlib
import itertools
from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from inspector import ATOM_KINDS, ATOM_LABELS
from inspector.appstate import SAMPLE_CORPUS
from inspector.export import export_text
from inspector.frames import markdown_escape as md
from inspector.frames import probe_figure, survival_figure
from inspector.golden import golden_recall
from inspector.import_view import (MAX_GOLDEN_BYTES, MAX_IMPORT_BYTES, folder_rows, gap_rows, golden_problem_rows,
                                   golden_upload, import_upload, miss_rows, problem_rows, recall_rows, sample_export,
                                   side_by_side)
from inspector.render import lanes_html, overlay_cuts, overlay_html
from app_pages import _chunk_sets, _shared

SOURCE, REFUSED, RESULT, RESULT_CORPUS = "import_source", "import_refused", "imported_chunks", "imported_chunks_corpus"
GOLDEN_SOURCE, GOLDEN_REFUSED = "golden_source", "golden_refused"
SAMPLE_SPEC = "structured:800"
MAX_SHOWN = 250_000  # characters drawn in the overlay
MESSAGE_COLUMNS = {"line": st.column_config.NumberColumn("line", width="small"),
                   "chunk id": st.column_config.TextColumn("chunk id", width="small"),
                   "kind": st.column_config.TextColumn("kind", width="small"),
                   "message": st.column_config.TextColumn("message", width="large")}
OUTCOME_COLOURS = {"hit": "#2e7d32", "cut": "#c62828", "rank-miss": "#9e9e9e", "uncovered": "#f9a825"}
FORMATS = """
One chunk per record, in **JSON Lines** (`.jsonl`), a **JSON** list (or an object with a `chunks`
list) or **CSV** with a header row. Understood without configuration:

- **Chunk Inspector's own export** (the download at the bottom of this page);
- **LangChain** `Document` dumps: `page_content` with `metadata.source` and, when
  `add_start_index=True`, `metadata.start_index`;
- **Chonkie** chunks: `text`, `start_index`, `end_index` (they name no document: choose one below,
  or use a one-document corpus);
- any flat record with a text (`text`, `content`, `chunk`…), a document (`doc_id`, `source`,
  `path`…) and optionally offsets (`start`/`end`).

Each chunk is placed by its offsets when they hold its text, else by finding its text (exactly,
then with whitespace runs treated as one space). Whatever cannot be placed as given is listed by
line below: nothing is guessed silently.
"""


# -- handlers: every way in ends here ---------------------------------------------------------------------

def take_chunk_file(name: str, data: bytes) -> None:
    """Make ``(name, data)`` the chunk file to import (too big: refused with a message, not kept)."""
    if len(data) > MAX_IMPORT_BYTES:
        st.session_state.pop(SOURCE, None)
        st.session_state[REFUSED] = (f"{name} is {len(data) / 1e6:.1f} MB; chunk files over "
                                     f"{MAX_IMPORT_BYTES / 1e6:.0f} MB are refused.")
        return
    st.session_state.pop(REFUSED, None)
    st.session_state[SOURCE] = (name, bytes(data))


def take_golden_file(name: str, data: bytes) -> None:
    """Make ``(name, data)`` the golden set (too big: refused with a message, not kept)."""
    if len(data) > MAX_GOLDEN_BYTES:
        st.session_state.pop(GOLDEN_SOURCE, None)
        st.session_state[GOLDEN_REFUSED] = (f"{name} is {len(data) / 1e6:.1f} MB; golden files over "
                                            f"{MAX_GOLDEN_BYTES / 1e6:.0f} MB are refused.")
        return
    st.session_state.pop(GOLDEN_REFUSED, None)
    st.session_state[GOLDEN_SOURCE] = (name, bytes(data))


def _chunk_upload_changed() -> None:
    file = st.session_state.get("import_upload")
    if file is None:  # the file was removed: so is its import
        for key in (SOURCE, REFUSED):
            st.session_state.pop(key, None)
    else:
        take_chunk_file(file.name, file.getvalue())


def _golden_upload_changed() -> None:
    file = st.session_state.get("golden_upload")
    if file is None:
        for key in (GOLDEN_SOURCE, GOLDEN_REFUSED):
            st.session_state.pop(key, None)
    else:
        take_golden_file(file.name, file.getvalue())


def _use_sample(damaged: bool) -> None:
    ctx = _shared.context()
    data = _sample(ctx.corpus.fingerprint, ctx.state.mode, damaged, ctx.workspace)
    take_chunk_file(f"{SAMPLE_SPEC.replace(':', '-')}{'-damaged' if damaged else ''}.jsonl", data)


def _use_bundled_golden() -> None:
    path = SAMPLE_CORPUS / "golden-questions.jsonl"
    take_golden_file(path.name, path.read_bytes())


# -- caches (keyed by content digests; the bytes and objects themselves are left out of the hash) -------

def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@st.cache_data(max_entries=8, show_spinner="Exporting the corpus as a sample chunk file…")
def _sample(fingerprint: str, mode: str, damaged: bool, _workspace) -> bytes:
    return sample_export(_workspace, SAMPLE_SPEC, damaged=damaged)


@st.cache_resource(max_entries=8, show_spinner="Placing the chunks on the corpus…")
def _import(digest: str, name: str, fingerprint: str, mode: str, default_doc: str | None, _data, _workspace):
    return import_upload(name, _data, _workspace, default_doc=default_doc)


@st.cache_data(max_entries=16, show_spinner="Measuring the imported chunks and the splitter's…")
def _side_by_side(digest: str, fingerprint: str, mode: str, default_doc: str | None, spec: str, label: str,
                  _result, _workspace) -> list[dict]:
    return side_by_side(_workspace, _result, _shared.engine_spec(spec), label=label)


@st.cache_resource(max_entries=8, show_spinner="Locating the golden evidence in the corpus…")
def _golden(digest: str, name: str, fingerprint: str, _data, _corpus):
    return golden_upload(name, _data, _corpus)


@st.cache_resource(max_entries=16, show_spinner="Ranking chunks for every golden question…")
def _recall(golden_digest: str, fingerprint: str, mode: str, what: str, _golden_set, _workspace, _splits=None):
    # ``what`` is the spec, or the import's digest and options (then ``_splits`` holds its chunks).
    if _splits is not None:
        return golden_recall(_workspace, _golden_set, splits=_splits)
    return golden_recall(_workspace, _golden_set, _shared.engine_spec(what))


@st.cache_data(max_entries=8, show_spinner=False)
def _export(fingerprint: str, mode: str, spec: str, _workspace) -> str:
    return export_text(_workspace, _shared.engine_spec(spec))


_numbers = itertools.count(1)  # the script reruns whole: a fresh count each run


def _section(title: str) -> None:
    # Numbered in the order shown: sections that need an import are left out without one.
    st.header(f"{next(_numbers)} · {title}")


def _percent(columns) -> dict:
    return {c: st.column_config.NumberColumn(c, format="percent") for c in columns}


# -- the page ---------------------------------------------------------------------------------------------

st.title("Import chunks")
st.caption("Bring the chunks your own pipeline made (LangChain, Chonkie, LlamaIndex, anything that writes "
           "JSON or CSV) and see them exactly as this app sees its built-in splitters' chunks: placed on "
           "the corpus chosen in the sidebar as exact spans, every record that did not fit listed, then "
           "measured next to the sidebar's splitter.")
ctx = _shared.context()
if not _shared.show_problems(ctx):
    _shared.publish()
    st.stop()
_shared.publish()
state = _shared.state()
spec_name = str(state.spec())
workspace, fingerprint = ctx.workspace, ctx.corpus.fingerprint

_section("Your chunk file")
left, right = st.columns([3, 2], gap="large")
left.file_uploader("Chunk file (JSONL, JSON or CSV)", type=["jsonl", "ndjson", "json", "csv"], key="import_upload",
                   on_change=_chunk_upload_changed, max_upload_size=MAX_IMPORT_BYTES // 1_000_000,
                   help=f"Up to {MAX_IMPORT_BYTES // 1_000_000} MB. The file stays in this browser session.")
with right:
    st.markdown("**No file at hand?** Try one made from this corpus:")
    st.button(f"Try with an export of {SAMPLE_SPEC}", key="import_sample", on_click=_use_sample, args=(False,),
              help="Our own export of the sidebar's corpus split by structured:800; it should align 100%.")
    st.button("Try a damaged copy of it", key="import_damaged", on_click=_use_sample, args=(True,),
              help="The same export with records 2-10 broken the ways real files break, to see the report.")
with st.expander("Which formats work, and chunks that name no document"):
    st.markdown(FORMATS)
    documents = [d.id for d in ctx.corpus.documents]
    _shared.keep("import_default_doc", "")
    if st.session_state["import_default_doc"] not in ["", *documents]:
        st.session_state["import_default_doc"] = ""  # the corpus changed under the choice
    default_doc = st.selectbox("Document for records that name none", ["", *documents], key="import_default_doc",
                               persist_state="session",
                               format_func=lambda d: d or "none: report such records as problems",
                               help="Chonkie and other tools that chunk one text at a time write no document "
                                    "name; pick the document those chunks came from.") or None

_chunk_sets.manage(ctx)
if st.session_state.get(REFUSED):
    st.error(md(st.session_state[REFUSED]))
_chunk_sets.show_message()
result = None
source = st.session_state.get(SOURCE)
if source is not None:
    name, data = source
    digest = _digest(data)
    result, refusal = _import(digest, name, fingerprint, state.mode, default_doc, data, workspace)
    if refusal:
        st.error(md(f"{name} cannot be imported: {refusal}"))
        st.session_state.pop(RESULT, None)
    else:
        st.session_state[RESULT], st.session_state[RESULT_CORPUS] = result, fingerprint
else:
    for key in (RESULT, RESULT_CORPUS):
        st.session_state.pop(key, None)
if source is None and not st.session_state.get(REFUSED):
    st.info("Upload a chunk file, or press a *Try* button, to see where each chunk lands. The golden-set and "
            "export sections below work without one.")

if result is not None:
    _section("Alignment: where each chunk landed")
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
    issues = [p for p in result.problems if p.kind != "duplicate"]
    text_gaps = gap_rows(result, workspace.documents, blank=False)
    blank_gaps = gap_rows(result, workspace.documents, blank=True)
    cols = st.columns(4)
    cols[0].metric("Problems", len(issues), help="Records not taken as given (table below).")
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
        _chunk_sets.use_everywhere(result)

    st.subheader(f"Problems ({len(issues)})")
    if issues:
        st.dataframe(problem_rows(issues), hide_index=True, width="stretch", key="import_problems",
                     column_config=MESSAGE_COLUMNS)
    else:
        st.caption("None: every record was read, named a known document and held its text.")
    st.subheader(f"Duplicates ({len(result.duplicates)})")
    if result.duplicates:
        st.dataframe(problem_rows(result.duplicates), hide_index=True, width="stretch", key="import_duplicates",
                     column_config=MESSAGE_COLUMNS)
    else:
        st.caption("None: no two records place the same span.")
    st.subheader(f"Coverage gaps with text ({len(text_gaps)})")
    if text_gaps:
        st.dataframe(text_gaps, hide_index=True, width="stretch", key="import_gaps")
    else:
        st.caption("None: every character of text is in some chunk.")
    if blank_gaps:
        with st.expander(f"Whitespace-only gaps ({len(blank_gaps)}): harmless; splitters that strip chunks "
                         "leave them"):
            st.dataframe(blank_gaps, hide_index=True, width="stretch", key="import_blank_gaps")
    if result.missing_documents:
        with st.expander(f"Documents that received no chunk ({len(result.missing_documents)}); they are left "
                         "out of the measures below"):
            st.dataframe([{"document": d} for d in result.missing_documents], hide_index=True, width="stretch")

if result is not None and result.imported:
    unit = _shared.unit_label(state.unit)
    _section(f"Measured like a splitter, next to {md(spec_name)}")
    st.caption(md(f"The imported chunks and the sidebar's splitter ({spec_name}) over the same "
                  f"{len(result.chunks)} documents, measured alike.") +
               f" Sizes in {unit}, prefix included. Atom columns: share of each kind of atom one chunk holds "
               "whole (every atom counted). *answer@5* / *cut* / *rank miss*: the lexical probe, as on the "
               "Compare page.")
    rows = _side_by_side(digest, fingerprint, state.mode, default_doc, spec_name, spec_name, result, workspace)
    frame = pd.DataFrame(rows)
    config = _percent([*ATOM_KINDS, "answer@5", "cut", "rank miss"])
    config |= {k: st.column_config.NumberColumn(ATOM_LABELS[k] + "s", format="percent") for k in ATOM_KINDS}
    config["duplication"] = st.column_config.NumberColumn("duplication", format="%.2f×")
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config, key="import_measures")
    charts = st.columns(2)
    with charts[0]:
        st.plotly_chart(survival_figure(frame.rename(columns={"chunks from": "splitter"})), key="import_survival")
    with charts[1]:
        st.plotly_chart(probe_figure(frame.rename(columns={"chunks from": "splitter"})), key="import_probe")

    _section("One document with the imported chunks")
    st.caption("Each chunk is a coloured band with its number and size; **red** text is an atom no single "
               "chunk holds whole; unshaded text is in no chunk.")
    with_chunks = list(result.chunks)
    wanted = ctx.document.id if ctx.document is not None and ctx.document.id in result.chunks else with_chunks[0]
    if st.session_state.get("import_doc") not in with_chunks:
        st.session_state["import_doc"] = wanted  # a new import, or the first visit: follow the sidebar
    left, right = st.columns([3, 2])
    doc_id = left.selectbox(f"Document ({len(with_chunks)} with imported chunks)", with_chunks, key="import_doc",
                            persist_state="session")
    _shared.keep("import_lanes", False)
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
    drawing = st.container(height=720, border=False)  # the document scrolls here, not the page
    if st.session_state["import_lanes"]:
        own = workspace.split(ctx.spec)[[d.id for d in workspace.documents].index(doc_id)].chunks
        own_sizes = ctx.length.count_many([c.embedded_text(document) for c in own])
        drawing.html(lanes_html(document, analysis, [(f"a: {result.spec}", chunks, sizes),
                                                (f"b: {spec_name}", own, own_sizes)],
                           unit=state.unit, max_chars=MAX_SHOWN))
    else:
        drawing.html(overlay_html(document, chunks, analysis, sizes=sizes, unit=state.unit, lane="a",
                             max_chars=MAX_SHOWN))

_section("Golden questions: recall at a context budget")
st.caption("A golden set is JSON Lines, one `{\"question\": ..., \"evidence\": ...}` per line (optionally "
           "`doc_id`, and `folder` for the breakdown); the evidence is a verbatim quote of the corpus. "
           "*recall@B*: the question's BM25-ranked chunks, taken in order until B o200k tokens of context, "
           "include one holding the whole quote. A miss is a **cut** when no chunk holds the quote whole, a "
           "**rank-miss** when one does but ranks too low, **uncovered** when no chunk touches it.")
left, right = st.columns([3, 2], gap="large")
left.file_uploader("Golden set (JSONL)", type=["jsonl", "ndjson", "json"], key="golden_upload",
                   on_change=_golden_upload_changed, max_upload_size=MAX_GOLDEN_BYTES // 1_000_000,
                   help=f"Up to {MAX_GOLDEN_BYTES // 1_000_000} MB.")
with right:
    st.markdown("**For the bundled sample corpus:**")
    st.button("Use the bundled golden set", key="golden_bundled", on_click=_use_bundled_golden,
              help="38 questions about the sample corpus (sample_corpus/golden-questions.jsonl).")
if st.session_state.get(GOLDEN_REFUSED):
    st.error(md(st.session_state[GOLDEN_REFUSED]))
golden_source = st.session_state.get(GOLDEN_SOURCE)
if golden_source is not None:
    gname, gdata = golden_source
    gdigest = _digest(gdata)
    golden, refusal = _golden(gdigest, gname, fingerprint, gdata, ctx.corpus)
    if refusal:
        st.error(md(f"{gname} cannot be used: {refusal}"))
    else:
        if golden.problems:
            st.warning(md(f"{len(golden.problems)} line(s) of {gname} were left out or matched loosely:"))
            st.dataframe(golden_problem_rows(golden), hide_index=True, width="stretch", key="golden_problems")
        if not golden.items:
            st.error(md(f"No question of {gname} could be located in {ctx.corpus_label}."))
        else:
            results = []
            if result is not None and result.imported:
                splits = result.splits(workspace)
                results.append(_recall(gdigest, fingerprint, state.mode, f"{digest}|{default_doc}", golden,
                                       workspace, splits))
            own = _recall(gdigest, fingerprint, state.mode, spec_name, golden, workspace)
            results.append(replace(own, label=spec_name))  # as the user wrote it (no tokenizer path)
            st.caption(md(f"{len(golden.items)} questions from {gname}; budgets in o200k tokens."))
            outcomes = pd.DataFrame(recall_rows(results))
            st.dataframe(outcomes, hide_index=True, width="stretch", column_config=_percent(["recall"]),
                         key="golden_recall")
            figure = go.Figure()
            x = [list(outcomes["chunks from"]), [f"{b:,} tokens" for b in outcomes["context budget"]]]
            for outcome, colour in OUTCOME_COLOURS.items():
                figure.add_bar(name=outcome, x=x, y=outcomes[outcome], marker_color=colour,
                               hovertemplate="%{y} questions<extra>" + outcome + "</extra>")
            figure.update_layout(barmode="stack", title="Golden questions by outcome", yaxis_title="questions",
                                 height=380, margin=dict(t=50, b=40), legend_title_text="")
            st.plotly_chart(figure, key="golden_chart")
            st.subheader("Per folder")
            folders = folder_rows(results)
            st.dataframe(folders, hide_index=True, width="stretch", key="golden_folders",
                         column_config=_percent([c for c in folders[0] if c.startswith("recall@")]))
            misses = miss_rows(results)
            with st.expander(f"Questions missed by some chunking ({len(misses)})"):
                st.dataframe(misses, hide_index=True, width="stretch", key="golden_misses")
else:
    st.caption("Upload a golden set, or use the bundled one, to see recall.")

_section("Export the sidebar splitter's chunks")
st.caption(md(f"Every chunk of {ctx.corpus_label} split by {spec_name}, one JSON object per line: document, "
              "index, exact offsets, prefix, text, token count and heading path. What to embed is prefix + "
              "text. The file imports back here to the same spans."))
st.download_button(f"Download the {md(spec_name)} chunks (JSONL)",
                   data=lambda: _export(fingerprint, state.mode, spec_name, workspace),
                   file_name=f"chunks-{spec_name.replace(':', '-').replace('/', '-')}.jsonl",
                   mime="application/jsonl", key="export_chunks", on_click="ignore")
