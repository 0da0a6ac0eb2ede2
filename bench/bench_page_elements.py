"""What each family of elements a page of the app draws adds to a new tab's wait, in Chromium,
beside a bare Streamlit page opened the same way in the same run: the sidebar every page draws
(its widgets as the app lays them out), two data tables, two Vega-Lite charts, a multiselect with
seven splitters picked, ten lines of text, and five other widgets (Compare draws each of these).

Each page is the bare page plus one family, served by a server of its own from the checkout (so
it reads the app's Streamlit settings); its tabs alternate with the bare page's, and its figure
is the median of each pair's difference (the machine's drift falls on both alike). What it
answers: whether one family of elements makes a page slow to show, or every element adds a
little. The figures go, dated, to ``bench/results/page_elements.json``.

    python bench/bench_page_elements.py
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
from pathlib import Path

from common import opened, record, serve, stop_app

PAIRS = 7
HELP = ', help="What this setting does, in a sentence."'
BARE = ('import pandas as pd\nimport streamlit as st\n\nst.set_page_config(page_title="Bench", layout="wide")\n'
        'st.title("Bare")\nst.write("A page with nothing to compute.")\n'
        'frame = pd.DataFrame({"splitter": [f"s{i}" for i in range(7)], '
        '**{c: [0.5 + i / 100 for i in range(7)] for c in "abcdefghij"}})\n')
FAMILIES = {
    "sidebar": f'''
with st.sidebar:
    st.markdown("**Chunk Inspector** · what your splitter does to your documents")
    st.markdown("### Corpus")
    st.radio("Source", ["Sample corpus (bundled)", "Folder on this server", "Upload files", "Paste text"]{HELP})
    st.radio("Atom detection", ["markdown", "seed", "plain"], horizontal=True{HELP})
    st.caption("58 documents, 532,946 characters")
    st.markdown("### Splitter")
    st.selectbox("Splitter", ["structured", "recursive", "fixed"]{HELP})
    st.selectbox("Unit", ["characters", "o200k tokens"]{HELP})
    st.number_input("Budget", min_value=0, max_value=1000000, value=800, step=50{HELP})
    st.number_input("Overlap", min_value=0, max_value=1000000, value=0, step=10{HELP})
    st.checkbox("Prefix the heading path"{HELP})
    st.checkbox("Repeat the table header"{HELP})
    st.checkbox("Stamp the address"{HELP})
    st.caption("Spec `structured:800` · structured, 800 characters")
    st.markdown("### Document")
    st.text_input("Find a document", placeholder="words from its name or title")
    st.selectbox("Document (58 of 58)", ["Handbook overview · handbook/overview.md"]{HELP})
    st.caption("Every setting is in the page address: copy it to share this exact view.")
''',
    "two tables": "st.dataframe(frame)\nst.dataframe(frame)\n",
    "two charts": ('chart = {"mark": "bar", "encoding": {"x": {"field": "a", "type": "quantitative"}, '
                   '"y": {"field": "splitter", "type": "nominal"}}}\n'
                   "st.vega_lite_chart(frame, chart)\nst.vega_lite_chart(frame, chart)\n"),
    "multiselect": ('st.multiselect("Splitters", [f"spec{i}:800" for i in range(20)], '
                    'default=[f"spec{i}:800" for i in range(7)])\n'),
    "ten texts": "".join(f'st.caption("Caption {i} with *some* markdown and `code` in it.")\n' for i in range(8))
    + 'st.subheader("a. Atoms kept whole")\nst.subheader("b. Lexical probe")\n',
    "five widgets": ('st.selectbox("Retriever", ["bm25", "dense"])\nst.selectbox("Documents", ["all", "en"])\n'
                     'st.toggle("Index-time cost")\nst.download_button("Download a", "x", "a.csv")\n'
                     'st.download_button("Download b", "x", "b.csv")\n'),
}


def main() -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="ci-page-elements-"))
    servers = {}
    try:
        for name, body in {"bare": "", **FAMILIES}.items():
            script = folder / f"{name.replace(' ', '_')}.py"
            script.write_text(BARE + body, encoding="utf-8")
            servers[name] = serve(script, "bench-page-elements.log")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            for _, url in servers.values():  # each server's first tab warms it
                opened(browser, url, "Bare")
            bare, over = [], {name: [] for name in FAMILIES}
            for _ in range(PAIRS):
                for name in FAMILIES:
                    bare.append(opened(browser, servers["bare"][1], "Bare")[0])
                    over[name].append(opened(browser, servers[name][1], "Bare")[0] - bare[-1])
            browser.close()
    finally:
        for server, _ in servers.values():
            stop_app(server)
        shutil.rmtree(folder, ignore_errors=True)
    figures = {"bare_s": round(statistics.median(bare), 3),
               "over_bare_s": {name: round(statistics.median(d), 3) for name, d in over.items()}}
    print(f"bare page          {figures['bare_s']:.2f} s to its run's end (median of {len(bare)} new tabs)")
    for name, seconds in figures["over_bare_s"].items():
        print(f"+ {name:16} {seconds:+.2f} s over the bare page (median of {PAIRS} pairs)")
    record("page_elements", figures)


if __name__ == "__main__":
    main()
