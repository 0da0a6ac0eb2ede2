"""The sidebar's corpus: its widgets, or an Orphan Test round's fixed corpus, opened with the
server's services wired onto its workspace. Not a page (``sidebar.panel`` calls it).

Opening is separate from the widgets so that a held round (``HeldRound``) opens the very corpus
it was drawn from while the sidebar shows no corpus widget at all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from app_pages.parts.access import audit, refused
from app_pages.parts.state import touched, update
from inspector import Corpus, Workspace, load_corpus
from inspector.access import Action
from inspector.atoms import load_detector
from inspector.corpus import CONVERSIONS, CONVERTED_SUFFIXES
from inspector.errors import CorpusError
from inspector.limits import MAX_DOCUMENT_BYTES
from inspector.measure import Services
from inspector.model import MODES
from inspector.views import (
    PASTE,
    SAMPLE,
    SAMPLE_CORPUS,
    UPLOAD,
    HeldRound,
    corpus_folder_problem,
    is_kept,
    kept_root,
    uploads_corpus,
)
from inspector.views import markdown_escape as md

if TYPE_CHECKING:
    from app_pages.parts.context import Context

#: A pasted text is one document, held to the limit of one file (its characters take up to 4 bytes).
MAX_PASTED_CHARS = MAX_DOCUMENT_BYTES // 4
SOURCES = {SAMPLE: "Sample corpus (bundled)", "folder": "Folder on this server", UPLOAD: "Upload files",
           PASTE: "Paste text"}


@st.cache_resource(ttl=300, max_entries=8, show_spinner="Reading the corpus (PDF, DOCX, PPTX and HTML files are "
                                                        "converted once, then kept)…")
def _folder_corpus(real_path: str, mode: str, conversions: str, keep_front_matter: bool = False) -> Corpus:
    return load_corpus(real_path, mode=mode, conversions=Path(conversions), keep_front_matter=keep_front_matter)


@st.cache_resource(max_entries=6, show_spinner=False)
def _workspace(fingerprint: str, mode: str, services: Services, _corpus: Corpus) -> Workspace:
    load_detector(mode)  # a page whose work runs in workers would otherwise import it on a key press
    return Workspace(_corpus, mode, services)


def corpus_widgets(ctx: Context) -> None:
    """The corpus widgets, and the corpus they name opened onto ``ctx``."""
    source = st.radio("Source", list(SOURCES), format_func=SOURCES.get, key="corpus_source",
                      on_change=touched, help="Which documents to inspect.")
    mode = st.radio("Atom detection", MODES, key="mode", horizontal=True, on_change=touched,
                    help="markdown: a markdown parser finds code blocks, tables and sentences. "
                         "seed: the article's exact regular expressions (reproduces its numbers). "
                         "plain: a text without markup, its figure and citing sentences only (a # line "
                         "or a | row is prose).")
    ctx.state = update(mode=mode)
    if source == SAMPLE:
        corpus_value = SAMPLE
        _open_sample(ctx, mode)
    elif source == "folder":
        path = st.text_input("Folder", key="corpus_path", on_change=touched,
                             placeholder="path/to/documents",
                             help="Read recursively: .md, .markdown and .txt as text; PDF, DOCX, PPTX, XLSX, HTML "
                                  "and EPUB converted to markdown.")
        corpus_value = path.strip() or ctx.state.corpus
        if ctx.launch.roots:
            st.caption("Allowed folders: " + ", ".join(f"`{r}`" for r in ctx.launch.roots))
        _open_folder(ctx, path.strip(), mode)
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
            _open_uploaded(ctx, ((name, text.encode("utf-8")),), mode, refusal="Text refused")
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
            _open_uploaded(ctx, tuple((f.name, f.getvalue()) for f in files), mode, refusal="Uploads refused")
    ctx.state = update(corpus=corpus_value if corpus_value else ctx.state.corpus)
    open_workspace(ctx)


def held_corpus(ctx: Context, held: HeldRound) -> None:
    """A held round's corpus opened onto ``ctx`` from its settings, with no widget drawn."""
    source, mode = held.corpus_source(), held.state.mode
    if source == SAMPLE:
        _open_sample(ctx, mode)
    elif source == "folder":
        _open_folder(ctx, held.state.corpus, mode)
    else:
        ctx.corpus_label = held.corpus_label
        _open_uploaded(ctx, held.uploaded, mode, refusal="The round's documents cannot be read")
    open_workspace(ctx)


def _open_sample(ctx: Context, mode: str) -> None:
    ctx.corpus_label = "the bundled sample corpus"
    try:
        ctx.corpus = _folder_corpus(os.path.realpath(SAMPLE_CORPUS), mode, str(ctx.launch.data_path / CONVERSIONS),
                                    ctx.state.keep_front_matter)
    except CorpusError as exc:
        ctx.problem = f"The sample corpus cannot be read: {exc}"


def _open_folder(ctx: Context, path: str, mode: str) -> None:
    """A folder the server may open for this visitor (checked every run: roles can change)."""
    ctx.corpus_label = path
    kept = is_kept(path, ctx.launch.data_path) if path and "\x00" not in path else False
    problem = corpus_folder_problem(path, (*ctx.launch.roots, *(
        [os.path.realpath(kept_root(ctx.launch.data_path))] if kept else [])))
    # The folder the server was started on, and uploads an admin kept, are open to every visitor.
    served = not problem and (kept or os.path.realpath(path) == os.path.realpath(ctx.launch.default_corpus))
    if not problem and not served:
        problem = refused(ctx, Action.OPEN_FOLDER)
    if problem:
        ctx.problem = f"Cannot open this folder: {problem}"
        return
    try:
        ctx.corpus = _folder_corpus(os.path.realpath(path), mode, str(ctx.launch.data_path / CONVERSIONS),
                                    ctx.state.keep_front_matter)
    except (CorpusError, OSError) as exc:
        ctx.problem = f"Cannot read the corpus folder: {exc}"
        return
    if not served:
        audit(ctx, "open folder", once=os.path.realpath(path), folder=os.path.realpath(path),
              documents=len(ctx.corpus.documents))


def _open_uploaded(ctx: Context, files: tuple[tuple[str, bytes], ...], mode: str, *, refusal: str) -> None:
    ctx.uploaded = files
    corpus, problem = uploads_corpus(list(files), mode=mode, conversions=ctx.launch.data_path / CONVERSIONS,
                                     keep_front_matter=ctx.state.keep_front_matter)
    ctx.corpus, ctx.problem = corpus, problem and f"{refusal}: {problem}"


def open_workspace(ctx: Context) -> None:
    """The corpus's workspace with the server's services (stores, data folder, addresses)."""
    if ctx.corpus is None:
        return
    ctx.workspace = _workspace(ctx.corpus.fingerprint, ctx.state.mode, ctx.launch.services, ctx.corpus)
    count = len(ctx.corpus.documents)
    st.caption(f"{count} document{'s' * (count != 1)}, {ctx.corpus.characters:,} characters")
    if not ctx.corpus.documents and not ctx.problem:
        ctx.problem = (f"No readable documents in {ctx.corpus_label}"
                       + (f": all {len(ctx.corpus.skipped)} files were skipped." if ctx.corpus.skipped
                          else " (it holds no .md, .markdown or .txt files)."))
