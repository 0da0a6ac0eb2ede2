"""Import page: chunks made by another tool, placed on the corpus as exact spans, checked, and
measured like a built-in splitter's; golden-question recall; the sidebar splitter's chunks as JSONL.

Session state this page owns (other pages use the import through the chunk set that
*Use these chunks on every page* stores, see ``parts.chunk_sets``):

- ``imported_chunks``: the last import's ``inspector.chunks.importer.ImportResult`` (absent before one);
- ``imported_chunks_corpus``: the fingerprint of the corpus it was placed on. Use the import only
  while it equals ``ctx.corpus.fingerprint``; ``result.splits(ctx.workspace, unit=...)`` then
  measures and draws it as any splitter's chunks;
- ``import_source`` / ``golden_source``: the chosen file as ``(name, bytes)``. The uploaders and
  buttons set them through ``imports.files.take_chunk_file`` / ``take_golden_file``; code (and
  tests) may set them directly, no file path involved.

The page lays out and numbers the sections; their bodies are drawn by ``imports.report`` (the
import's alignment, measures and one document) and ``imports.golden`` (golden questions).
"""

import itertools

import streamlit as st

from app_pages.imports.caches import SAMPLE_SPEC, content_digest, export_file, import_file
from app_pages.imports.files import REFUSED, RESULT, RESULT_CORPUS, SOURCE, chunk_upload_changed, use_sample
from app_pages.imports.golden import show_golden
from app_pages.imports.report import show_alignment, show_document, show_measures
from app_pages.imports.writing import write_golden_section
from app_pages.parts import chunk_sets, shared
from app_pages.parts.access import upload_closed
from app_pages.parts.retriever import ranking, retriever_picker
from inspector.limits import MAX_CHUNK_FILE_BYTES
from inspector.views import markdown_escape as md

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

_numbers = itertools.count(1)  # the script reruns whole: a fresh count each run


def _section(title: str) -> None:
    # Numbered in the order shown: sections that need an import are left out without one.
    st.header(f"{next(_numbers)} · {title}")


# -- the page ---------------------------------------------------------------------------------------------

st.title("Import chunks")
st.caption("Bring the chunks your own pipeline made (LangChain, Chonkie, LlamaIndex, anything that writes "
           "JSON or CSV) and see them exactly as this app sees its built-in splitters' chunks: placed on "
           "the corpus chosen in the sidebar as exact spans, every record that did not fit listed, then "
           "measured next to the sidebar's splitter.")
ctx = shared.ready()
retriever = retriever_picker()
shared.publish()
state = shared.state()
spec_name = str(state.spec())
workspace, fingerprint = ctx.workspace, ctx.corpus.fingerprint

_section("Your chunk file")
left, right = st.columns([3, 2], gap="large")
closed = upload_closed(ctx, left)
left.file_uploader("Chunk file (JSONL, JSON or CSV)", type=["jsonl", "ndjson", "json", "csv"], key="import_upload",
                   disabled=bool(closed),
                   on_change=chunk_upload_changed, max_upload_size=MAX_CHUNK_FILE_BYTES // 1_000_000,
                   help=f"Up to {MAX_CHUNK_FILE_BYTES // 1_000_000} MB. The file stays in this browser session.")
# Beside the file, not in the expander below: the problem list sends readers here when offsets shifted.
shared.keep("import_raw_offsets", False)
raw_offsets = left.checkbox("Offsets count in the raw files (front matter included)", key="import_raw_offsets",
                            persist_state="session",
                            help="Tools that split the file as it is on disk (LangChain, semantic-text-splitter) "
                                 "count offsets from the file's first character; this corpus is read without "
                                 "front matter, so such offsets are moved by its length before they are checked.")
with right:
    st.markdown("**No file at hand?** Try one made from this corpus:")
    st.button(f"Try with an export of {SAMPLE_SPEC}", key="import_sample", on_click=use_sample, args=(False,),
              help="Our own export of the sidebar's corpus split by structured:800; it should align 100%.")
    st.button("Try a damaged copy of it", key="import_damaged", on_click=use_sample, args=(True,),
              help="The same export with records 2-10 broken the ways real files break, to see the report.")
with st.expander("Which formats work, and chunks that name no document"):
    st.markdown(FORMATS)
    documents = [d.id for d in ctx.corpus.documents]
    shared.keep("import_default_doc", "")
    if st.session_state["import_default_doc"] not in ["", *documents]:
        st.session_state["import_default_doc"] = ""  # the corpus changed under the choice
    default_doc = st.selectbox("Document for records that name none", ["", *documents], key="import_default_doc",
                               persist_state="session",
                               format_func=lambda d: d or "none: report such records as problems",
                               help="Chonkie and other tools that chunk one text at a time write no document "
                                    "name; pick the document those chunks came from.") or None
    keep_front_matter = st.checkbox("Read the corpus with its front matter kept", value=state.keep_front_matter,
                                    key="import_front_matter",
                                    help="As a pipeline reading the raw files sees them: a chunk that holds the "
                                         "front matter then has it to land on. Applies to every page (kept in "
                                         "the link).")
    if keep_front_matter != state.keep_front_matter:
        shared.update(keep_front_matter=keep_front_matter)
        shared.publish()
        st.rerun()  # the sidebar reads the corpus again

chunk_sets.manage(ctx)
if st.session_state.get(REFUSED):
    st.error(md(st.session_state[REFUSED]))
chunk_sets.show_message()
result, digest = None, None
source = st.session_state.get(SOURCE)
if source is not None:
    name, data = source
    digest = content_digest(data)
    result, refusal = import_file(digest, name, fingerprint, state.mode, default_doc, raw_offsets, data, workspace)
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
    text_gaps = show_alignment(ctx, result, name, data)

if result is not None and result.imported:
    _section(f"Measured like a splitter, next to {md(spec_name)}")
    with ranking(retriever, ctx):
        show_measures(ctx, state, result, digest, default_doc, retriever)

    _section("One document with the imported chunks")
    show_document(ctx, state, result, text_gaps)

_section("Golden questions: recall at a context budget")
write_golden_section(ctx)
with ranking(retriever, ctx):
    show_golden(ctx, state, result, retriever)

_section("Export the sidebar splitter's chunks")
st.caption(md(f"Every chunk of {ctx.corpus_label} split by {spec_name}, one JSON object per line: document, "
              "index, exact offsets, prefix, text, token count and heading path. What to embed is prefix + "
              "text. The file imports back here to the same spans."))
st.download_button(f"Download the {md(spec_name)} chunks (JSONL)",
                   data=lambda: export_file(fingerprint, state.mode, spec_name, workspace),
                   file_name=f"chunks-{spec_name.replace(':', '-').replace('/', '-')}.jsonl",
                   mime="application/jsonl", key="export_chunks", on_click="ignore")
