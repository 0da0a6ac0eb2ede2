"""Budget sweep page: what a larger or smaller budget does to survival and to context size."""

import pandas as pd
import streamlit as st

from app_pages.parts import offload, shared
from app_pages.parts.retriever import ranking, retriever_picker
from app_pages.parts.tables import SoFar, data_table
from inspector import ATOM_KINDS
from inspector.csv_cells import frame_csv
from inspector.model import ATOM_LABELS
from inspector.views import (
    cuts_problem,
    interval_notes,
    parse_budgets,
    sweep_context_figure,
    sweep_survival_figure,
    with_intervals,
)
from inspector.views import markdown_escape as md

st.title("Budget sweep")
st.caption("The sidebar's splitter at several budgets over the whole corpus. Bigger chunks cut fewer "
           "atoms but every retrieved chunk costs more context: the first chart shows the share of "
           "atoms kept whole (every atom counted, even those larger than the budget), the second the "
           "tokens a query's top 5 chunks bring into the prompt.")
ctx = shared.ready()
if ctx.spec.is_imported:
    shared.publish()
    st.info("Imported chunks were made once, at whatever size their tool used: there is no budget to sweep. "
            "Choose a built-in splitter in the sidebar to sweep its budget, or compare the imported chunks "
            "with splitters at several budgets on the Compare page.")
    st.stop()


@st.cache_data(max_entries=256, show_spinner=False)
def _sweep_row(fingerprint: str, mode: str, spec: str, budget: int, retriever: str, _ctx):
    # One budget per call so the progress bar can move between calls (see compare.py).
    return offload.run(_ctx, "sweep", spec, (budget,), retriever)


state = shared.state()
shared.keep("sweep_budgets", ", ".join(map(str, state.sweep)))
text = st.text_input("Budgets (comma-separated, in the sidebar's unit)", key="sweep_budgets", persist_state="session",
                     help=f"Unit: {shared.unit_label(state.unit)}. Overlap is kept where it still fits.")
budgets, problem = parse_budgets(text)
if problem:
    st.error(md(f"Budgets not understood: {problem}. Showing {', '.join(map(str, state.sweep))}."))
    budgets = state.sweep
shared.update(sweep=budgets)
uncut = {b: cuts_problem(ctx.workspace, ctx.spec.with_budget(b)) for b in budgets}
if any(uncut.values()):
    st.warning(md(f"Budgets left out: {', '.join(str(b) for b, why in uncut.items() if why)}: "
                  f"{next(why for why in uncut.values() if why)}"))
    budgets = tuple(b for b, why in uncut.items() if not why)
retriever = retriever_picker()
shared.publish()
if not budgets:
    st.stop()

st.caption(f"Splitter `{state.spec()}` ({ctx.spec.label}) at {len(budgets)} budgets; "
           "change the splitter in the sidebar.")
bar = st.progress(0.0, text="Sweeping budgets…")
so_far = SoFar("budgets", len(budgets), ("budget", "spec", "chunks", *ATOM_KINDS, "answer@5"),
               (*ATOM_KINDS, "answer@5"))
with ranking(retriever, ctx, [ctx.spec.with_budget(b) for b in budgets]):
    for done, budget in enumerate(budgets):
        bar.progress(done / len(budgets), text=f"Budget {budget} ({done + 1}/{len(budgets)})…")
        so_far.add(_sweep_row(ctx.corpus.fingerprint, state.mode, str(ctx.spec), budget, retriever, ctx))
bar.empty()
frame = pd.concat(so_far.clear(), ignore_index=True)

left, right = st.columns(2)
left.plotly_chart(sweep_survival_figure(frame), key="sweep_survival_chart")
right.plotly_chart(sweep_context_figure(frame), key="sweep_context_chart")
columns = {kind: st.column_config.NumberColumn(ATOM_LABELS[kind] + "s", format="percent") for kind in ATOM_KINDS}
columns["answer@5"] = st.column_config.NumberColumn("answer@5", format="percent")
data_table(with_intervals(frame, ATOM_KINDS), column_config=columns, key="sweep_table",
           notes=interval_notes(frame.assign(setting="budget " + frame["budget"].astype(str)), ATOM_KINDS,
                                label="setting",
                                counted="atoms", method="documents resampled",
                                names={kind: ATOM_LABELS[kind] + "s" for kind in ATOM_KINDS}))
st.download_button("Download the sweep (CSV)", frame_csv(frame), "sweep.csv", "text/csv",
                   key="download_sweep", on_click="ignore")
