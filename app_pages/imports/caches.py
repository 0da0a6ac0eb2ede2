"""The Import page's caches: the sample chunk file, the placed import, its measures, the golden set,
recall and the export. Not a page.

Keyed by content digests and the corpus fingerprint; the bytes and objects themselves are left
out of the hash (parameters starting with ``_``).
"""

import hashlib

import streamlit as st

from app_pages.parts import offload, shared
from inspector.chunks import export_text
from inspector.views import golden_upload, import_upload, sample_export

SAMPLE_SPEC = "structured:800"
#: The session key holding the golden file the Import page took: (name, bytes).
GOLDEN_SOURCE = "golden_source"


def content_digest(data: bytes) -> str:
    """The cache key of a file's content."""
    return hashlib.sha256(data).hexdigest()


@st.cache_data(max_entries=8, show_spinner="Exporting the corpus as a sample chunk file…")
def sample_file(fingerprint: str, mode: str, damaged: bool, _workspace) -> bytes:
    """The corpus split by ``SAMPLE_SPEC`` as a chunk file (``damaged``: with records broken)."""
    return sample_export(_workspace, SAMPLE_SPEC, damaged=damaged)


@st.cache_resource(max_entries=8, show_spinner="Placing the chunks on the corpus…")
def import_file(digest: str, name: str, fingerprint: str, mode: str, default_doc: str | None, raw_offsets: bool,
                _data, _workspace):
    """The chunk file placed on the corpus: ``(ImportResult, None)`` or ``(None, refusal)``."""
    return import_upload(name, _data, _workspace, default_doc=default_doc, raw_offsets=raw_offsets)


@st.cache_data(max_entries=16, show_spinner="Measuring the imported chunks and the splitter's…")
def side_by_side_rows(digest: str, fingerprint: str, mode: str, default_doc: str | None, spec: str, label: str,
                      retriever: str, _result, _ctx) -> list[dict]:
    """The imported chunks and ``spec``'s measured alike, one row each, the probe ranked by ``retriever``."""
    return offload.run(_ctx, "side_by_side", _result, str(shared.engine_spec(spec)), label, retriever)


@st.cache_resource(max_entries=8, show_spinner="Locating the golden evidence in the corpus…")
def golden_set(digest: str, name: str, fingerprint: str, _data, _corpus):
    """The golden set located in the corpus: ``(GoldenSet, None)`` or ``(None, refusal)``."""
    return golden_upload(name, _data, _corpus)


@st.cache_resource(max_entries=16, show_spinner="Ranking chunks for every golden question…")
def recall(golden_digest: str, fingerprint: str, mode: str, spec: str, label: str, retriever: str, _golden_set, _ctx,
           _chunk_set=None):
    """Golden recall of one chunking (``imported:ID`` for an import, its ``_chunk_set`` given),
    named ``label``, ranked by ``retriever``."""
    return offload.run(_ctx, "golden", _golden_set, str(shared.engine_spec(spec)), label, _chunk_set, retriever)


@st.cache_data(max_entries=8, show_spinner=False)
def export_file(fingerprint: str, mode: str, spec: str, _workspace) -> str:
    """Every chunk of ``spec`` over the corpus as JSON Lines."""
    return export_text(_workspace, shared.engine_spec(spec))


@st.cache_resource(max_entries=16, show_spinner="Asking your index itself for every golden question…")
def searched_recall(golden_digest: str, fingerprint: str, mode: str, spec: str, index: str, retriever: str,
                    _golden_set, _ctx):
    """Golden recall of your index's chunks as the store itself answers, questions embedded by ``retriever``."""
    return offload.run(_ctx, "golden_searched", _golden_set, spec, index, retriever)


def chosen_golden(ctx, state):
    """The golden set the Import page loaded (the sample corpus's own one by default), located
    in the corpus, said in a caption: ``(GoldenSet | None, its content digest or "")``."""
    from inspector.views import SAMPLE, SAMPLE_CORPUS
    from inspector.views import markdown_escape as md

    source = st.session_state.get(GOLDEN_SOURCE)
    if source is None and state.corpus == SAMPLE:
        source = ("golden-questions.jsonl", (SAMPLE_CORPUS / "golden-questions.jsonl").read_bytes())
    if source is None:
        return None, ""
    golden, refusal = golden_set(content_digest(source[1]), source[0], ctx.corpus.fingerprint, source[1], ctx.corpus)
    if refusal:
        st.warning(md(f"Golden set {source[0]} not used: {refusal}"))
        return None, ""
    st.caption(md(f"Golden set {source[0]}: {len(golden.items)} questions "
                  f"({sum(1 for i in golden.items if i.kind)} labelled boundary questions)."))
    return golden, content_digest(source[1])
