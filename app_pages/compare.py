"""Compare page: the article's tables a (survival) and b (lexical probe) for chosen splitters."""

import pandas as pd
import streamlit as st

from app_pages.parts import offload, shared
from app_pages.parts.retriever import ranking, retriever_picker, say_what_asking_sends
from app_pages.parts.snippets import snippet_expander
from app_pages.parts.tables import SoFar, data_table
from inspector import ATOM_KINDS, SplitterSpec
from inspector.csv_cells import frame_csv
from inspector.errors import (
    ChunkSetError,
    EmbeddingServiceError,
    MissingExtra,
    RetrieverError,
    SpecError,
    SpendRefused,
    StoreError,
)
from inspector.model import ATOM_LABELS
from inspector.retrieval import parse_retriever
from inspector.split import available_adapters
from inspector.views import (
    MAX_COMPARE,
    TABLE_A,
    CompareTables,
    article_specs,
    checked_spec,
    chunk_set_of,
    chunk_set_title,
    compare_suggestions,
    compare_tables,
    cost_frame,
    cuts_problem,
    index_of,
)
from inspector.views import markdown_escape as md

st.title("Compare splitters")
st.caption("Every splitter over the whole corpus, at one budget. **Table a**: the share of atoms each "
           "splitter keeps whole (counting atoms no larger than the budget, so every row is judged on "
           "the same atoms). **Table b**: 200 lexical queries (fewer when the documents have fewer figure "
           "sentences), each built from the three longest words "
           "(in Chinese, Japanese and Korean, the rarest character pairs) of a figure sentence; "
           "*answer@5* means a top-5 chunk holds the whole sentence, *cut* that "
           "the top 5 only hold part of it, *rank miss* that none touches it.")
ctx = shared.ready()


@st.cache_data(max_entries=256, show_spinner=False)
def _compare_row(fingerprint: str, mode: str, spec: str, fits: int, retriever: str, language: str, _ctx):
    # One row per call, so the progress bar moves between calls: a cached function may not
    # touch elements created outside it (Streamlit replays them on a cache hit).
    return offload.run(_ctx, "compare", (str(shared.engine_spec(spec)),), fits, retriever, language)


@st.cache_data(max_entries=64, show_spinner=False)
def _cost_row(fingerprint: str, mode: str, spec: str, retriever: str, language: str, _ctx):
    return offload.run(_ctx, "cost", str(shared.engine_spec(spec)), retriever, language)


@st.cache_data(max_entries=32, show_spinner=False)
def _tables(fingerprint: str, mode: str, specs: tuple[str, ...], fits: int, retriever: str, language: str,
            titles: tuple[str, ...], _rows: list[pd.DataFrame]) -> CompareTables:
    # Keyed by what the rows were measured with, so a kept setting is not hashed frame by frame.
    return compare_tables(_rows, specs, titles)


@st.cache_data(max_entries=64, show_spinner=False)
def _languages(fingerprint: str, mode: str, _ctx) -> dict[str, int]:
    return offload.run(_ctx, "languages")


@st.cache_data(max_entries=16, show_spinner="Asking your index itself the probe's queries…")
def _searched_row(fingerprint: str, mode: str, spec: str, index: str, retriever: str, _ctx) -> dict:
    return offload.run(_ctx, "probe_searched", spec, index, retriever)


def _searched_rows(specs: list[str], retriever: str) -> list[pd.DataFrame]:
    """Table b's rows of the served stores among ``specs`` asked themselves (their chunks ranked by
    their own search, the queries embedded by ``retriever``, said first)."""
    rows = []
    for spec in specs:
        index = index_of(spec, sets, ctx.launch.stores)
        if not index or parse_retriever(retriever).dense is None:
            continue
        say_what_asking_sends(retriever, ctx, [query.text for query in ctx.workspace.queries()])
        try:
            rows.append(pd.DataFrame([_searched_row(ctx.corpus.fingerprint, state.mode, str(SplitterSpec.imported(
                chunk_set_of(spec))), index, retriever, ctx)]))
        except (StoreError, MissingExtra, RetrieverError, EmbeddingServiceError, SpendRefused) as exc:
            st.error(md(f"Your index {index} could not be asked: {exc}"))
    return rows


state = shared.state()
sets = shared.chunk_sets(ctx)
# Imported chunk sets of this corpus can be compared too, counted in the sidebar's unit.
imported = [str(SplitterSpec.imported(info.id, state.unit)) for info in sets.values()]
defaults = [str(s) for s in article_specs(state.budget, state.unit)]
if ctx.spec.is_imported:  # the sidebar's imported chunks join the article's seven
    defaults.append(str(state.spec()))
if "compare_specs" in st.session_state and st.session_state["compare_specs"] == \
        st.session_state.get("compare_defaults") != defaults:
    st.session_state["compare_specs"] = defaults  # still the defaults: follow the sidebar's budget
st.session_state["compare_defaults"] = defaults
shared.keep("compare_specs", list(state.compare) or defaults)
# Unpicked, the dropdown offers more than the defaults: other kinds, budgets, prefixes and libraries.
suggested = compare_suggestions(state.budget, state.unit, available_adapters())
options = list(dict.fromkeys(defaults + imported + list(suggested) + list(st.session_state["compare_specs"])))
picked = st.multiselect("Splitters (type a spec such as `heading:512` and press Enter to add one)", options,
                        key="compare_specs", persist_state="session", accept_new_options=True,
                        max_selections=MAX_COMPARE,
                        format_func=lambda o: chunk_set_title(o, sets) or o,
                        help="Default: the article's seven splitters scaled to the sidebar's budget and unit; the list "
                             "suggests other kinds, half and twice the budget, prefixes and installed libraries. "
                             "Chunk files imported on the Import page are listed as *imported: FILE*.")
specs, refused = [], []
for text in picked:
    try:
        spec = checked_spec(text, shared.uploaded_units())
        if spec.is_imported:
            ctx.workspace.chunk_set(spec.chunk_set)
        problem = cuts_problem(ctx.workspace, spec)
        if problem:
            raise SpecError(problem)
        specs.append(str(spec))
    except (SpecError, ChunkSetError) as exc:
        refused.append(f"{text!r}: {exc}")
for line in refused:
    st.error(md(f"Splitter left out: {line}"))
specs = list(dict.fromkeys(specs))
shared.update(compare=() if specs == defaults else tuple(specs))
retriever = retriever_picker()
languages = _languages(ctx.corpus.fingerprint, state.mode, ctx)
language = state.language if state.language in languages else ""
if state.language and not language:
    st.info(md(f"No document of this corpus is in {state.language!r}: every language is measured."))
if len(languages) > 1:  # measure the documents of one language alone
    shared.keep("compare_language", language)
    if st.session_state["compare_language"] not in languages:  # another corpus's choice
        st.session_state["compare_language"] = ""
    language = st.selectbox(
        "Documents", ["", *languages], key="compare_language", persist_state="session",
        format_func=lambda code: f"{code} ({languages[code]})" if code
        else f"every language ({sum(languages.values())})",
        help="Each document's language is guessed from its prose. One language: its documents alone are split, "
             "measured and searched.")
shared.update(language=language)
shared.publish()
if not specs:
    st.info("Choose at least one splitter.")
    st.stop()

so_far = SoFar("splitters", len(specs), (*TABLE_A, "answer@5", "cut"), (*ATOM_KINDS, "answer@5", "cut"))
# One spinner, shown only when measuring takes half a second (a shared link whose rows are kept
# draws no element it then removes); while rows are measured, those in show how far it got.
with ranking(retriever, ctx, specs), st.spinner(f"Measuring {len(specs)} splitters over the corpus…"):
    for spec in specs:
        so_far.add(_compare_row(ctx.corpus.fingerprint, state.mode, spec, state.budget, retriever, language, ctx))
rows = so_far.clear()
titles = tuple(chunk_set_title(spec, sets) or row["splitter"].iloc[0] for spec, row in zip(specs, rows))
tables = _tables(ctx.corpus.fingerprint, state.mode, tuple(specs), state.budget, retriever, language, titles, rows)
frame = tables.frame
for spec in specs:
    info = sets.get(str(SplitterSpec.imported(chunk_set_of(spec)))) if chunk_set_of(spec) else None
    if info is not None and info.coverage(len(ctx.corpus.documents)):
        st.warning(md(f"{info.title}: {info.coverage(len(ctx.corpus.documents))} The Import page measures it "
                      "over the documents it covers only."))

percent = {kind: st.column_config.NumberColumn(ATOM_LABELS[kind] + "s", format="percent") for kind in ATOM_KINDS}
percent |= {c: st.column_config.NumberColumn(c, format="percent") for c in ("answer@5", "cut", "rank miss")}
percent["duplication"] = st.column_config.NumberColumn("duplication", format="%.2f×")
st.subheader("a. Atoms kept whole")
st.caption(f"Atoms of at most {state.budget} {shared.unit_label(state.unit)}; *duplication* is characters "
           "in chunks over characters in the corpus; *mean chars* the mean chunk span. Each *95%* column is "
           "the share's 95% interval, documents resampled (the atoms of one document are not independent), "
           "and how many atoms it counts.")
data_table(tables.table_a, column_config=percent, notes=tables.notes_a, key="table_a")
if tables.survival_said:
    st.info(md(tables.survival_said), icon=":material/balance:")
st.download_button("Download table a (CSV)", frame_csv(tables.table_a), "table_a.csv", "text/csv",
                   key="download_a", on_click="ignore")
st.vega_lite_chart(spec=tables.survival_chart, key="survival_chart")
if st.toggle("Index-time cost", key="compare_cost",
             help="What building each index costs: seconds to split, what the splitter and the retriever embed, "
                  "context-line prompts, and dollars at this server's prices."):
    with st.spinner("Splitting again with a clock running…"):
        costs = {spec: _cost_row(ctx.corpus.fingerprint, state.mode, spec, retriever, language, ctx)
                 for spec in specs}
    data_table(cost_frame(costs, dict(zip(specs, frame["splitter"])), retriever), key="table_cost",
               column_config={"dollars": st.column_config.NumberColumn("dollars", format="$%.4f")})
    st.caption("Texts and o200k tokens. *Splitter embeds*: what the semantic and cluster chunkers embed to "
               "choose their cuts (a model in its package: no dollars). *Chunks embedded*: what a dense or "
               "hybrid retriever embeds (none for BM25). *LLM prompts*: one per chunk for context lines. "
               "Dollars need the server's price for the model (CHUNK_INSPECTOR_PRICES); seconds vary from run "
               "to run.")

st.subheader("b. Lexical probe")
st.caption(f"{int(frame['queries'].iloc[0])} queries, ranked by {md(retriever)}. *ctx* columns: mean size of "
           "the top 5 chunks a query brings back (tokens: o200k, or characters / 4 in seed mode).")
tables = tables.with_searched(_searched_rows(specs, retriever))
data_table(tables.probe.shown, column_config=percent, key="table_b", notes=tables.probe.notes)
if frame["over cap"].any():
    st.caption(md(f"{retriever} reads only the start of a chunk longer than its input cap; chunks it cut: "
                  + ", ".join(f"{name} {over:,} of {chunks:,}" for name, over, chunks
                              in zip(frame["splitter"], frame["over cap"], frame["chunks"]))))
if tables.probe_said:
    st.info(md(tables.probe_said), icon=":material/balance:")
st.download_button("Download table b (CSV)", frame_csv(tables.probe.shown), "table_b.csv", "text/csv",
                   key="download_b", on_click="ignore")
st.vega_lite_chart(spec=tables.probe_chart, key="probe_chart")

snippet_expander(ctx, shared.state())
