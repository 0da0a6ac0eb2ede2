"""The sidebar every page shares: corpus, splitter and document widgets, settling one ``Context``
per run that the pages read. Not a page (``app.py`` calls ``sidebar`` before the page runs).

Settings are read from and written to the session's ``AppState`` (``_state``); computation stays
in ``inspector``.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app_pages._access import access_widgets, allowance_widgets, audit, audit_widgets, refused, upload_closed
from app_pages._chunk_sets import chunk_set_store, chunk_sets, question_store, spec_title
from app_pages._index import follow_link, index_widgets
from app_pages._state import STATE, kind_changed, publish, start_session, state, touched, update
from app_pages._units import UNIT_LABELS, engine_spec, length_for, tokenizer_dir, uploaded_units
from inspector import Corpus, Document, Length, SplitterSpec, Workspace, load_corpus
from inspector.access import Action
from inspector.chunks import ChunkSetInfo
from inspector.context import ContextStore
from inspector.corpus import CONVERSIONS, CONVERTED_SUFFIXES
from inspector.data_folder import data_folder
from inspector.errors import ChunkSetError, CorpusError, LengthError
from inspector.lengths import LENGTH_NAMES, HFTokenizerLength
from inspector.limits import MAX_DOCUMENT_BYTES, MAX_TOKENIZER_BYTES
from inspector.model import MODES
from inspector.retrieval import PAYER, ensure
from inspector.spec import (
    DEFAULT_STAMP,
    DEFAULT_THRESHOLD,
    IMPORTED,
    KINDS,
    LLM_KIND,
    MAX_SPEC_LENGTH,
    MEANING_KINDS,
    SIMILARITY_MODELS,
)
from inspector.split import SplitAnswers, available_adapters
from inspector.views import (
    PASTE,
    SAMPLE,
    SAMPLE_CORPUS,
    UPLOAD,
    UPLOAD_UNIT,
    AppState,
    IndexSearch,
    LaunchConfig,
    corpus_folder_problem,
    cuts_problem,
    is_kept,
    kept_root,
    launch_config,
    menu_choice,
    menu_label,
    transformers,
    uploads_corpus,
)
from inspector.views import markdown_escape as md

#: A pasted text is one document, held to the limit of one file (its characters take up to 4 bytes).
MAX_PASTED_CHARS = MAX_DOCUMENT_BYTES // 4
SOURCES = {SAMPLE: "Sample corpus (bundled)", "folder": "Folder on this server", UPLOAD: "Upload files",
           PASTE: "Paste text"}


@dataclass
class Context:
    """What the sidebar settled on for this run; pages read it and never change it."""

    state: AppState
    launch: LaunchConfig
    corpus: Corpus | None = None
    workspace: Workspace | None = None
    corpus_label: str = ""
    spec: SplitterSpec | None = None
    """The splitter as the engine runs it (an uploaded tokenizer's unit resolved to its file)."""
    length: Length | None = None
    document: Document | None = None
    problem: str | None = None
    """Why nothing can be shown (already displayed as an error), or None."""

    waiting: str | None = None
    """What the reader has yet to give (files, a text) before anything can be shown: a note, not an error."""

    uploaded: tuple[tuple[str, bytes], ...] = ()
    """The uploaded files or the pasted text, ``(name, bytes)``, when that is the corpus."""


@st.cache_resource(ttl=300, max_entries=8, show_spinner="Reading the corpus (PDF, DOCX, PPTX and HTML files are "
                                                        "converted once, then kept)…")
def _folder_corpus(real_path: str, mode: str, keep_front_matter: bool = False) -> Corpus:
    return load_corpus(real_path, mode=mode, conversions=data_folder() / CONVERSIONS,
                       keep_front_matter=keep_front_matter)


@st.cache_resource(max_entries=6, show_spinner=False)
def _workspace(fingerprint: str, mode: str, _corpus: Corpus) -> Workspace:
    return Workspace(_corpus, mode)


def session_id() -> str:
    """The browser session this script run serves."""
    found = get_script_run_ctx()
    return found.session_id if found is not None else ""


def sidebar() -> Context:
    """Draw the shared sidebar and settle this run's corpus, document and splitter."""
    launch = launch_config(sys.argv[1:], os.environ)
    ensure(data_folder(), launch.spend)  # this server's ledger of paid requests (its workers charge it too)
    PAYER.set(session_id())  # this run's paid requests are this session's
    if STATE not in st.session_state:
        start_session(launch)
    ctx = Context(state(), launch)
    with st.sidebar:
        st.markdown("**Chunk Inspector** · what your splitter does to your documents")
        access_widgets(ctx)
        st.markdown("### Corpus")
        _corpus_widgets(ctx)
        follow_link(ctx)  # before the splitter menu: a link's index becomes the splitter
        st.markdown("### Splitter")
        _splitter_widgets(ctx)
        if ctx.corpus is not None and ctx.corpus.documents:
            st.markdown("### Document")
            _document_widgets(ctx)
        index_widgets(ctx)
        st.caption("Every setting is in the page address: copy it to share this exact view.")
        allowance_widgets(ctx, session_id())
        audit_widgets(ctx)
    ctx.state = state()
    publish()
    return ctx


def _corpus_widgets(ctx: Context) -> None:
    source = st.radio("Source", list(SOURCES), format_func=SOURCES.get, key="corpus_source",
                      on_change=touched, help="Which documents to inspect.")
    mode = st.radio("Atom detection", MODES, key="mode", horizontal=True, on_change=touched,
                    help="markdown: a markdown parser finds code blocks, tables and sentences. "
                         "seed: the article's exact regular expressions (reproduces its numbers). "
                         "plain: a text without markup, its figure and citing sentences only (a # line "
                         "or a | row is prose).")
    ctx.state = update(mode=mode)
    if source == SAMPLE:
        corpus_value, ctx.corpus_label = SAMPLE, "the bundled sample corpus"
        try:
            ctx.corpus = _folder_corpus(os.path.realpath(SAMPLE_CORPUS), mode, ctx.state.keep_front_matter)
        except CorpusError as exc:
            ctx.problem = f"The sample corpus cannot be read: {exc}"
    elif source == "folder":
        path = st.text_input("Folder", key="corpus_path", on_change=touched,
                             placeholder="path/to/documents",
                             help="Read recursively: .md, .markdown and .txt as text; PDF, DOCX, PPTX, XLSX, HTML "
                                  "and EPUB converted to markdown.")
        corpus_value, ctx.corpus_label = path.strip() or ctx.state.corpus, path.strip()
        if ctx.launch.roots:
            st.caption("Allowed folders: " + ", ".join(f"`{r}`" for r in ctx.launch.roots))
        kept = is_kept(path.strip(), data_folder()) if path.strip() and "\x00" not in path else False
        problem = corpus_folder_problem(path.strip(), (*ctx.launch.roots, *(
            [os.path.realpath(kept_root(data_folder()))] if kept else [])))
        # The folder the server was started on, and uploads an admin kept, are open to every visitor.
        served = not problem and (kept or os.path.realpath(path.strip()) == os.path.realpath(ctx.launch.default_corpus))
        if not problem and not served:
            problem = refused(ctx, Action.OPEN_FOLDER)
        if problem:
            ctx.problem = f"Cannot open this folder: {problem}"
        else:
            try:
                ctx.corpus = _folder_corpus(os.path.realpath(path.strip()), mode, ctx.state.keep_front_matter)
            except (CorpusError, OSError) as exc:
                ctx.problem = f"Cannot read the corpus folder: {exc}"
            else:
                if not served:
                    audit(ctx, "open folder", once=os.path.realpath(path.strip()),
                          folder=os.path.realpath(path.strip()), documents=len(ctx.corpus.documents))
    elif source == PASTE:
        corpus_value, ctx.corpus_label = PASTE, "the pasted text"
        text = st.text_area(f"Text, read as {mode}", key="corpus_text", height=220, max_chars=MAX_PASTED_CHARS,
                            placeholder="Paste a document: markdown, or plain text with plain chosen above",
                            help="One document, read as Atom detection above says: markdown, or plain for a text "
                                 "without markup. It stays in this browser session; links cannot carry it.")
        if not text.strip():
            ctx.waiting = "Paste a text to inspect it (it stays in this browser session; links cannot carry it)."
        else:
            name = "pasted.txt" if mode == "plain" else "pasted.md"
            ctx.uploaded = ((name, text.encode("utf-8")),)
            corpus, problem = uploads_corpus(list(ctx.uploaded), mode=mode,
                                             keep_front_matter=ctx.state.keep_front_matter)
            ctx.corpus, ctx.problem = corpus, problem and f"Text refused: {problem}"
    else:
        corpus_value, ctx.corpus_label = UPLOAD, "the uploaded files"
        upload_refused = refused(ctx, Action.UPLOAD)
        if upload_refused:
            st.caption(md(upload_refused))
        files = st.file_uploader("Documents: markdown, text, PDF, DOCX, PPTX, XLSX, HTML or EPUB",
                                 type=["md", "markdown", "txt", *(s.lstrip(".") for s in CONVERTED_SUFFIXES)],
                                 accept_multiple_files=True, key="corpus_uploads", disabled=bool(upload_refused),
                                 help="Up to 5 MB per text file and 50 MB per converted file; converted files "
                                      "become markdown as a pipeline would split it. Uploads stay in this browser "
                                      "session.")
        if upload_refused:
            ctx.waiting = upload_refused
        elif not files:
            ctx.waiting = ("Upload one or more documents to inspect them "
                           "(uploaded files stay in this browser session; links cannot carry them).")
        else:
            ctx.uploaded = tuple((f.name, f.getvalue()) for f in files)
            corpus, problem = uploads_corpus(list(ctx.uploaded), mode=mode,
                                             conversions=data_folder() / CONVERSIONS,
                                             keep_front_matter=ctx.state.keep_front_matter)
            ctx.corpus, ctx.problem = corpus, problem and f"Uploads refused: {problem}"
    ctx.state = update(corpus=corpus_value if corpus_value else ctx.state.corpus)
    if ctx.corpus is not None:
        ctx.workspace = _workspace(ctx.corpus.fingerprint, mode, ctx.corpus)
        ctx.workspace.chunk_set_store = chunk_set_store()  # ``imported:ID`` specs are found there
        ctx.workspace.vector_folder = data_folder()  # dense retrievers keep their vectors there
        ctx.workspace.rerank_url = ctx.launch.rerank_url or None
        ctx.workspace.embeddings_url = ctx.launch.embeddings_url or None
        searching = ctx.workspace.index_search
        if ctx.launch.stores and (searching is None or not searching.serves(ctx.launch.stores, ctx.launch.spend)):
            ctx.workspace.index_search = IndexSearch(ctx.launch.stores, ctx.launch.store_credentials, ctx.workspace,
                                                     ctx.launch.spend)
        ctx.workspace.question_store = question_store()
        ctx.workspace.context_store = ContextStore(data_folder())  # +context specs find their lines there
        ctx.workspace.split_answers = SplitAnswers(data_folder())  # and llm specs their cuts
        if ctx.workspace.analysis_store is None:
            ctx.workspace.keep_in(data_folder())  # analyses and splits kept across restarts
        count = len(ctx.corpus.documents)
        st.caption(f"{count} document{'s' * (count != 1)}, {ctx.corpus.characters:,} characters")
        if not ctx.corpus.documents and not ctx.problem:
            ctx.problem = (f"No readable documents in {ctx.corpus_label}"
                           + (f": all {len(ctx.corpus.skipped)} files were skipped." if ctx.corpus.skipped
                              else " (it holds no .md, .markdown or .txt files)."))


def _splitter_widgets(ctx: Context) -> None:
    sets = chunk_sets(ctx)
    options = [*KINDS, LLM_KIND, *available_adapters(), *sets]
    if st.session_state.get("kind") not in options:
        if menu_choice(str(st.session_state.get("kind", "")))[0] == IMPORTED:
            options.append(st.session_state["kind"])  # named by a link; the check below says why it fails
        else:
            st.session_state["kind"] = ctx.state.kind if ctx.state.kind in options else "structured"
    choice = st.selectbox("Splitter", options, key="kind", on_change=kind_changed,
                          format_func=lambda o: menu_label(o, sets),
                          help="fixed: every N units. paragraph / sentence: packs whole paragraphs or "
                               "sentences. recursive: tries separators in turn. structured: keeps code "
                               "blocks and tables whole. heading: one section per chunk. semantic: breaks "
                               "where neighbouring sentences' embeddings drift apart. cluster: groups small "
                               "pieces whose embeddings are alike (Chroma's). llm: a chat model names where "
                               "topics change (its answers written beforehand by `chunk-inspector context`). ext-…: an "
                               "installed library's splitter (LangChain, Chonkie, semantic-text-splitter), "
                               "its offsets checked against the text. imported: chunks brought in on the "
                               "Import page, fixed as they were made.")
    kind, chunk_set = menu_choice(choice)
    imported = kind == IMPORTED
    units = [*LENGTH_NAMES, "upload"]
    unit_choice = st.selectbox("Unit", units, key="unit", format_func=UNIT_LABELS.get, on_change=touched,
                               help="What budget and overlap count.")
    fixed = " (imported chunks are fixed as they were made)" if imported else ""
    budget = st.number_input("Budget", min_value=0, max_value=1_000_000, step=50, key="budget",
                             on_change=touched, disabled=imported, help="Largest chunk, in the unit above." + fixed)
    similar = kind in MEANING_KINDS
    overlap = st.number_input("Overlap", min_value=0, max_value=1_000_000, step=10, key="overlap",
                              disabled=imported or similar, on_change=touched,
                              help="How much of each chunk the next one repeats." + fixed
                              + " (the semantic, cluster and llm chunkers repeat nothing)" * similar)
    prefix = st.checkbox("Prefix the heading path", key="heading_prefix", on_change=touched, disabled=imported,
                         help="Each chunk starts with its section's headings (counts against the budget)." + fixed)
    header = st.checkbox("Repeat the table header", key="table_header", on_change=touched, disabled=imported,
                         help="Chunks that start inside a table get its header row first." + fixed)
    address = st.checkbox("Stamp the address", key="address", on_change=touched, disabled=imported,
                          help="Each chunk starts with its document's title, heading path, version and date "
                               "(from the front matter); it replaces the heading path and counts against the "
                               "budget." + fixed)
    stamp = DEFAULT_STAMP
    if address and not imported:
        stamp = st.text_input("Stamp template", key="stamp", on_change=touched, max_chars=MAX_SPEC_LENGTH // 2,
                              help="Fields {title}, {path}, {version}, {updated}; text in [...] is left out "
                                   "when a field inside it has no value.") or DEFAULT_STAMP
    unit = unit_choice
    if unit_choice == "upload":
        unit = _tokenizer_upload(ctx)
    flags = {"budget": int(budget), "overlap": 0 if similar else int(overlap), **_similarity_widgets(kind),
             "heading_prefix": None if prefix == (kind == "heading") else prefix,
             "table_header": None if header == SplitterSpec.header_default(kind, ctx.state.mode) else header,
             "address": address, "stamp": stamp}
    if imported:
        flags = {}  # kept as they were, for the next built-in splitter
    s = update(kind=kind, chunk_set=chunk_set, unit=unit or ctx.state.unit, **flags)
    ctx.state = s
    if unit_choice == "upload" and not unit:
        ctx.problem = ctx.problem or "Upload a tokenizer.json to count in its tokens, or choose another unit."
        return
    problem = s.spec_problem()
    if problem:
        ctx.problem = ctx.problem or f"These splitter settings cannot run: {problem}."
        return
    spec = engine_spec(s.spec())
    if imported and not _chunk_set_ready(ctx, chunk_set, sets.get(choice)):
        return
    try:
        ctx.length = length_for(spec.unit)
        ctx.spec = spec
    except LengthError as exc:
        ctx.problem = ctx.problem or f"The unit cannot be used: {exc}"
    st.caption(f"Spec `{s.spec()}` · {md(spec_title(s.spec(), sets))}")
    problem = cuts_problem(ctx.workspace, spec) if ctx.workspace is not None else None
    if problem:
        ctx.problem = ctx.problem or problem[0].upper() + problem[1:]
    if spec.context and ctx.workspace is not None:
        have, total = ctx.workspace.context_coverage(spec)
        if have < total:
            st.warning(md(f"{total - have:,} of {total:,} chunks have no context line from {spec.context_model}; "
                          "they are shown without one. Write the lines on the Fixes page or with "
                          "`chunk-inspector context`."))


def _similarity_widgets(kind: str) -> dict:
    """The semantic, cluster and llm chunkers' own settings, as ``AppState`` fields."""
    if kind not in MEANING_KINDS:
        return {}
    atoms = st.checkbox("Keep code blocks and tables whole", key="atoms", on_change=touched,
                        help="Off, the chunker cuts wherever its sentences or pieces end, as the library's does.")
    if kind == LLM_KIND:
        model = st.text_input("Chat model", key="split_model", on_change=touched, max_chars=200,
                              help="The model whose answers place the cuts, as `chunk-inspector context "
                                   "--spec 'llm:800;llm=MODEL'` kept them. Nothing is sent from here.")
        piece = st.number_input("Piece size (0: 50 tokens or 200 characters)", min_value=0, max_value=1_000_000,
                                key="piece", on_change=touched, help="The size of the numbered pieces it reads.")
        return {"atoms": atoms, "split_model": model.strip(), "piece": int(piece)}
    model = st.selectbox("Embed pieces with", [*SIMILARITY_MODELS[:1], *transformers()], key="similarity_model",
                         on_change=touched, help="wordllama ships inside its package; all-MiniLM-L6-v2 is offered "
                                                 "when the server allows transformer models.")
    fields = {"atoms": atoms, "similarity_model": "" if model == SIMILARITY_MODELS[0] else model}
    if kind == "semantic":
        threshold = st.number_input("Break above percentile", min_value=1, max_value=99, key="threshold",
                                    on_change=touched, help="A break goes where neighbouring sentences are further "
                                                            "apart than this percentile of the document's gaps.")
        fields["threshold"] = 0 if threshold == DEFAULT_THRESHOLD else int(threshold)
    else:
        piece = st.number_input("Piece size (0: 50 tokens or 200 characters)", min_value=0, max_value=1_000_000,
                                key="piece", on_change=touched, help="The size of the pieces the chunker groups.")
        fields["piece"] = int(piece)
    return fields


def _chunk_set_ready(ctx: Context, set_id: str, info: ChunkSetInfo | None) -> bool:
    """Check that the imported set can be used on this corpus; say what it covers."""
    if ctx.workspace is None:
        return False
    try:
        ctx.workspace.chunk_set(set_id)
    except ChunkSetError as exc:
        ctx.problem = ctx.problem or f"The imported chunks cannot be used: {exc}"
        return False
    if info is not None:
        total = len(ctx.workspace.documents)
        st.caption(md(f"{info.chunks:,} chunks from {info.name}, imported {info.created[:10]}, "
                      f"in {info.documents} of {total} documents."))
        if info.coverage(total):
            st.warning(info.coverage(total))
    return True


def _tokenizer_upload(ctx: Context) -> str | None:
    closed = upload_closed(ctx)
    file = st.file_uploader("tokenizer.json", type=["json"], key="tokenizer_upload", disabled=bool(closed),
                            help="A Hugging Face tokenizer.json, e.g. from your embedding model's folder.")
    if file is None:
        current = ctx.state.unit
        return current if UPLOAD_UNIT.match(current) and current in uploaded_units() else None
    data = file.getvalue()
    if len(data) > MAX_TOKENIZER_BYTES:
        st.error(f"{md(file.name)} is {len(data) / 1e6:.1f} MB; tokenizer files over "
                 f"{MAX_TOKENIZER_BYTES / 1e6:.0f} MB are refused.")
        return None
    try:
        HFTokenizerLength.from_json(data, file.name)
    except LengthError as exc:
        st.error(f"That tokenizer file cannot be used: {md(exc)}")
        return None
    digest = hashlib.sha256(data).hexdigest()[:16]
    target = Path(tokenizer_dir()) / f"{digest}.json"
    if not target.exists():
        target.write_bytes(data)
    return f"upload:{digest}"


def _has_document(corpus: Corpus, doc_id: str) -> bool:
    try:
        corpus.by_id(doc_id)
    except KeyError:
        return False
    return True


def _document_widgets(ctx: Context) -> None:
    documents = ctx.corpus.documents
    query = st.text_input("Find a document", key="doc_filter", placeholder="words from its name or title")
    words = query.lower().split()
    matches = [d.id for d in documents if all(w in f"{d.id} {d.title}".lower() for w in words)]
    if not matches:
        st.caption(f"No document matches {md(repr(query))}.")
        matches = [d.id for d in documents]
    wanted = ctx.state.doc
    if wanted and not _has_document(ctx.corpus, wanted) and ctx.state.corpus != PASTE:  # one text, renamed by mode
        st.warning(md(f"Document {wanted!r} is not in {ctx.corpus_label}; showing the first one."))
        wanted = ""
    if st.session_state.get("doc") not in matches:
        st.session_state["doc"] = wanted if wanted in matches else matches[0]
    titles = {d.id: d.title for d in documents}
    doc_id = st.selectbox(f"Document ({len(matches)} of {len(documents)})", matches, key="doc",
                          format_func=lambda i: f"{titles[i]} · {i}" if titles[i] != i else i,
                          on_change=touched)
    ctx.state = update(doc=doc_id)
    ctx.document = ctx.corpus.by_id(doc_id)
