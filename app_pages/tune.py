"""Tune page: which chunking should this corpus use? A space of configurations measured on the
golden set (or the probe), ranked with intervals, ties told apart by the paired test."""

import streamlit as st

from app_pages.imports.caches import chosen_golden
from app_pages.orphan.questions import question_set_picker, show_message
from app_pages.parts import offload, shared
from app_pages.parts.retriever import ranking, retriever_picker
from app_pages.parts.snippets import snippet_expander
from app_pages.parts.state import use_spec
from app_pages.parts.tables import data_table
from inspector.csv_cells import frame_csv
from inspector.errors import QuestionsError
from inspector.kinds import offered_kinds
from inspector.tune import DEFAULT_KINDS, Goal, embedding_line, measure_space, settled
from inspector.views import markdown_escape as md
from inspector.views import page_space, parse_budgets, tune_figure, tune_frame

st.title("Tune: which chunking?")
st.caption("Every configuration of the space below, measured on this corpus: with a golden set, the share of its "
           "questions answered within the context budget (a question counts when the chunks ranked above and "
           "including the one completing its evidence fit the budget); without one, answer@5 of the probe's "
           "queries. Each score has its 95% interval; configurations the paired test cannot tell from the best "
           "are *tied for best*, and the recommended one is the best, or a tied one that embeds a tenth fewer "
           "tokens. With 60 questions or more, every configuration is first asked a third of them.")
ctx = shared.ready()
retriever = retriever_picker()
shared.publish()
state = shared.state()
golden, golden_digest = chosen_golden(ctx, state)
if golden is None:
    st.caption("No golden set: answer@5 of the probe decides. Load one on the Import page for recall.")

unit = shared.engine_unit(state.unit)
for key, value in (("tune_kinds", list(DEFAULT_KINDS)), ("tune_budgets", "400, 800, 1200, 1600"),
                   ("tune_overlap", True), ("tune_path", True), ("tune_context", 2000), ("tune_duplication", 0.0)):
    shared.keep(key, value)
left, right = st.columns(2)
kinds = left.multiselect("Splitters", offered_kinds(), key="tune_kinds", persist_state="session")
budgets_text = left.text_input(f"Budgets ({shared.unit_label(state.unit)}, the sidebar's unit)", key="tune_budgets",
                               max_chars=200, persist_state="session")
overlap = left.checkbox("Also with 15% overlap (fixed, recursive)", key="tune_overlap", persist_state="session")
path = left.checkbox("Also with the heading path prefixed", key="tune_path", persist_state="session")
context = right.number_input("Context budget (o200k tokens)", min_value=100, max_value=100_000, step=100,
                             key="tune_context", persist_state="session")
duplication = right.number_input("Most duplication (0: any)", min_value=0.0, max_value=10.0, step=0.05,
                                 key="tune_duplication", persist_state="session",
                                 help="Characters in chunks over characters in the corpus: overlap repeats text.")
with st.expander("Your own questions (optional): what each configuration hands the model for them"):
    show_message()
    chosen = question_set_picker(theirs=False)
    yours = None
    if chosen and ctx.workspace.question_store is not None:
        try:
            yours = ctx.workspace.question_store.get(chosen)
        except QuestionsError as exc:
            st.error(md(f"Your questions cannot be read: {exc}"))
    st.caption("Without evidence they cannot score recall; beside the objective, each configuration shows the share "
               "of them whose five chunks hold no atom cut in two (whole@5), and the tokens those chunks bring.")
asked = st.button("Search", type="primary", key="tune_search")
budgets, refusal = parse_budgets(budgets_text)
if refusal:
    st.error(md(f"Budgets refused: {refusal}."))
    st.stop()
space = page_space(kinds, budgets, unit, overlap, path)
problem = space.problem()
if problem:
    st.error(md(f"This space cannot be searched: {problem}."))
    st.stop()
specs = space.candidates()
goal = Goal((golden,) if golden is not None else (), int(context), None,
            float(duplication) if duplication else None, asked=yours)
goal_key = (golden_digest, int(context), float(duplication), yours.id if yours else "")
key = (ctx.corpus.fingerprint, state.mode, tuple(map(str, specs)), goal_key, retriever)
MAX_KEPT = 1024


@st.cache_resource(show_spinner=False)
def _finished() -> dict:
    # Searches done on this server, by what they asked: a second visitor sees the first one's result.
    return {}


@st.cache_resource(show_spinner=False)
def _candidates() -> dict:
    # Configurations measured on this server, by what they were asked: a search that tries one again
    # (another space, another visitor) does not measure it twice.
    return {}


def _rung(specs, sample):
    """A rung of the search: what this server measured already, then the rest on every worker at once."""
    kept = _candidates()
    keys = [(ctx.corpus.fingerprint, state.mode, str(spec), goal_key, retriever, sample) for spec in specs]
    todo = []
    for position, found in enumerate(keys):
        if found in kept:
            yield position, kept[found]
        else:
            todo.append(position)
    calls = [(str(shared.engine_spec(specs[n])), goal, retriever, sample) for n in todo]
    for done, candidate in offload.each(ctx, "tune_candidate", calls):
        if len(kept) >= MAX_KEPT:
            kept.clear()  # a bound, not a policy: a search measures what it finds missing
        kept[keys[todo[done]]] = candidate
        yield todo[done], candidate


finished = _finished()
if asked and key not in finished:
    bar = st.progress(0.0, text="Measuring each configuration…")
    with ranking(retriever, ctx, specs):
        measured = measure_space(specs, goal, _rung, lambda what, done, total: bar.progress(
            done / total, text=f"{what} ({done} of {total})…"))
    bar.empty()
    finished[key] = settled(measured, goal, ctx.workspace)
result = finished.get(key)
if result is None:
    st.info(md(f"{len(specs)} configurations to measure. Press *Search* to start; a search another visitor "
               "finished with these settings is shown at once."))
    st.stop()

if result.decision:
    st.info(md(result.decision.sentence()), icon=":material/balance:")
st.plotly_chart(tune_figure(result), key="tune_chart")
frame = tune_frame(result)
percent = {"score": st.column_config.NumberColumn(result.objective, format="percent"),
           "score 95%": st.column_config.TextColumn(f"{result.objective} 95%"),
           "whole@5": st.column_config.NumberColumn("whole@5", format="percent")}
data_table(frame, column_config=percent, key="tune_table")
if result.embedding is not None:
    st.caption(md(embedding_line(result)))
st.download_button("Download the search (CSV)", frame_csv(frame), "tune.csv", "text/csv",
                   key="download_tune", on_click="ignore")
if result.recommended is not None:
    chosen = str(result.recommended)
    st.markdown(md(f"Recommended: {chosen}"))
    st.button("Use this splitter", key="use_recommended", on_click=use_spec, args=(chosen,),
              disabled=str(ctx.spec) == chosen, help="Makes it the sidebar's splitter on every page.")
    snippet_expander(ctx, state)
