"""Fixes page: the article's five fixes, cheapest first, measured one by one on this corpus."""

import streamlit as st

from app_pages.imports.caches import chosen_golden
from app_pages.parts import offload, shared
from app_pages.parts.access import upload_closed
from app_pages.parts.context import session_id
from app_pages.parts.paid import PaidRun, offer
from app_pages.parts.retriever import ranking, retriever_picker
from app_pages.parts.tables import SoFar, data_table
from inspector.context import import_lines, plan_key, write_lines
from inspector.csv_cells import frame_csv
from inspector.errors import ContextLineError, ImportChunksError
from inspector.limits import MAX_CHUNK_FILE_BYTES
from inspector.reports import FixesTable, fix_specs, fix_steps, measure_step
from inspector.views import (
    context_step,
    fixes_frame,
    interval_notes,
    is_bound,
    kind_frame,
    main_columns,
    rate_columns,
    steps_verdict,
    with_intervals,
)
from inspector.views import markdown_escape as md

st.title("Fixes, cheapest first")
st.caption("From the sidebar's splitter, one fix at a time: split on structure and repeat table headers, "
           "prefix the heading path, stamp the address (title › path · version · date, from the front "
           "matter), put a written context line first (contextual retrieval), then read each retrieved "
           "chunk with its neighbours. Each row says what the fix buys (answer@5, golden recall, fewer "
           "orphan suspects) and what it costs (chunks, context tokens per query).")
ctx = shared.ready()
if ctx.spec.is_imported or ctx.spec.is_adapter:
    shared.publish()
    st.info("The fixes are measured from a built-in splitter's budget, unit and overlap. Choose one in the "
            "sidebar (imported chunks and other libraries' splitters cannot be re-split with a fix).")
    st.stop()
retriever = retriever_picker()
shared.publish()
state = shared.state()

golden, golden_digest = chosen_golden(ctx, state)
if golden is None:
    st.caption("No golden set: the recall columns are left out. Load one on the Import page to add them.")

LINES_FROM = "context_lines_from"
step = context_step(ctx.workspace, ctx.spec, lines_from=st.session_state.get(LINES_FROM, ""))
stamped = fix_specs(ctx.spec, mode=ctx.workspace.mode)["address"]
with st.expander("Context lines" + (f" from {step.model}" if step.model else ": not set up on this server"),
                 expanded=bool(step.plan and step.plan.jobs)):
    if step.problem:
        st.markdown(md(f"The context step is left out: {step.problem}."))
    claim = plan_key(step.model, ctx.corpus.fingerprint, str(stamped))
    busy = ctx.workspace.context_store.writing(claim) if step.plan and step.plan.jobs and step.endpoint else None
    if busy is not None and busy.holder != session_id():
        st.info(md(f"Another session is writing these lines: {busy.done:,} of {busy.total:,} so far. They are "
                   "kept as they come; nothing is sent twice."))
        st.button("Refresh", key="refresh_context")
    elif step.plan and step.plan.jobs and step.endpoint:
        plan, endpoint = step.plan, step.endpoint
        run = offer(ctx, PaidRun(
            step.model, plan.summary, len(plan.jobs), plan.input_tokens, f"Write {len(plan.jobs):,} context lines",
            "write_context", "Writing context lines…",
            lambda progress: write_lines(plan, ctx.workspace.documents, endpoint, ctx.workspace.context_store,
                                         progress, claim=claim, holder=session_id()),
            lambda run: {"lines": run.written, "failures": len(run.failures)}))
        if run is not None:
            st.success(f"Wrote {run.written:,} context lines.")
            for failure in run.failures[:20]:
                st.warning(md(f"{failure.doc_id} {failure.span[0]}–{failure.span[1]}: {failure.reason}"))
            if run.not_sent:
                st.warning(f"Stopped after {len(run.failures)} failures in a row; {run.not_sent:,} chunks "
                           "not sent.")
            step = context_step(ctx.workspace, ctx.spec)
    elif step.plan and not step.plan.jobs:
        st.markdown(md(f"Every chunk of {stamped} has a line from {step.model}."))
    if st.session_state.get(LINES_FROM):
        st.button(f"Stop using the lines imported as {st.session_state[LINES_FROM]}", key="forget_context",
                  on_click=lambda: st.session_state.pop(LINES_FROM, None))
    closed = upload_closed(ctx)
    upload = st.file_uploader("Or import lines written elsewhere (JSON Lines: chunk_id from an export of "
                              f"{stamped}, or doc_id, start and end; and line)", type=["jsonl", "json"],
                              disabled=bool(closed),
                              key="context_upload", max_upload_size=MAX_CHUNK_FILE_BYTES // 1_000_000)
    name = st.text_input("Keep them under the name", value="imported", key="context_name", max_chars=60)
    if upload is not None and st.button("Keep these lines", key="import_context"):
        try:
            kept = import_lines(upload.getvalue(), ctx.workspace.documents, ctx.workspace.chunks(stamped),
                                ctx.workspace.context_store, name.strip() or "imported")
        except (ContextLineError, ImportChunksError) as exc:
            st.error(md(str(exc)))
        else:
            st.session_state[LINES_FROM] = kept.name
            st.success(f"Kept {kept.stored:,} lines under {kept.name}"
                       + (f" ({kept.unmatched:,} match no chunk of {stamped})." if kept.unmatched else "."))
            for line, reason in kept.problems[:20]:
                st.warning(md(f"line {line}: {reason}"))
            step = context_step(ctx.workspace, ctx.spec, lines_from=kept.name)


@st.cache_data(max_entries=256, show_spinner=False)
def _row(fingerprint: str, mode: str, name: str, spec: str, expand: int, golden_key: str,
         retriever: str, _step, _golden, _ctx):
    # One step per call, so the steps measured so far are shown while the next is measured.
    return offload.run(_ctx, "fix_step", _step, _golden, retriever)


steps = fix_steps(ctx.workspace, ctx.spec, context_model=step.model, context_problem=step.problem, retriever=retriever)
with ranking(retriever, ctx, fix_specs(ctx.spec, mode=ctx.workspace.mode).values()):
    bar = st.progress(0.0, text="Measuring each fix…")
    so_far = SoFar("steps", len(steps), ("step", "spec", "chunks", "ctx tokens", "answer@5", "cut"),
                   ("answer@5", "cut"))
    rows = []
    for done, planned in enumerate(steps):
        bar.progress(done / len(steps), text=f"Measuring {planned.spec} ({done + 1}/{len(steps)})…")
        rows.append(measure_step(ctx.workspace, planned) if planned.omitted else  # nothing to measure
                    _row(ctx.corpus.fingerprint, state.mode, planned.step, str(planned.spec), planned.expand,
                         golden_digest, retriever, planned, golden, ctx))
        so_far.add(fixes_frame(FixesTable.of(ctx.spec, retriever, golden, rows[-1:])))
    bar.empty()
    so_far.clear()
    table = FixesTable.of(ctx.spec, retriever, golden, rows)
    frame = fixes_frame(table)
    rates = rate_columns(frame)
    percent = {c: st.column_config.NumberColumn(c, format="percent") for c in rates}
    data_table(with_intervals(main_columns(frame), rates), column_config=percent, key="fixes_table",
               notes=interval_notes(main_columns(frame), rates, label="step",
                                    counted={c: "queries" if c in ("answer@5", "cut") else "questions"
                                             for c in rates},
                                    method="Wilson's, each query or question one trial"))
    st.caption(md(steps_verdict(table)))
    for row in table.rows:
        if row.omitted:
            st.caption(md(f"{row.label} ({row.spec}) not measured: {row.omitted}"))
    kinds = kind_frame(table)
    if not kinds.empty:
        st.subheader("Golden recall by boundary kind")
        st.caption("Each step's recall on the questions whose evidence straddles each kind of boundary, at each "
                   "context budget; a dash where a step has no such question.")
        by_budget = [c for c in kinds.columns if c.startswith("recall@") and not is_bound(c)]
        data_table(with_intervals(kinds, by_budget), key="fixes_kinds",
                   notes=interval_notes(kinds.assign(setting=kinds["step"] + ", " + kinds["kind"]), by_budget,
                                        label="setting", counted="questions",
                                        method="Wilson's, each question one trial"),
                   column_config={c: st.column_config.NumberColumn(c, format="percent") for c in by_budget})
    st.download_button("Download the fixes (CSV)", frame_csv(frame), "fixes.csv", "text/csv",
                       key="download_fixes", on_click="ignore")
