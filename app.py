"""Chunk Inspector app (first slice): the article's tables for the bundled corpus."""

from pathlib import Path

import pandas as pd
import streamlit as st

from inspector import Workspace, build_report, load_corpus

st.set_page_config(page_title="Chunk Inspector", layout="wide")
st.title("Chunk Inspector")
st.caption("What your splitter does to sample_corpus/: the overlay pages arrive in the next slice.")


@st.cache_data(show_spinner="Measuring the corpus…")
def _report() -> dict:
    corpus = load_corpus(Path(__file__).parent / "sample_corpus")
    return build_report(Workspace(corpus))


report = _report()
rows = [{"splitter": r["splitter"], "chunks": r["chunks"], **{k: v for k, v in r["survival"].items()},
         "answer@5": r["answer_at_5"], "cut": r["cut"]} for r in report["compare"]]
st.dataframe(pd.DataFrame(rows), hide_index=True)
