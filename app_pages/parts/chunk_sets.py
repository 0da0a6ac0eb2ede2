"""Chunk sets in the app: the server's store, the sidebar's names for them, and the Import page
widgets that turn an import into a chunk set every page can use. Not a page (``app.py`` lists
the pages); ``parts.shared`` and ``sidebar.panel`` import from here, never the other way round.

A chunk set is stored in the data folder (``inspector.chunks.sets``), so the sidebar's splitter
menu, shared links and Orphan Test rounds find it in any session and after a restart.
"""

from __future__ import annotations

import streamlit as st

from app_pages.parts.tables import data_table
from inspector import SplitterSpec
from inspector.chunks import ChunkSetInfo, ChunkSetStore, chunk_set_from_import
from inspector.errors import ChunkSetError
from inspector.retrieval import QUESTION_SETS, QuestionSetStore
from inspector.views import chunk_set_title
from inspector.views import markdown_escape as md

MESSAGE = "_chunk_set_message"


@st.cache_resource(max_entries=4, show_spinner=False)
def _chunk_set_store(folder: str) -> ChunkSetStore:
    return ChunkSetStore(folder)


def chunk_set_store(ctx) -> ChunkSetStore:
    """The server's stored chunk sets (imported chunks), in its data folder."""
    return _chunk_set_store(ctx.launch.services.chunk_sets)


def question_store(ctx) -> QuestionSetStore:
    """The server's kept question sets (the Orphan Test's rounds drawn from users' questions)."""
    return QuestionSetStore(ctx.launch.data_path / QUESTION_SETS)


def chunk_sets(ctx) -> dict[str, ChunkSetInfo]:
    """Stored chunk sets of the sidebar's corpus, by spec string (``imported:ID``)."""
    if ctx.corpus is None:
        return {}
    try:
        return {info.spec: info for info in chunk_set_store(ctx).infos(ctx.corpus.fingerprint)}
    except ChunkSetError as exc:
        st.warning(md(f"Imported chunk sets cannot be listed: {exc}"))
        return {}


def spec_title(spec: SplitterSpec | str, sets: dict[str, ChunkSetInfo]) -> str:
    """How tables and charts name a spec: its label, or an imported set's source."""
    spec = SplitterSpec.parse(spec) if isinstance(spec, str) else spec
    return chunk_set_title(spec, sets) or spec.label


def use_chunk_set(spec: str) -> None:
    """Make a stored chunk set the sidebar's splitter (call from a widget callback)."""
    st.session_state["kind"] = spec
    st.session_state["url_problems"] = []  # the link's warnings no longer apply


def _context():
    return st.session_state["_context"]  # set by app.py before every page


def keep_and_use(result) -> None:
    """Callback: keep an import as a chunk set and make it the sidebar's splitter."""
    ctx = _context()
    try:
        chunk_set = chunk_set_from_import(result, ctx.workspace)
        chunk_set_store(ctx).save(chunk_set)
        spec = ctx.workspace.add_chunk_set(chunk_set)
    except ChunkSetError as exc:
        st.session_state[MESSAGE] = ("error", f"These chunks cannot be kept: {exc}")
        return
    use_chunk_set(str(spec))
    st.session_state[MESSAGE] = ("success", f"The sidebar's splitter is now the imported chunks of {result.name} "
                                            f"(spec imported:{chunk_set.id}); every page measures them.")


def _delete(set_id: str) -> None:
    """Callback: remove a stored set (and stop using it in the sidebar)."""
    ctx = _context()
    try:
        chunk_set_store(ctx).delete(set_id)
    except ChunkSetError as exc:
        st.session_state[MESSAGE] = ("error", str(exc))
        return
    if ctx.workspace is not None:
        ctx.workspace.forget_chunk_set(set_id)
    if st.session_state.get("kind") == str(SplitterSpec.imported(set_id)):
        st.session_state["kind"] = "structured"
    st.session_state[MESSAGE] = ("success", f"Chunk set {set_id} deleted.")


def use_everywhere(result) -> None:
    """The button that makes the current import the sidebar's splitter."""
    st.button("Use these chunks on every page", key="import_use", on_click=keep_and_use, args=(result,), type="primary",
              help="Keeps the placed chunks on this server as a chunk set and makes it the sidebar's splitter: "
                   "the Document, Compare, Chunk sizes and Orphan Test pages then show these chunks, and links "
                   "to them work for colleagues.")


def show_message() -> None:
    """What the last button did."""
    found = st.session_state.pop(MESSAGE, None)
    if found:
        level, text = found
        (st.error if level == "error" else st.success)(md(text))


def manage(ctx) -> None:
    """The chunk sets kept for the sidebar's corpus, with a delete button."""
    sets = chunk_sets(ctx)
    with st.expander(f"Chunk sets kept on this server for this corpus ({len(sets)})"):
        if not sets:
            st.caption("None yet: import a chunk file and press *Use these chunks on every page*.")
            return
        data_table([{"name": i.name, "spec": i.spec, "chunks": i.chunks, "documents": i.documents,
                     "imported": i.created} for i in sets.values()], key="chunk_sets_table")
        left, right = st.columns([3, 1], vertical_alignment="bottom")
        choice = left.selectbox("Chunk set", list(sets), key="chunk_set_pick",
                                format_func=lambda spec: sets[spec].title)
        right.button("Delete", key="chunk_set_delete", on_click=_delete, args=(sets[choice].id,),
                     help="Removes it from this server; rounds and links naming it stop working.")
