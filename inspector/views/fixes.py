"""What the Fixes page shows, computed without Streamlit: the fixes table as a DataFrame, and
where its context step stands (an endpoint to write lines with, what writing them costs)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from ..context.writer import ChatEndpoint, ContextPlan, plan_lines
from ..errors import ContextLineError
from ..measure.workspace import Workspace
from ..reports.fixes_table import FixesTable, fix_specs, steps_sentence
from .intervals import bound_values, is_bound


def fixes_frame(table: FixesTable) -> pd.DataFrame:
    """Every column of the table, one row per step (fractions from 0 to 1), each rate's 95%
    interval in its ``bound_columns``; an omitted step keeps its reason in ``omitted``. What the
    download holds; the page shows it as ``main_columns`` and ``kind_columns``."""
    kinds = sorted({k for row in table.rows for k in row.by_kind})
    rows = []
    for row in table.rows:
        out = {"step": row.label, "spec": row.spec, "omitted": row.omitted}
        if not row.omitted:
            bounds = row.intervals
            out.update({"chunks": row.chunks, "ctx tokens": round(row.ctx_tokens, 1), "answer@5": row.answer,
                        "cut": row.cut, **{f"recall@{b}": v for b, v in row.recall.items()},
                        **{f"{k} @{b}": row.by_kind.get(k, {}).get(b) for k in kinds for b in table.budgets},
                        "orphan suspects": row.suspects,
                        **bound_values({"answer@5": bounds["answer_at_5"], "cut": bounds["cut"],
                                        **{f"recall@{b}": bounds["recall"][str(b)] for b in row.recall},
                                        **{f"{k} @{b}": bounds["recall_by_kind"].get(k, {}).get(str(b))
                                           for k in kinds for b in table.budgets if "recall_by_kind" in bounds}})})
        rows.append(out)
    return pd.DataFrame(rows)


def _is_kind_column(column: str) -> bool:
    return " @" in column


def main_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The page's table: what each step costs and buys over all questions (per kind recall is
    ``kind_frame``'s, and why a step was omitted is said below the table: neither widens it)."""
    return frame[[c for c in frame.columns if c != "omitted" and not _is_kind_column(c)]]


def kind_frame(table: FixesTable) -> pd.DataFrame:
    """Golden recall per boundary kind, one row per measured step and kind, a column per budget
    with its 95% interval in its ``bound_columns`` (empty without a golden set)."""
    rows = []
    for row in table.rows:
        bounds = row.intervals.get("recall_by_kind", {}) if not row.omitted else {}
        for kind in sorted(row.by_kind):
            recall = row.by_kind[kind]
            rows.append({"step": row.label, "kind": kind, **{f"recall@{b}": recall.get(b) for b in table.budgets},
                         **bound_values({f"recall@{b}": bounds.get(kind, {}).get(str(b)) for b in table.budgets})})
    return pd.DataFrame(rows)


def rate_columns(frame: pd.DataFrame) -> list[str]:
    """The columns of ``fixes_frame`` that hold rates (each with its interval)."""
    return [c for c in frame.columns if c in ("answer@5", "cut") or "@" in c and not is_bound(c)]


def steps_verdict(table: FixesTable) -> str:
    """Which steps change answer@5 or recall beyond noise against the step before them."""
    return steps_sentence(table.steps())


@dataclass(frozen=True, slots=True)
class ContextStep:
    """Where the context step stands on this server."""

    endpoint: ChatEndpoint | None
    """The chat endpoint that can write the missing lines (None: none is set, or the lines are
    imported ones, which no endpoint writes)."""

    problem: str
    """Why the step cannot be measured yet (empty when it can)."""

    plan: ContextPlan | None = None
    """The lines still missing, and what writing them sends."""

    model: str = ""
    """Whose lines the step uses: the endpoint's model, or the name imported lines are kept under."""


def context_step(workspace: Workspace, spec, environ: Mapping[str, str] | None = None,
                 lines_from: str = "") -> ContextStep:
    """The context step of ``spec``'s fixes: lines from ``lines_from`` (imported lines' name) or
    else from the environment's endpoint and model, and the plan for the address-stamped chunks'
    missing lines (read from ``workspace.context_store``)."""
    environ = os.environ if environ is None else environ
    endpoint, problem = None, ""
    if not lines_from:
        try:
            endpoint = ChatEndpoint.from_settings(environ=environ)
        except ContextLineError as exc:
            return ContextStep(None, str(exc))
    model = lines_from or endpoint.model
    if workspace.context_store is None:
        return ContextStep(endpoint, "this server keeps no data folder for context lines", model=model)
    stamped = fix_specs(spec, mode=workspace.mode)["address"]
    plan = plan_lines(workspace.documents, [r.spans for r in workspace.split(stamped)], workspace.context_store,
                      model)
    if plan.jobs and endpoint is None:
        problem = (f"{len(plan.jobs):,} of {plan.chunks:,} chunks of {stamped} have no line from {model}, and "
                   "imported lines are not written here")
    return ContextStep(endpoint, problem, plan, model)
