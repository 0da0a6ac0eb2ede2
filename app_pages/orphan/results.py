"""The Orphan Test's Results tab: the round's orphan rate per reviewer, where reviewers disagree,
their agreement (Fleiss' kappa), the trend across rounds on the corpus, and downloads. Not a page.
"""

import time

import streamlit as st

from app_pages.parts.access import audit, current, signing_in
from app_pages.parts.tables import data_table
from inspector.access import Action
from inspector.errors import ReviewStoreError
from inspector.review import (
    QUESTIONS,
    answer_history,
    answer_marks,
    kappa_reading,
    round_report,
    summarize,
    summary_csv,
    to_json,
    trend,
    verdict_rows,
)
from inspector.views import first_words, orphan_trend_figure
from inspector.views import markdown_escape as md


def _table(rows: list[dict]) -> None:
    """``st.table`` renders markdown in cells and headers: reviewer names and chunk text are escaped."""
    st.table([{md(k): md(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows])


def _with_opening(rows: list[dict], chunks) -> list[dict]:
    """Verdict rows with the chunk's first words, so a reader knows which chunk a row is about."""
    return [{"Chunk": r["Chunk"], "Starts with": first_words(chunks[r["Chunk"] - 1].text, 10),
             **{k: v for k, v in r.items() if k not in ("Chunk", "Chunk id")}} for r in rows]


#: Seconds between two readings of the store while the Results tab is open: other reviewers'
#: answers appear without anyone reloading the page.
EVERY = 5


@st.fragment(run_every=EVERY)
def show_results(store, review_round, chunks) -> None:
    """The Results tab of ``review_round``, read from ``store`` again every ``EVERY`` seconds;
    ``chunks`` are the round's."""
    try:
        answers = store.answers(review_round.id)
        rounds = store.rounds(review_round.corpus)
        points = [p for p in trend(rounds, {r.id: store.answers(r.id) for r in rounds}) if p.judged]
        exports = (store.export_csv(review_round.id), store.export_json(review_round.id))
        stored = store.get_round(review_round.id)
        history = answer_history(store.history(review_round.id))
    except ReviewStoreError as exc:
        st.error(md(f"The results cannot be read: {exc}"))
        st.button("Retry", key="orphan_retry_results")
        return
    summary = summarize(answers, round_id=review_round.id, label=review_round.label)
    read = time.strftime("%H:%M:%S", time.localtime())
    st.caption(md(f"Round {review_round.label} · answers saved in {store.path} · read at {read}, and again every "
                  f"{EVERY} seconds, so other reviewers' answers appear as they save them"))
    if not summary.reviewers:
        st.info("No complete answer in this round yet. Answers appear here as reviewers save them.")
    else:
        judged, kappa = len(summary.chunks), summary.kappa
        cols = st.columns(4)
        cols[0].metric("Reviewers", len(summary.reviewers))
        cols[1].metric("Orphan chunks, by majority", f"{summary.consensus_orphans} of {judged}",
                       help="Chunks most reviewers call orphans, of the chunks anyone answered "
                            "(a tie is not a majority).")
        cols[2].metric("Orphan answers, all reviewers", f"{summary.orphan_answers} of {summary.answers}",
                       help="Every reviewer's answers pooled: a chunk read by two reviewers counts twice. The "
                            "trend below charts this share, round by round.")
        cols[3].metric("Agreement (Fleiss' κ)", "n/a" if kappa.value is None else f"{kappa.value:.2f}",
                       help="On the orphan verdict: 1 = full agreement, 0 = no better than chance, below 0 = worse.")
        if kappa.value is None:
            st.caption(f"Agreement: {kappa.note}.")
        else:
            st.caption(f"Agreement: {kappa_reading(kappa.value)}, over the {kappa.chunks} chunks every reviewer "
                       f"answered ({kappa.left_out} answered by only some are left out). Per question: " + " · ".join(
                           f"{q.title} " + ("n/a" if (v := summary.kappa_by_question[q.key].value) is None
                                            else f"{v:.2f}") for q in QUESTIONS) + ".")

        st.subheader("Per reviewer")
        _table([{"Reviewer": _named(t.reviewer), "Orphans": f"{t.orphans} of {t.judged}",
                 "Orphan rate": f"{t.orphan_rate:.0%}",
                 **{f"No on {q.title}": f"{t.noes[q.key]} of {t.judged}" for q in QUESTIONS}}
                for t in summary.reviewers])
        st.subheader(f"Where reviewers disagree ({len(summary.disagreements)})")
        if summary.disagreements:
            st.caption("Some call these chunks orphans and some do not: discuss them first. Each reviewer's "
                       "answers read Address · References · Completeness.")
            _table(_with_opening(verdict_rows(summary, answers, disagreements_only=True), chunks))
        else:
            st.caption("Disagreements need answers from two or more reviewers." if len(summary.reviewers) < 2
                       else "No disagreement on the chunks answered so far.")
        with st.expander(f"Consensus on every answered chunk ({judged})"):
            data_table(_with_opening(verdict_rows(summary, answers), chunks))
        with st.expander(f"Changed answers ({len(history.changes)})"):
            st.caption(md(f"Every save is kept: a reviewer who changed their mind shows here, the latest answer "
                          f"counts. {history.repeated} save{'s' * (history.repeated != 1)} repeated the answer "
                          "already saved."))
            if history.changes:
                _table([{"Reviewer": _named(c.after.reviewer), "Chunk": c.after.position, "Was": answer_marks(c.before),
                         "Now": answer_marks(c.after), "Changed at": c.after.updated[:19].replace("T", " ") + " UTC"}
                        for c in history.changes])

    st.subheader("Orphan rate across rounds on this corpus")
    if points:
        st.plotly_chart(orphan_trend_figure(points), key="orphan_trend")
        st.caption("One bar per round, oldest first: the share of every reviewer's answers with at least one "
                   "no (*Orphan answers, all reviewers* above, for this round). A lower bar after changing the "
                   "splitter means fewer orphans.")
    else:
        st.caption("No round on this corpus has answers yet.")
    cols = st.columns(5)
    name = f"orphan-{review_round.id}"
    if stored is not None:
        report = round_report(stored, answers, texts={c.chunk.id: c.text for c in chunks}, history=history)
        cols[4].download_button("Round report (Markdown)", report.markdown(), f"{name}-report.md", "text/markdown",
                                key="orphan_dl_report", on_click="ignore",
                                help="The round, its link, reviewers, orphan rate with its interval, each question, "
                                     "agreement and the disagreements with their text: to paste or attach.")
    cols[0].download_button("Answers (CSV)", exports[0], f"{name}-answers.csv", "text/csv",
                            key="orphan_dl_answers_csv", on_click="ignore")
    cols[1].download_button("Answers (JSON)", exports[1], f"{name}-answers.json", "application/json",
                            key="orphan_dl_answers_json", on_click="ignore")
    cols[2].download_button("Consensus per chunk (CSV)", summary_csv(summary), f"{name}-consensus.csv", "text/csv",
                            key="orphan_dl_consensus", on_click="ignore")
    cols[3].download_button("Results (JSON)", to_json(summary), f"{name}-results.json", "application/json",
                            key="orphan_dl_results", on_click="ignore")


def _named(reviewer: str) -> str:
    """A reviewer as the Results tab names them: where people sign in, a typed name (one without
    @, which only the provider's addresses hold) is marked as such."""
    return f"{reviewer} (not signed in)" if signing_in() and "@" not in reviewer else reviewer


def delete_widgets(ctx, store, review_round) -> None:
    """Deleting the round and its answers, for whom the server lets delete (said and audited)."""
    if not current(ctx).allows(Action.DELETE):
        return
    with st.expander("Delete this round"):
        st.caption("Removes the round and every reviewer's answers to it from this server. Its link opens it "
                   "again, empty.")
        sure = st.checkbox(f"Yes, delete round {review_round.label} and its answers", key="orphan_delete_sure")
        if st.button("Delete", key="orphan_delete", disabled=not sure, type="primary"):
            try:
                gone = store.delete_round(review_round.id)
            except ReviewStoreError as exc:
                st.error(md(f"The round was not deleted: {exc}"))
                return
            audit(ctx, "delete round", round=review_round.id, label=review_round.label, answers=gone)
            st.success(md(f"Deleted round {review_round.label} and its {gone} answers."))
