"""The Orphan Test's Results: a chat model as one more reviewer, calibrated against the team. Not a
page.

The model is the server's chat endpoint (``CHUNK_INSPECTOR_CONTEXT_URL`` and ``_MODEL``). What
asking it would send is shown first, priced at the server's prices; only an admin's click sends
it, within the server's allowances, and every answer is kept, so nothing is asked twice. With
its agreement known, the model can answer more chunks drawn by the round's definition (another
seed): the corpus's orphan rate, with its interval.
"""

from __future__ import annotations

import streamlit as st

from app_pages.parts.paid import PaidRun, offer
from inspector.context import ChatEndpoint
from inspector.errors import ContextLineError, ReviewInputError, ReviewStoreError
from inspector.review import (
    MAX_SIZE,
    ModelAnswers,
    ask_model,
    calibrate,
    estimate,
    plan_review,
    sampled_chunks,
    summarize,
)
from inspector.views import markdown_escape as md


def model_reviewer(ctx, store, review_round, chunks) -> None:
    """The model's answers on the round's chunks against the team's majority, its estimate over
    more chunks of the corpus, and the button that asks for the missing ones."""
    with st.expander("A chat model as one more reviewer"):
        try:
            endpoint = ChatEndpoint.from_settings()
        except ContextLineError as exc:
            st.caption(md(f"Not set up on this server: {exc}."))
            return
        more = st.number_input("More chunks for the corpus's orphan rate", min_value=0, max_value=MAX_SIZE,
                               value=0, step=50, key="orphan_model_sample",
                               help="Drawn by this round's definition with the next seed, none of the round's "
                                    "own; the model answers them and its agreement with the team says how far "
                                    "to trust the rate.")
        search = ctx.launch.store_search and ctx.launch.store_search.on(ctx.workspace)
        try:
            sample = sampled_chunks(review_round, ctx.workspace, int(more), search) if more else []
        except ReviewInputError as exc:
            st.warning(md(str(exc)))
            sample = []
        kept = ModelAnswers(ctx.launch.data_path)
        plan = plan_review([c.text for c in [*chunks, *sample]], endpoint.model, kept)
        if plan.to_ask:
            failures = offer(ctx, PaidRun(
                endpoint.model, plan.summary, len(plan.to_ask), plan.input_tokens,
                f"Ask {endpoint.model} about {len(plan.to_ask):,} chunks", "orphan_ask_model",
                f"Asking {endpoint.model}…", lambda progress: ask_model(plan, endpoint, kept, progress),
                lambda failures: {"failures": len(failures)}))
            for failure in (failures or [])[:20]:
                st.warning(md(failure))
        try:
            summary = summarize(store.answers(review_round.id), round_id=review_round.id)
        except ReviewStoreError as exc:
            st.error(md(f"The team's answers cannot be read: {exc}"))
            return
        answers = kept.get(endpoint.model, plan.texts)
        if not answers:
            st.caption(md(f"{endpoint.model} has answered none of this round's chunks yet."))
            return
        c = calibrate(endpoint.model, chunks, answers, summary)
        cols = st.columns(3)
        cols[0].metric("Reviewer", f"model: {endpoint.model}")
        cols[1].metric("Cohen's κ against the team's majority", c.kappa_said)
        cols[2].metric("Same verdict", "n/a" if c.agreement is None else f"{c.agreement:.0%} of {c.compared}")
        st.caption(md(f"Per question, the team's majority shared: {c.per_question_said}. Ties are left out; the "
                      "model's answers do not count in the team's figures."))
        if c.unanswered:
            st.warning(md(c.unanswered_said(limit=20)))
        if sample:
            st.markdown(estimate(sample, answers).said(review_round.seed + 1, c))  # numbers only: nothing to escape
