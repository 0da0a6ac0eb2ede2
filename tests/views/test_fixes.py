"""``inspector.views.fixes``: the Fixes page's table and where its context step stands."""

from __future__ import annotations

import pandas as pd

from inspector import Document, Workspace
from inspector.context.store import ContextStore, document_hash
from inspector.reports import fix_specs, measure_fixes
from inspector.views.fixes import context_step, fixes_frame, rate_columns

DOCS = [Document("a.md", "# A\n\nThe gateway allows 500 requests per minute.\n\n## B\n\nBursts of 50 pass.\n",
                 title="A")]


def test_the_context_step_says_what_is_missing(tmp_path):
    work = Workspace(DOCS)
    assert "neither is set" in context_step(work, "recursive:200", environ={}).problem
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "CHUNK_INSPECTOR_CONTEXT_MODEL": "m"}
    assert "no data folder" in context_step(work, "recursive:200", environ=env).problem
    work.context_store = ContextStore(tmp_path)
    step = context_step(work, "recursive:200", environ=env)
    assert step.problem == "" and step.model == "m" and step.endpoint.model == "m"
    chunks = work.chunks(fix_specs("recursive:200")["address"])
    assert len(step.plan.jobs) == len(chunks)
    imported = context_step(work, "recursive:200", environ=env, lines_from="theirs")
    assert imported.endpoint is None and "imported lines are not written here" in imported.problem
    work.context_store.put("theirs", document_hash(DOCS[0].text), [(*c.span, "x") for c in chunks])
    ready = context_step(work, "recursive:200", environ={}, lines_from="theirs")
    assert ready.problem == "" and ready.plan.jobs == ()


def test_the_frame_has_a_row_per_step_and_keeps_the_reason_of_an_omitted_one():
    frame = fixes_frame(measure_fixes(Workspace(DOCS), "fixed:40"))
    assert list(frame["step"])[-3:] == ["+ context line", "late chunking", "+ neighbours read ±1"]
    assert frame["omitted"].iloc[4] and not frame["omitted"].iloc[0]
    assert {"chunks", "ctx tokens", "answer@5", "cut", "orphan suspects"} <= set(frame.columns)
    assert rate_columns(frame) == ["answer@5", "cut"], "no golden set: no recall columns"
    first = frame.iloc[0]
    assert pd.isna(first["answer@5"]) and pd.isna(first["cut"]), "no figure sentence, no query: no rate, not 0%"
    assert (first["answer@5 low"], first["answer@5 high"]) == (0.0, 1.0), "0 of 0: the interval says nothing"
