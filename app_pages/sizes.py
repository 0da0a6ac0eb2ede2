"""Chunk sizes page: chunk sizes as the embedding model counts them, against its input cap."""

import time

import pandas as pd
import streamlit as st

from app_pages.parts import offload, shared
from app_pages.parts.snippets import snippet_expander
from app_pages.parts.tables import SoFar, data_table
from inspector.csv_cells import frame_csv
from inspector.errors import LengthError
from inspector.lengths import LENGTH_NAMES
from inspector.views import (
    MAX_CAP,
    MAX_TABLE_ROWS,
    document_parts,
    model_tokenizers,
    size_histogram,
    size_summary,
    sizes_defaults,
)
from inspector.views import markdown_escape as md

st.title("Chunk sizes")
st.caption("Every chunk of the corpus, sized in your embedding model's tokens (prefix included, special "
           "tokens not). Chunks over the model's input cap are silently truncated when embedded; "
           "*runts* (under 32 tokens) carry too little text to be found.")
ctx = shared.ready()


@st.cache_data(max_entries=256, show_spinner=False)
def _sizes(fingerprint: str, mode: str, spec: str, unit: str, first: int, stop: int, _ctx):
    # A run of documents per call, so what is counted so far is shown while the rest is counted.
    return offload.run(_ctx, "sizes", spec, unit, first, stop)


state = shared.state()
units = list(dict.fromkeys([*LENGTH_NAMES, *model_tokenizers(), *shared.uploaded_units()]))
embed_default, cap_default = sizes_defaults(state)  # the retriever's own model when it has one
shared.keep("embed", embed_default if embed_default in units else "o200k")
shared.keep("cap", cap_default)
left, right = st.columns(2)
embed = left.selectbox("Embedder's tokenizer", units, key="embed", persist_state="session",
                       format_func=shared.unit_label,
                       help="Upload a tokenizer.json through the sidebar's unit to use your model's own.")
cap = right.number_input("Input cap (tokens)", min_value=1, max_value=MAX_CAP, step=64, key="cap",
                         persist_state="session",
                         help="The longest input the model embeds; 512 for many BERT-style models.")
shared.update(embed=embed, cap=int(cap))
shared.publish()

try:
    length = shared.length_for(shared.engine_unit(embed))
except LengthError as exc:
    st.error(md(f"The tokenizer cannot be used: {exc}"))
    st.stop()
parts = document_parts(ctx.corpus.documents)
so_far, frames = st.empty(), []
started = time.perf_counter()
for first, stop in parts:
    frames.append(_sizes(ctx.corpus.fingerprint, state.mode, str(ctx.spec), shared.engine_unit(embed), first, stop,
                         ctx))
    if stop < len(ctx.corpus.documents) and time.perf_counter() - started > SoFar.MEASURED_AFTER:
        counted = size_summary(pd.concat(frames, ignore_index=True), int(cap), overhead=length.special_overhead)
        so_far.caption(f"Counted so far: {stop:,} of {len(ctx.corpus.documents):,} documents, "
                       f"{counted.stats.count:,} chunks, p50 {counted.stats.p50:.0f}, p99 {counted.stats.p99:.0f}, "
                       f"{len(counted.over_cap):,} over the cap…")
so_far.empty()
frame = pd.concat(frames, ignore_index=True)
summary = size_summary(frame, int(cap), overhead=length.special_overhead)
word = "characters" if embed == "chars" else "tokens"

title = md(shared.spec_title(ctx.spec, shared.chunk_sets(ctx)))
st.caption(f"Splitter `{state.spec()}` ({title}); sizes in {shared.unit_label(embed)}"
           + (f", plus {length.special_overhead} special tokens per input" if length.special_overhead else "") + ".")
cols = st.columns(5)
cols[0].metric("Chunks", summary.stats.count)
cols[1].metric(f"p50 ({word})", f"{summary.stats.p50:.0f}")
cols[2].metric(f"p99 ({word})", f"{summary.stats.p99:.0f}")
cols[3].metric("Runt ratio", f"{summary.cap.runt_ratio:.1%}", help="Share of chunks under 32 tokens.")
cols[4].metric("Over the cap", len(summary.over_cap), help=f"Chunks over {int(cap)} {word} once special "
               "tokens are added: the embedder cuts their ends off.")
st.plotly_chart(size_histogram(frame, int(cap), word), key="size_histogram")

st.subheader(f"Chunks over the cap ({len(summary.over_cap):,})")
if summary.over_cap.empty:
    st.success(f"Every chunk fits in {int(cap)} {word}.")
else:
    over = summary.over_cap[["doc", "chunk", "tokens", "first words"]]
    if len(over) > MAX_TABLE_ROWS:  # the page stays light however many chunks are over
        st.caption(f"The {MAX_TABLE_ROWS:,} largest of {len(over):,}; the download holds them all.")
    data_table(over.head(MAX_TABLE_ROWS))
    st.download_button("Download the chunks over the cap (CSV)", frame_csv(over), "over-cap.csv",
                       "text/csv", key="download_over_cap", on_click="ignore")

snippet_expander(ctx, shared.state())
