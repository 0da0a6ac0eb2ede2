"""A run that costs money, offered the same way wherever a page offers one: what it sends and
what that costs at the server's prices, why it is refused (the server's allowances, the
visitor's role), else one button; on the click, the run with its progress. Not a page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import streamlit as st

from app_pages.parts.access import audit, refused
from app_pages.parts.context import session_id
from inspector.access import Action
from inspector.errors import ContextLineError, SpendRefused
from inspector.retrieval import installed
from inspector.views import markdown_escape as md

Result = TypeVar("Result")
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class PaidRun(Generic[Result]):
    """One paid run a page offers."""

    model: str
    summary: Callable[[float | None, float | None], str]
    """The plan in a sentence, given the model's input and output prices (None: not priced)."""

    requests: int
    input_tokens: int
    label: str
    """The button's label."""

    key: str
    """The button's widget key."""

    doing: str
    """What the progress bar says while it runs, e.g. "Writing context lines…"."""

    send: Callable[[Progress], Result]
    """Runs it, reporting (done, total)."""

    outcome: Callable[[Result], dict] = lambda result: {}
    """What the audit trail records of a result, beside the model and the requests."""


def offer(ctx, run: PaidRun[Result]) -> Result | None:
    """Offer ``run``; its result once this run's click sent it (None otherwise, said why when refused
    or stopped). Each sent run is in the audit trail as a paid run."""
    price = ctx.launch.spend.price(run.model)
    st.markdown(md(run.summary(*((price.input, price.output) if price else (None, None))) + "."))
    ledger = installed()
    refusal = (ledger.over(run.requests, run.input_tokens, session_id()) if ledger else "") \
        or refused(ctx, Action.SPEND)
    if refusal:
        st.warning(md(f"Not sent: {refusal}."))
        return None
    if not st.button(run.label, key=run.key):
        return None
    bar = st.progress(0.0, text=run.doing)
    try:
        result = run.send(lambda done, total: bar.progress(done / total, text=f"{done:,} of {total:,}"))
    except (ContextLineError, SpendRefused) as exc:
        st.error(md(str(exc)))
        return None
    bar.empty()
    audit(ctx, "paid run", model=run.model, requests=run.requests, **run.outcome(result))
    return result
