"""How files reach the Import page: the chunk-file and golden-set uploaders, the sample buttons and
the bundled golden set all end in ``take_chunk_file`` / ``take_golden_file``. Not a page.

Session keys the page reads: ``SOURCE`` / ``GOLDEN_SOURCE`` hold the chosen file as
``(name, bytes)``; ``REFUSED`` / ``GOLDEN_REFUSED`` why the last file was refused; ``RESULT`` /
``RESULT_CORPUS`` the last import and the fingerprint of the corpus it was placed on.
"""

import streamlit as st

from app_pages.imports.caches import GOLDEN_SOURCE, SAMPLE_SPEC, sample_file
from app_pages.parts import shared
from inspector.limits import MAX_CHUNK_FILE_BYTES, MAX_GOLDEN_BYTES
from inspector.views import SAMPLE_CORPUS

SOURCE, REFUSED, RESULT, RESULT_CORPUS = "import_source", "import_refused", "imported_chunks", "imported_chunks_corpus"
GOLDEN_REFUSED = "golden_refused"


def take_chunk_file(name: str, data: bytes) -> None:
    """Make ``(name, data)`` the chunk file to import (too big: refused with a message, not kept)."""
    _take(name, data, MAX_CHUNK_FILE_BYTES, "chunk", SOURCE, REFUSED)


def take_golden_file(name: str, data: bytes) -> None:
    """Make ``(name, data)`` the golden set (too big: refused with a message, not kept)."""
    _take(name, data, MAX_GOLDEN_BYTES, "golden", GOLDEN_SOURCE, GOLDEN_REFUSED)


def _take(name: str, data: bytes, limit: int, what: str, source_key: str, refused_key: str) -> None:
    if len(data) > limit:
        st.session_state.pop(source_key, None)
        st.session_state[refused_key] = (f"{name} is {len(data) / 1e6:.1f} MB; {what} files over "
                                         f"{limit / 1e6:.0f} MB are refused.")
        return
    st.session_state.pop(refused_key, None)
    st.session_state[source_key] = (name, bytes(data))


def chunk_upload_changed() -> None:
    """Callback of the chunk-file uploader."""
    file = st.session_state.get("import_upload")
    if file is None:  # the file was removed: so is its import
        for key in (SOURCE, REFUSED):
            st.session_state.pop(key, None)
    else:
        take_chunk_file(file.name, file.getvalue())


def golden_upload_changed() -> None:
    """Callback of the golden-set uploader."""
    file = st.session_state.get("golden_upload")
    if file is None:
        for key in (GOLDEN_SOURCE, GOLDEN_REFUSED):
            st.session_state.pop(key, None)
    else:
        take_golden_file(file.name, file.getvalue())


def use_sample(damaged: bool) -> None:
    """Callback of the *Try* buttons: our own export of the corpus, intact or damaged."""
    ctx = shared.context()
    data = sample_file(ctx.corpus.fingerprint, ctx.state.mode, damaged, ctx.workspace)
    take_chunk_file(f"{SAMPLE_SPEC.replace(':', '-')}{'-damaged' if damaged else ''}.jsonl", data)


def use_bundled_golden(name: str = "golden-questions.jsonl") -> None:
    """Callback: one of the sample corpus's golden sets."""
    path = SAMPLE_CORPUS / name
    take_golden_file(path.name, path.read_bytes())
