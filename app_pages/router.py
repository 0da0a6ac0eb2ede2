"""The app's router: the page list, the shared sidebar, and the page the address names.

The main script Streamlit runs calls ``main()``: ``app_pages/main.py`` when the app is started by
``chunk-inspector app`` (from an installed package), ``app.py`` at a checkout's root for
``streamlit run app.py``. Widgets, caching and layout only; every number comes from
``inspector``. The pages are the files here; their parts are in subfolders: the sidebar (shared
by every page) in ``sidebar/``, the Orphan Test's in ``orphan/``, the Import page's in
``imports/``, what several pages share in ``parts/``. To add a page, add a file here and a line
to ``PAGES``.

The folder is deliberately not called ``pages/``: Streamlit still treats a ``pages/`` folder next
to the main script as an old-style multipage app until ``st.navigation`` first runs in the
process, so a fresh server's first request for ``/compare`` (and every AppTest rerun) would run
the page file alone, without the router and its sidebar.
"""

import re
from pathlib import Path

import streamlit as st

from app_pages.parts import shared

HERE = Path(__file__).resolve().parent

#: (file, title, address); the first page is the default.
PAGES = (
    ("document.py", "Document", ""),
    ("compare.py", "Compare", "compare"),
    ("ask.py", "Ask", "ask"),
    ("sweep.py", "Budget sweep", "sweep"),
    ("sizes.py", "Chunk sizes", "sizes"),
    ("fixes.py", "Fixes", "fixes"),
    ("tune.py", "Tune", "tune"),
    ("orphan_test.py", "Orphan Test", shared.ORPHAN_PAGE),
    ("import_chunks.py", "Import", "import"),
)


@st.cache_resource(show_spinner=False)
def _warm_up() -> None:
    """Once per server: Streamlit compiles its emoji pattern on the first alert whose text is not
    ASCII (36 ms), which would otherwise be a reviewer's first save."""
    try:
        from streamlit.emojis import EMOJI_EXTRACTION_REGEX
    except ImportError:  # another Streamlit: nothing to warm
        return
    re.compile(EMOJI_EXTRACTION_REGEX)  # kept in ``re``'s cache, where ``re.search`` finds it


def main() -> None:
    """Route one run of the app: configure the page, draw the sidebar, run the chosen page."""
    st.set_page_config(page_title="Chunk Inspector", page_icon="✂️", layout="wide")
    _warm_up()
    # Pages have no icons: the current page's icon becomes the favicon, and a material icon's is
    # fetched from a CDN (the app must work offline; emoji need a font headless Chromium lacks).
    pages = [st.Page(HERE / name, title=title, default=True) if not address
             else st.Page(HERE / name, title=title, url_path=address) for name, title, address in PAGES]
    navigation = st.navigation(pages)
    st.session_state["_context"] = shared.sidebar(shared.held_round(navigation.url_path))
    navigation.run()

