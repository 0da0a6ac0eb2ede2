"""Chunk Inspector, the app: ``streamlit run app.py [-- --corpus PATH --allow-root PATH ...]``.

Widgets, caching and layout only; every number comes from ``inspector``. The sidebar (shared by
every page) lives in ``app_pages/_sidebar.py``, reached like every shared helper through
``app_pages/_shared.py``; to add a page, add a file to ``app_pages/`` and a line to ``PAGES``.

The folder is deliberately not called ``pages/``: Streamlit still treats a ``pages/`` folder next
to the main script as an old-style multipage app until ``st.navigation`` first runs in the
process, so a fresh server's first request for ``/compare`` (and every AppTest rerun) would run
the page file alone, without this script and its sidebar.
"""

import streamlit as st

from app_pages import _shared

st.set_page_config(page_title="Chunk Inspector", page_icon="✂️", layout="wide")
# Pages have no icons: the current page's icon becomes the favicon, and a material icon's is
# fetched from a CDN (the app must work offline; emoji need a font headless Chromium lacks).

PAGES = [
    st.Page("app_pages/document.py", title="Document", default=True),
    st.Page("app_pages/compare.py", title="Compare", url_path="compare"),
    st.Page("app_pages/sweep.py", title="Budget sweep", url_path="sweep"),
    st.Page("app_pages/sizes.py", title="Chunk sizes", url_path="sizes"),
    st.Page("app_pages/fixes.py", title="Fixes", url_path="fixes"),
    st.Page("app_pages/tune.py", title="Tune", url_path="tune"),
    st.Page("app_pages/orphan_test.py", title="Orphan Test", url_path="orphan-test"),
    st.Page("app_pages/import_chunks.py", title="Import", url_path="import"),
]

navigation = st.navigation(PAGES)
st.session_state["_context"] = _shared.sidebar()
navigation.run()
