"""The sidebar every page shares: corpus, splitter and document widgets, settling one ``Context``
per run that the pages read. Not a page (``app.py`` calls ``sidebar`` before the page runs).

Settings are read from and written to the session's ``AppState`` (``parts.state``); the corpus is
opened by ``sidebar.corpus`` and the splitter settled by ``sidebar.splitter``; computation stays in
``inspector``. While an Orphan Test round is held on its page, the sidebar shows that round's
corpus and splitter as fixed settings and draws none of their widgets.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

import streamlit as st

from app_pages.parts.access import access_widgets, allowance_widgets, audit_widgets
from app_pages.parts.chunk_sets import chunk_sets, spec_title
from app_pages.parts.context import Context, session_id
from app_pages.parts.state import OPENED_ON_DAMAGE, STATE, publish, seed_widgets, start_session, state, touched, update
from app_pages.sidebar.corpus import corpus_widgets, held_corpus
from app_pages.sidebar.index import follow_link, index_widgets
from app_pages.sidebar.splitter import held_splitter, splitter_widgets
from inspector import Corpus
from inspector.errors import InspectorError
from inspector.retrieval import PAYER, ensure
from inspector.views import PASTE, HeldRound, damage, launch_config
from inspector.views import markdown_escape as md


def sidebar(held: HeldRound | None = None) -> Context:
    """Draw the shared sidebar and settle this run's corpus, document and splitter; ``held``: the
    Orphan Test round whose corpus and splitter are fixed on this run."""
    launch = launch_config(sys.argv[1:], os.environ)
    ensure(launch.data_path, launch.spend)  # this server's ledger of paid requests (its workers charge it too)
    PAYER.set(session_id())  # this run's paid requests are this session's
    if STATE not in st.session_state:
        start_session(launch)
    ctx = Context(held.viewing(state().doc) if held else state(), launch, held=held)
    with st.sidebar:
        st.markdown("**Chunk Inspector** · what your splitter does to your documents")
        access_widgets(ctx)
        if held is not None:
            _held_round(ctx, held)
        else:
            seed_widgets(state(), missing_only=True)  # a held round's runs drew none of them
            st.markdown("### Corpus")
            corpus_widgets(ctx)
            follow_link(ctx)  # before the splitter menu: a link's index becomes the splitter
            st.markdown("### Splitter")
            splitter_widgets(ctx)
        if ctx.corpus is not None and ctx.corpus.documents:
            st.markdown("### Document")
            _document_widgets(ctx)
        if held is None:
            index_widgets(ctx)
        st.caption("Every setting is in the page address: copy it to share this exact view.")
        allowance_widgets(ctx, session_id())
        audit_widgets(ctx)
    ctx.state = held.viewing(state().doc) if held else state()
    publish(ctx.state)
    return ctx


def _held_round(ctx: Context, held: HeldRound) -> None:
    """The held round's corpus and splitter, shown as fixed settings and opened from them."""
    st.markdown("### This round")
    settings = st.empty()  # filled once the corpus is open: an imported splitter is named by its set
    held_corpus(ctx, held)
    held_splitter(ctx, held)
    titled = {"Splitter": f"{held.round.spec} ({spec_title(held.round.spec, chunk_sets(ctx))})"}
    settings.markdown("  \n".join(f"{name}: **{md(titled.get(name, value))}**" for name, value in held.settings()))
    st.caption("Fixed while you review, so every answer goes to this round. To change them, use "
               "*Start another round* on the page; elsewhere in the app the sidebar works as before.")


def _has_document(corpus: Corpus, doc_id: str) -> bool:
    try:
        corpus.by_id(doc_id)
    except KeyError:
        return False
    return True


@st.cache_data(max_entries=64, show_spinner=False)
def _damage(fingerprint: str, mode: str, spec: str, _workspace):
    return damage(_workspace, spec)


def _worst_document(ctx: Context) -> str | None:
    """The document with the most cut atoms under the sidebar's splitter (None: none is cut, the
    corpus is too long to split for a first look, or the splitter embeds or asks a model to split,
    which takes minutes over a corpus); a corpus with no cut says so."""
    if ctx.workspace is None or ctx.spec is None or ctx.held is not None or ctx.spec.splits_by_meaning:
        return None
    try:
        found = _damage(ctx.workspace.fingerprint, ctx.workspace.mode, str(ctx.spec), ctx.workspace)
    except (InspectorError, OSError):  # the page that draws the splitter says why it cannot
        return None
    if found is not None and found.worst is None:
        st.caption(md(f"No atom of {ctx.corpus_label} is cut by {ctx.spec.label}: its first document is shown."))
    return found.worst if found is not None else None


def _document_widgets(ctx: Context) -> None:
    documents = ctx.corpus.documents
    query = st.text_input("Find a document", key="doc_filter", placeholder="words from its name or title")
    words = query.lower().split()
    matches = [d.id for d in documents if all(w in f"{d.id} {d.title}".lower() for w in words)]
    if not matches:
        st.caption(f"No document matches {md(repr(query))}.")
        matches = [d.id for d in documents]
    wanted = ctx.state.doc
    # A pasted text is one document, renamed by the mode: never stale.
    stale = bool(wanted) and not _has_document(ctx.corpus, wanted) and ctx.state.corpus != PASTE
    if stale and "doc" not in st.session_state:  # the link this session opened with names it
        st.warning(md(f"Document {wanted!r} is not in {ctx.corpus_label}; showing the first one."))
        wanted = documents[0].id
    elif stale:  # another corpus was chosen: it opens as a first look does, without a word
        wanted = ""
    if not wanted and (stale or "doc" not in st.session_state):  # open where the splitter does most damage
        wanted = _worst_document(ctx) or ""
        if wanted:
            st.session_state[OPENED_ON_DAMAGE] = wanted
    if st.session_state.get("doc") not in matches:
        st.session_state["doc"] = wanted if wanted in matches else matches[0]
    titles = {d.id: d.title for d in documents}
    doc_id = st.selectbox(f"Document ({len(matches)} of {len(documents)})", matches, key="doc",
                          format_func=lambda i: f"{titles[i]} · {i}" if titles[i] != i else i,
                          on_change=touched)
    update(doc=doc_id)
    ctx.state = replace(ctx.state, doc=doc_id)
    ctx.document = ctx.corpus.by_id(doc_id)
