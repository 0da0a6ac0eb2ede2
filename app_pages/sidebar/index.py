"""The sidebar's "Your index": the vector stores this server was started with (``--store
NAME=URI`` or ``CHUNK_INSPECTOR_STORES``), read onto the corpus as a chunk set that becomes the
splitter. A link picks one by name (``?index=NAME``), never by host or path. Not a page.
"""

from __future__ import annotations

import streamlit as st

from app_pages.parts.access import audit, refused
from app_pages.parts.chunk_sets import use_chunk_set
from inspector.access import Action
from inspector.errors import ChunkSetError, MissingExtra, StoreError
from inspector.views import markdown_escape as md
from inspector.views import read_index

PICK, MESSAGE, LINK = "index_pick", "_index_message", "index"


@st.cache_resource(max_entries=16, show_spinner=False)
def _read(name: str, address: str, fingerprint: str, mode: str, _store, _workspace, _credentials):
    # Shared by every session: a store is read once per corpus, however many visitors pick it.
    return read_index(_store, _workspace, _credentials)


def _use(ctx, name: str) -> None:
    """Read the store named ``name`` and make its chunks the splitter (a widget callback, or the
    link's pick before the splitter menu is drawn)."""
    store = next((s for s in ctx.launch.stores if s.name == name), None)
    if store is None or ctx.workspace is None:
        return
    refusal = refused(ctx, Action.OPEN_STORE)
    if refusal:
        st.session_state[MESSAGE] = ("warning", f"{store.name} was not read: {refusal}")
        return
    try:
        with st.spinner(f"Reading {store.name} ({store.address.kind})…"):
            found = _read(store.name, str(store.address), ctx.workspace.fingerprint, ctx.workspace.mode, store,
                          ctx.workspace, ctx.launch.store_credentials)
    except (StoreError, MissingExtra, ChunkSetError) as exc:
        st.session_state[MESSAGE] = ("error", f"{store.name} cannot be read onto this corpus: {exc}")
        return
    try:
        # The read is cached for the process; the set is kept in this data folder and workspace too.
        if ctx.workspace.chunk_set_store is not None:
            ctx.workspace.chunk_set_store.save(found.chunk_set)
        ctx.workspace.add_chunk_set(found.chunk_set)
        if ctx.launch.store_search is not None:
            ctx.launch.store_search.remember(ctx.workspace, found)
    except ChunkSetError as exc:
        st.session_state[MESSAGE] = ("error", f"{store.name} was read but cannot be kept on this server: {exc}")
        return
    use_chunk_set(found.spec)
    audit(ctx, "open store", once=store.name, store=store.name, kind=store.address.kind,
          chunks=sum(len(placed) for placed in found.chunk_set.chunks.values()))
    st.session_state[MESSAGE] = ("info", " ".join(found.lines()))


def follow_link(ctx) -> None:
    """A link's ``?index=NAME``: read that store and make it the splitter, once (before the
    splitter menu is drawn, which it sets)."""
    stores = {s.name: s for s in ctx.launch.stores}
    linked = st.query_params.get(LINK)
    if not stores or ctx.workspace is None or not linked or st.session_state.get("_index_linked") == linked:
        return
    st.session_state["_index_linked"] = linked
    if linked in stores:
        st.session_state[PICK] = linked
        _use(ctx, linked)
    else:
        st.session_state[MESSAGE] = ("warning", f"This server offers no index named {linked[:40]!r}; it offers "
                                                f"{', '.join(stores)}.")


def index_widgets(ctx) -> None:
    """The stores offered here, and what reading one did; nothing when the server offers none."""
    stores = {s.name: s for s in ctx.launch.stores}
    if not stores or ctx.workspace is None:
        return
    st.markdown("### Your index")
    name = st.selectbox("Store", list(stores), key=PICK, format_func=lambda n: stores[n].title,
                        help="Your own vector store, as this server was started with it: its chunks, placed on the "
                             "corpus, become the splitter on every page and in the Orphan Test.")
    st.button("Read its chunks", key="index_read", on_click=_use, args=(ctx, name),
              help="Reads every stored chunk (not its vector), places it on the corpus and keeps the placement on "
                   "this server, so links and rounds open the same chunks.")
    found = st.session_state.pop(MESSAGE, None)
    if found:
        level, text = found
        {"error": st.error, "warning": st.warning}.get(level, st.caption)(md(text))
