"""``context``: write (or import) the context lines ``+context`` specs put before their chunks,
and what ``report``, ``check`` and ``export`` need before they use such a spec."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from ..errors import ArgumentRefused
from ..spec import parse_spec
from .config import ContextOptions, RunConfig
from .opening import Run, load
from .output import ProgressBar, confirmed


def context_ready(workspace, specs) -> str | None:
    """Why the ``+context`` specs among ``specs`` cannot be measured (lines missing), or None."""
    wanted = [s for s in specs if s.context]
    if not wanted:
        return None
    for spec in wanted:
        have, chunks = workspace.context_coverage(spec)
        if have < chunks:
            return (f"{chunks - have:,} of {chunks:,} chunks of {spec.base} have no context line from "
                    f"{spec.context_model}: write them with `chunk-inspector context CORPUS --spec {spec}` "
                    "(it shows what they cost first), or import lines with `context CORPUS --spec SPEC --import FILE`")
    return None


def run_context(run: Run[ContextOptions]) -> int:
    from ..context.store import ContextStore
    from ..context.writer import ChatEndpoint, plan_key, plan_lines, write_lines

    config = run.config
    options: ContextOptions = config.options
    spec = parse_spec(config.specs[0] if config.specs else None)
    if spec.is_imported or spec.is_adapter:
        raise ArgumentRefused("context lines are written for the built-in splitters' chunks")
    base = spec.base
    if base.needs_answers and options.import_file:
        raise ArgumentRefused("--import keeps context lines; an llm chunker's cuts are written by its model")
    model = (spec.options.answered_by or spec.context_model or (options.import_file and options.name)
             or options.given_model)
    endpoint = None
    if options.dry_run and not options.import_file:  # a dry run sends nothing: it needs a model, not an endpoint
        model = model or config.context_model
        if not model:
            raise ArgumentRefused("a dry run prices the lines of a model: give --context-model MODEL (or ;llm=MODEL)")
    elif not options.import_file:
        endpoint = ChatEndpoint.from_settings(options.context_url, model)  # refused here, before any work
        model = endpoint.model
    elif not model:
        raise ArgumentRefused("--import keeps lines under a name: give --name NAME (then use +context;llm=NAME)")
    loaded = load(run)
    corpus, workspace = loaded
    if base.needs_answers:
        status = _write_cuts(workspace, base, options, endpoint, config, spec.context)
        if status is not None or not spec.context:
            return status or 0
    store = ContextStore(config.services.data)
    results = workspace.split(base)
    if options.import_file:
        from ..context.lines_file import import_lines

        imported = import_lines(options.import_file, workspace.documents, workspace.chunks(base), store, model)
        for line, reason in imported.problems:
            sys.stderr.write(f"{options.import_file}:{line}: {reason}\n")
        sys.stdout.write(f"kept {imported.stored:,} context lines under {model}"
                         + (f" ({imported.unmatched:,} of them match no chunk of {base})" if imported.unmatched
                            else "") + f"; measure them as {replace(base, context=True, context_model=model)}\n")
        return 0 if imported.stored else 1
    plan = plan_lines(workspace.documents, [r.spans for r in results], store, model)
    sys.stdout.write(f"{base} on {config.corpus.path}: {plan.summary(options.input_price, options.output_price)}\n")
    if options.dry_run or not plan.jobs:
        return 0
    if not confirmed(options.yes, len(plan.jobs)):
        return 1
    bar = ProgressBar(enabled=sys.stderr.isatty())
    run = write_lines(plan, workspace.documents, endpoint, store, lambda done, total: bar("lines written", done, total),
                      claim=plan_key(model, corpus.fingerprint, str(base)), holder=f"command line {os.getpid()}")
    for failure in run.failures:
        sys.stderr.write(f"{failure.doc_id} {failure.span[0]}–{failure.span[1]}: {failure.reason}\n")
    sys.stdout.write(f"wrote {run.written:,} context lines with {model}"
                     + (f"; {len(run.failures):,} chunk{'s' * (len(run.failures) != 1)} failed"
                        if run.failures else "")
                     + (f"; stopped after {len(run.failures)} failures, {run.not_sent:,} chunks not sent"
                        if run.not_sent else "") + "\n")
    return 1 if run.failures else 0


def _write_cuts(workspace, spec, options: ContextOptions, endpoint, config: RunConfig, lines: bool) -> int | None:
    """Plan, confirm and write the answers that place an llm chunker's cuts: None when every
    one is kept (context lines can be planned next), else the command's exit status."""
    from ..context.splits import plan_splits, write_splits
    from ..split.answers import SplitAnswers

    store = SplitAnswers(config.services.data)
    path = str(config.corpus.path)
    analyses = [workspace.analysis(d) for d in workspace.documents]
    plan = plan_splits(workspace.documents, analyses, spec, store)
    sys.stdout.write(f"{spec} on {path}: {plan.summary(options.input_price, options.output_price)}\n")
    if not plan.jobs:
        return None
    if options.dry_run:
        if lines:
            sys.stdout.write("the context lines are priced once these cuts are written\n")
        return 0
    if not confirmed(options.yes, plan.most, "up to "):
        return 1
    bar = ProgressBar(enabled=sys.stderr.isatty())
    run = write_splits(plan, workspace.documents, analyses, endpoint, store,
                       lambda done, total: bar("documents split", done, total))
    for failure in run.failures:
        sys.stderr.write(f"{failure.doc_id}: {failure.reason}\n")
    sys.stdout.write(f"sent {run.sent:,} prompts to {spec.options.answered_by}; {run.finished:,} of {len(plan.jobs):,} "
                     "documents split" + (f"; stopped after {len(run.failures)} failures, {run.not_sent:,} documents "
                                          "not sent" if run.not_sent else "") + "\n")
    return 1 if run.failures else None
