"""Orphan Test page: a team reads the same chunks cold and says whether each stands on its own.

A round is fixed by the sidebar's corpus and splitter plus the settings below (size, seed, where
chunks come from), so a link gives every reviewer the same chunks in the same order. Every answer
goes to the SQLite review store on the click; hints and context appear only after answering.
"""

import html
from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from inspector import ReviewStoreError
from inspector.agreement import answer_marks, kappa_reading, summarize, summary_csv, to_json, trend, verdict_rows
from inspector.appstate import UPLOAD_UNIT
from inspector.frames import first_words
from inspector.frames import markdown_escape as md
from inspector.orphan_reveal import HINT_CODES, context, suspects
from inspector.orphans import (DEFAULT_SIZE, MAX_SIZE, QUESTIONS, ReviewInputError, ReviewRound, draw,
                               reviewer_problem)
from inspector.render import chunk_card_html
from inspector.review import ReviewStore
from inspector.review_database import default_store_path
from app_pages import _shared

ROUND_KEYS = ("round", "rcorpus", "rmode", "rspec", "rsize", "rseed", "rfrom", "rk")
SOURCES = {"sample": "A random sample of all chunks", "probe": "Chunks the lexical probe retrieved"}
QUESTION_KEYS = {q.key: f"orphan_{q.key}" for q in QUESTIONS}
HINTS_STYLE = ("<style>.ci-orphan-hints{background:#fff8e1;border-left:3px solid #e0b400;border-radius:4px;"
               "padding:6px 12px;font-family:system-ui,sans-serif;font-size:14px}"
               ".ci-orphan-hints ul{margin:4px 0 0;padding-left:20px}</style>")

st.title("Orphan Test")
st.caption("An **orphan** is a chunk that cannot be understood on its own: retrieved alone, it misleads "
           "the model. Each reviewer reads the same chunks *cold* (exactly what the embedder receives, "
           "nothing around it) and answers three yes/no questions; one **no** makes the chunk an orphan. "
           "The Results tab then shows the orphan rate, where reviewers disagree, and their agreement.")
# Which chunk's answer widgets the previous run drew; a run that stopped early drew none, so the
# widgets are seeded again (Streamlit forgets the state of widgets a run does not draw).
last_shown = st.session_state.pop("_orphan_shown", None)
ctx = _shared.context()
if not _shared.show_problems(ctx):
    st.stop()
if UPLOAD_UNIT.match(_shared.state().unit):
    st.info("The Orphan Test needs a built-in unit (characters, o200k or cl100k) so that a shared link "
            "reproduces the round on any server; choose one in the sidebar.")
    st.stop()


@st.cache_resource(max_entries=16, show_spinner="Drawing the round's chunks…")
def _round_chunks(round_id: str, _round: ReviewRound, _workspace):
    return tuple(draw(_round, _workspace))


def _opened_with() -> dict[str, str]:
    """The round parameters in the address (the sidebar keeps keys it does not own)."""
    return {key: st.query_params.get(key) for key in ROUND_KEYS if key in st.query_params}


def _apply_link() -> None:
    """A link's round sets the round widgets once (before they are drawn)."""
    try:
        linked = ReviewRound.from_query_params(_opened_with())
    except ReviewInputError as exc:
        if st.session_state.get("_orphan_bad_link") != str(exc):
            st.warning(md(f"The round in the link was ignored: {exc}."))
        st.session_state["_orphan_bad_link"] = str(exc)
        return
    if linked is None or linked.id == st.session_state.get("_orphan_published"):
        return  # no round in the address, or the one this page wrote there itself
    st.session_state["_orphan_link"] = linked
    for key, value in (("source", linked.source), ("size", linked.size), ("seed", linked.seed), ("k", linked.k)):
        st.session_state[f"orphan_{key}"] = value


def _describe(r: ReviewRound, shown: int) -> str:
    where = ("every chunk" if r.source == "sample"
             else f"the chunks the lexical probe ranked in its top {r.k} for some question")
    return (f"{shown} chunks drawn at random (seed {r.seed}) from {where} of {md(ctx.corpus_label)}, "
            f"split by `{r.spec}` ({md(_shared.spec_title(r.spec, _shared.chunk_sets(ctx)))}); round id `{r.id}`.")


# -- the round ---------------------------------------------------------------------------------------

_apply_link()
for key, value in (("orphan_source", "sample"), ("orphan_size", DEFAULT_SIZE), ("orphan_seed", 0), ("orphan_k", 5)):
    _shared.keep(key, value)
with st.container(border=True):
    described = st.empty()  # filled once the settings below are read
    with st.expander("Change the round: how many chunks, which seed, where they come from"):
        st.caption("The corpus and the splitter are the sidebar's. Changing anything here starts another round.")
        cols = st.columns([3, 1, 1, 1])
        source = cols[0].radio("Chunks come from", list(SOURCES), format_func=SOURCES.get, key="orphan_source",
                               persist_state="session", help="The probe's chunks are the ones a retriever "
                               "actually hands to the model for the corpus's questions.")
        size = cols[1].number_input("Chunks to review", 1, MAX_SIZE, step=5, key="orphan_size",
                                    persist_state="session")
        seed = cols[2].number_input("Seed", 0, 2**31 - 1, step=1, key="orphan_seed", persist_state="session",
                                    help="Another seed draws other chunks.")
        k = cols[3].number_input("Probe top k", 1, 100, step=1, key="orphan_k", persist_state="session",
                                 disabled=source != "probe", help="Chunks per probe question that count as retrieved.")
    review_round = ReviewRound.create(ctx.workspace, str(ctx.spec), size=int(size), seed=int(seed),
                                      source=source, k=int(k))
    try:
        chunks = _round_chunks(review_round.id, review_round, ctx.workspace)
    except ReviewInputError as exc:
        st.error(md(f"This round cannot be drawn: {exc}"))
        st.stop()
    described.markdown(f"**This round:** {_describe(review_round, len(chunks))} Everyone who opens its link "
                       "reviews the same chunks in the same order.")
    linked = st.session_state.get("_orphan_link")
    if linked is not None and (linked.corpus, linked.mode, linked.spec) != (
            review_round.corpus, review_round.mode, review_round.spec):
        st.warning(md(f"The link you opened names a round split by {linked.spec} ({linked.mode} mode) over "
                      f"corpus {linked.corpus[:12]}…, but the sidebar is set to {review_round.spec} "
                      f"({review_round.mode}) over {ctx.corpus_label}: these are not the same chunks. "
                      "Open the link exactly as it was shared to review that round."))
    settings = {key: value for key, value in _shared.state().to_query_params().items() if key != "doc"}
    query = urlencode({**settings, **review_round.to_query_params()}, doseq=True)
    st.caption("Share this round: send this link to every reviewer.")
    st.code(f"{st.context.url or ''}?{query}", language=None, wrap_lines=True)
st.query_params.update(review_round.to_query_params())  # the sidebar publishes only its own settings
st.session_state["_orphan_published"] = review_round.id
if not chunks:
    st.warning("This round holds no chunks: the corpus has none to review under these settings.")
    st.stop()

lost = st.session_state.pop("_orphan_save_error", None)
if lost:  # shown above the tabs so it is seen even when the store cannot be opened now
    st.error(md(lost) + " Your ticks are still on the chunk: save again to retry.")
try:
    store = ReviewStore(default_store_path())
except (ReviewStoreError, OSError) as exc:
    st.error(md(f"The review store cannot be opened, so no answer can be saved: {exc}"))
    st.button("Retry", key="orphan_retry_open", help="Try opening the review store again.")
    st.stop()

review_tab, results_tab = st.tabs(["Review", "Results"])


# -- review ------------------------------------------------------------------------------------------

def _go(where: tuple[str, str], position: int) -> None:
    st.session_state.setdefault("_orphan_at", {})[where] = position


def _remember(here: tuple[str, str, int]) -> dict:
    """Copy the answer widgets aside: a run that cannot draw them (store down) must not lose them."""
    ticks = {q.key: bool(st.session_state.get(QUESTION_KEYS[q.key])) for q in QUESTIONS}
    st.session_state.setdefault("_orphan_ticks", {})[here] = {**ticks, "note": st.session_state.get("orphan_note", "")}
    return ticks


def _save(round_id: str, chunk_id: str, position: int, reviewer: str) -> None:
    ticks = _remember((round_id, reviewer, position))
    try:
        # The round's chunks are recorded with its first answer, so progress and trends know its size.
        if store.get_round(round_id) is None:
            store.save_round(review_round, [c.chunk.id for c in chunks])
        store.save_answer(round_id, chunk_id, position, reviewer, note=st.session_state.get("orphan_note", ""),
                          **ticks)
    except (ReviewStoreError, ReviewInputError) as exc:
        st.session_state["_orphan_save_error"] = f"Answer for chunk {position} NOT saved: {exc}"
        return
    words = ", ".join(f"{q.title} {'yes' if ticks[q.key] else 'no'}" for q in QUESTIONS)
    verdict = "an orphan" if not all(ticks.values()) else "not an orphan"
    st.session_state["_orphan_saved"] = f"Saved chunk {position}: {words}, so {verdict}."


def _reveal(item) -> None:
    chunk = item.chunk
    document = ctx.corpus.by_id(chunk.doc_id)
    around = context(chunk, ctx.workspace)
    hints = suspects(chunk, document, ctx.workspace.analysis(document))
    with st.expander("Reveal context and automatic hints", expanded=True):
        path = " › ".join(around.heading_path) or "(no heading above it)"
        st.markdown(md(f"From {around.title} · {document.id} · section: {path}"))
        if hints:
            items = "".join(f"<li><b>{html.escape(HINT_CODES[h.code])}</b>: {html.escape(h.message)}</li>"
                            for h in hints)
            st.html(f'{HINTS_STYLE}<div class="ci-orphan-hints"><b>Automatic hints</b><ul>{items}</ul></div>')
        else:
            st.html(f'{HINTS_STYLE}<div class="ci-orphan-hints">No automatic hint for this chunk.</div>')
        left, right = st.columns(2)
        with left:
            st.html(chunk_card_html(around.previous or "", title="Previous chunk", style=False)
                    if around.previous is not None else '<div class="ci-card-none">First chunk of its document.</div>')
        with right:
            st.html(chunk_card_html(around.next or "", title="Next chunk", style=False)
                    if around.next is not None else '<div class="ci-card-none">Last chunk of its document.</div>')


with review_tab:
    _shared.keep("orphan_reviewer", "")
    name = st.text_input("Your name", key="orphan_reviewer", persist_state="session", max_chars=80,
                         placeholder="e.g. Dana", help="Answers are stored per reviewer; use the same name "
                         "tomorrow to continue where you stopped.")
    problem = reviewer_problem(name)
    if problem:
        st.warning(md(f"To start reviewing, {problem}."))
    else:
        reviewer = name.strip()
        try:
            mine = {a.position: a for a in store.answers(review_round.id, reviewer)}
        except ReviewStoreError as exc:
            mine = None
            st.error(md(f"Your answers cannot be read: {exc}"))
            st.button("Retry", key="orphan_retry_read")
        if mine is not None:
            total = len(chunks)
            done = sum(a.complete for a in mine.values())
            where = (review_round.id, reviewer)
            positions = st.session_state.setdefault("_orphan_at", {})
            if where not in positions:  # first visit today: resume at the first chunk not answered
                positions[where] = next((p for p in range(1, total + 1) if not (p in mine and mine[p].complete)),
                                        total)
            pos = min(max(positions[where], 1), total)
            item = chunks[pos - 1]
            saved = mine.get(pos)
            here = (review_round.id, reviewer, pos)
            unsaved = st.session_state.setdefault("_orphan_ticks", {})  # ticks as last drawn, saved or not
            if last_shown != here:
                seed = unsaved.get(here) or {**{q.key: bool(saved and getattr(saved, q.key)) for q in QUESTIONS},
                                             "note": saved.note if saved else ""}
                for q in QUESTIONS:
                    st.session_state[QUESTION_KEYS[q.key]] = seed[q.key]
                st.session_state["orphan_note"] = seed["note"]

            st.progress(done / total, text=f"**{md(reviewer)}**: {done}/{total} answered in round "
                                           f"`{review_round.label}`")
            if done == total:
                st.success("You have answered every chunk of this round: thank you. See the Results tab; you "
                           "can still go back and change an answer.")
            nav = st.columns([1, 1, 1, 3])
            nav[0].button("← Previous", key="orphan_prev", disabled=pos <= 1, on_click=_go, args=(where, pos - 1),
                          width="stretch")
            nav[1].button("Next →", key="orphan_next", disabled=pos >= total, on_click=_go, args=(where, pos + 1),
                          width="stretch")
            open_positions = [p for p in range(1, total + 1) if not (p in mine and mine[p].complete)]
            nav[2].button("Next unanswered", key="orphan_next_open", disabled=not open_positions, on_click=_go,
                          args=(where, next((p for p in open_positions if p > pos), (open_positions or [pos])[0])),
                          width="stretch")

            card, form = st.columns([3, 2], gap="medium")
            with card:
                st.caption("Exactly what the embedder receives. A highlighted start is the prefix the splitter "
                           "added (heading path, table header). No title, no neighbours: judge it as it is.")
                st.html(chunk_card_html(item.text[len(item.chunk.prefix):], item.chunk.prefix,
                                        title=f"Chunk {pos} of {total}"))
            with form:
                st.markdown("**Tick every statement that is true for this chunk.**  \n"
                            "Ticked means *yes*; unticked means *no*. Any *no* makes it an orphan.")
                for q in QUESTIONS:
                    st.checkbox(f"**{q.title}** — {q.text}", key=QUESTION_KEYS[q.key], on_change=_remember,
                                args=(here,), wrap=True)
                st.text_input("Note (optional)", key="orphan_note", max_chars=2000, on_change=_remember,
                              args=(here,), placeholder="What is missing, or why you hesitated")
                _remember(here)
                st.session_state["_orphan_shown"] = here
                answered = saved is not None and saved.complete
                st.button("Update answer" if answered else "Save answer", key="orphan_save", type="primary",
                          on_click=_save, args=(review_round.id, item.chunk.id, pos, reviewer))
                flash = st.session_state.pop("_orphan_saved", None)
                if flash:
                    st.success(md(flash))
                if not answered:
                    st.caption("Not answered yet: nothing is recorded until you save. The chunk's context and "
                               "automatic hints appear after your answer, so they cannot sway it.")
                elif any(st.session_state[QUESTION_KEYS[q.key]] != getattr(saved, q.key) for q in QUESTIONS):
                    st.caption(md(f"Saved answer: {answer_marks(saved)} (Address · References · Completeness). "
                                  "Your ticks differ: click Update answer to change it."))
            if answered:
                _reveal(item)


# -- results -----------------------------------------------------------------------------------------

def _table(rows: list[dict]) -> None:
    """``st.table`` renders markdown in cells and headers: reviewer names and chunk text are escaped."""
    st.table([{md(k): md(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows])


def _with_opening(rows: list[dict]) -> list[dict]:
    """Verdict rows with the chunk's first words, so a reader knows which chunk a row is about."""
    return [{"Chunk": r["Chunk"], "Starts with": first_words(chunks[r["Chunk"] - 1].text, 10),
             **{k: v for k, v in r.items() if k not in ("Chunk", "Chunk id")}} for r in rows]


def _results() -> None:
    try:
        answers = store.answers(review_round.id)
        rounds = store.rounds(review_round.corpus)
        points = [p for p in trend(rounds, {r.id: store.answers(r.id) for r in rounds}) if p.judged]
        exports = (store.export_csv(review_round.id), store.export_json(review_round.id))
    except ReviewStoreError as exc:
        st.error(md(f"The results cannot be read: {exc}"))
        st.button("Retry", key="orphan_retry_results")
        return
    summary = summarize(answers, round_id=review_round.id, label=review_round.label)
    st.caption(md(f"Round {review_round.label} · answers saved in {store.path}"))
    if not summary.reviewers:
        st.info("No complete answer in this round yet. Answers appear here as reviewers save them.")
    else:
        judged, kappa = len(summary.chunks), summary.kappa
        cols = st.columns(3)
        cols[0].metric("Reviewers", len(summary.reviewers))
        cols[1].metric("Orphans by majority", f"{summary.consensus_orphans} of {judged}",
                       help="Chunks most reviewers call orphans, of the chunks anyone answered "
                            "(a tie is not a majority).")
        cols[2].metric("Agreement (Fleiss' κ)", "n/a" if kappa.value is None else f"{kappa.value:.2f}",
                       help="On the orphan verdict: 1 = full agreement, 0 = no better than chance, below 0 = worse.")
        if kappa.value is None:
            st.caption(f"Agreement: {kappa.note}.")
        else:
            st.caption(f"Agreement: {kappa_reading(kappa.value)}, over the {kappa.chunks} chunks every reviewer "
                       f"answered ({kappa.left_out} answered by only some are left out). Per question: " + " · ".join(
                           f"{q.title} " + ("n/a" if (v := summary.kappa_by_question[q.key].value) is None
                                            else f"{v:.2f}") for q in QUESTIONS) + ".")

        st.subheader("Per reviewer")
        _table([{"Reviewer": t.reviewer, "Orphans": f"{t.orphans} of {t.judged}", "Orphan rate": f"{t.orphan_rate:.0%}",
                 **{f"No on {q.title}": f"{t.noes[q.key]} of {t.judged}" for q in QUESTIONS}}
                for t in summary.reviewers])
        st.subheader(f"Where reviewers disagree ({len(summary.disagreements)})")
        if summary.disagreements:
            st.caption("Some call these chunks orphans and some do not: discuss them first. Each reviewer's "
                       "answers read Address · References · Completeness.")
            _table(_with_opening(verdict_rows(summary, answers, disagreements_only=True)))
        else:
            st.caption("Disagreements need answers from two or more reviewers." if len(summary.reviewers) < 2
                       else "No disagreement on the chunks answered so far.")
        with st.expander(f"Consensus on every answered chunk ({judged})"):
            st.dataframe(_with_opening(verdict_rows(summary, answers)), hide_index=True)

    st.subheader("Orphan rate across rounds on this corpus")
    if points:
        figure = go.Figure(go.Bar(x=[f"{n}. {p.label}" for n, p in enumerate(points, 1)],
                                  y=[p.orphan_rate for p in points], width=[0.5] * len(points),
                                  text=[f"{p.orphans}/{p.judged}" for p in points], textposition="outside",
                                  marker_color="#b3261e"))
        figure.update_layout(yaxis_title="orphan rate (all reviewers)", yaxis_tickformat=".0%",
                             yaxis_range=[0, 1.1], height=320, margin=dict(t=20, b=40))
        st.plotly_chart(figure, key="orphan_trend")
        st.caption("One bar per round, oldest first: the share of answers with at least one no. A lower bar "
                   "after changing the splitter means fewer orphans.")
    else:
        st.caption("No round on this corpus has answers yet.")
    cols = st.columns(4)
    name = f"orphan-{review_round.id}"
    cols[0].download_button("Answers (CSV)", exports[0], f"{name}-answers.csv", "text/csv",
                            key="orphan_dl_answers_csv", on_click="ignore")
    cols[1].download_button("Answers (JSON)", exports[1], f"{name}-answers.json", "application/json",
                            key="orphan_dl_answers_json", on_click="ignore")
    cols[2].download_button("Consensus per chunk (CSV)", summary_csv(summary), f"{name}-consensus.csv", "text/csv",
                            key="orphan_dl_consensus", on_click="ignore")
    cols[3].download_button("Results (JSON)", to_json(summary), f"{name}-results.json", "application/json",
                            key="orphan_dl_results", on_click="ignore")


with results_tab:
    _results()
