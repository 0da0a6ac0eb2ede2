"""The Orphan Test's Results: a chat model as one more reviewer, calibrated against the team. Not a
page.

The model is the server's chat endpoint (``CHUNK_INSPECTOR_CONTEXT_URL`` and ``_MODEL``). What
asking it would send is shown first, priced at the server's prices; only an admin's click sends
it, within the server's allowances, and every answer is kept, so nothing is asked twice.
"""

from __future__ import annotations

import streamlit as st

from app_pages._access import audit, refused
from app_pages._sidebar import session_id
from inspector.access import Action
from inspector.context import ChatEndpoint
from inspector.data_folder import data_folder
from inspector.errors import ContextLineError, ReviewStoreError, SpendRefused
from inspector.retrieval import installed
from inspector.review import QUESTIONS, ModelAnswers, ask_model, calibrate, kappa_reading, plan_review, summarize
from inspector.views import markdown_escape as md


def model_reviewer(ctx, store, review_round, chunks) -> None:
    """The model's answers on the round's chunks against the team's majority, and the button that
    asks for the missing ones."""
    with st.expander("A chat model as one more reviewer"):
        try:
            endpoint = ChatEndpoint.from_settings()
        except ContextLineError as exc:
            st.caption(md(f"Not set up on this server: {exc}."))
            return
        kept = ModelAnswers(data_folder())
        plan = plan_review([c.text for c in chunks], endpoint.model, kept)
        if plan.to_ask:
            price = ctx.launch.spend.price(endpoint.model)
            st.markdown(md(plan.summary(*((price.input, price.output) if price else ())) + "."))
            ledger = installed()
            refusal = (ledger.over(len(plan.to_ask), plan.input_tokens, session_id()) if ledger else "") \
                or refused(ctx, Action.SPEND)
            if refusal:
                st.caption(md(f"Not sent: {refusal}."))
            elif st.button(f"Ask {endpoint.model} about {len(plan.to_ask):,} chunks", key="orphan_ask_model"):
                bar = st.progress(0.0, text="Asking the model…")
                try:
                    failures = ask_model(plan, endpoint, kept, lambda done, total: bar.progress(
                        done / total, text=f"{done:,} of {total:,}"))
                except SpendRefused as exc:
                    st.error(md(str(exc)))
                    return
                bar.empty()
                audit(ctx, "paid run", model=endpoint.model, requests=len(plan.to_ask), failures=len(failures))
                for failure in failures[:20]:
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
        kappa = "n/a" if c.kappa is None else f"{c.kappa:.2f} ({kappa_reading(c.kappa)})"
        cols = st.columns(3)
        cols[0].metric("Reviewer", f"model: {endpoint.model}")
        cols[1].metric("Cohen's κ against the team's majority", kappa)
        cols[2].metric("Same verdict", "n/a" if c.agreement is None else f"{c.agreement:.0%} of {c.compared}")
        st.caption(md("Per question, the team's majority shared: " + " · ".join(
            f"{q.title} {'n/a' if c.per_question[q.key] is None else f'{c.per_question[q.key]:.0%}'}"
            for q in QUESTIONS) + ". Ties are left out; the model's answers do not count in the team's figures."))
        if c.unanswered:
            st.warning(md(f"No answer on {len(c.unanswered)} chunk{'s' * (len(c.unanswered) != 1)} (counted as "
                          "none, never as a yes): " + "; ".join(f"{p}: {r}" for p, r in c.unanswered[:20]) + "."))
