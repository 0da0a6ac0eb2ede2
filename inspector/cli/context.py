"""``context``: write (or import) the context lines ``+context`` specs put before their chunks,
and what ``report``, ``check`` and ``export`` need before they use such a spec."""

from __future__ import annotations

import os
import sys
from dataclasses import replace

from ..spec import parse_spec
from .config import ContextOptions
from .opening import Run, load
from .output import ProgressBar, fail


def context_ready(workspace, specs) -> str | None:
    """Why the ``+context`` specs among ``specs`` cannot be measured (lines missing), or None."""
    wanted = [s for s in specs if s.context]
    if not wanted:
        return None
    from ..context.store import ContextStore
    from ..data_folder import data_folder

    workspace.context_store = ContextStore(data_folder())
    for spec in wanted:
        have, chunks = workspace.context_coverage(spec)
        if have < chunks:
            return (f"{chunks - have:,} of {chunks:,} chunks of {spec.base} have no context line from "
                    f"{spec.context_model}: write them with `chunk-inspector context CORPUS --spec {spec}` "
                    "(it shows what they cost first), or import lines with `context CORPUS --spec SPEC --import FILE`")
    return None


def run_context(run: Run) -> int:
    from ..context.store import ContextStore
    from ..context.writer import ChatEndpoint, plan_key, plan_lines, write_lines
    from ..data_folder import data_folder

    config = run.config
    options: ContextOptions = config.options
    spec = parse_spec(config.specs[0] if config.specs else None)
    if spec.is_imported or spec.is_adapter:
        return fail("context lines are written for the built-in splitters' chunks")
    base = spec.base
    model = spec.context_model or (options.import_file and options.name) or options.given_model
    endpoint = None
    if options.dry_run and not options.import_file:  # a dry run sends nothing: it needs a model, not an endpoint
        model = model or config.context_model
        if not model:
            return fail("a dry run prices the lines of a model: give --context-model MODEL (or ;llm=MODEL)")
    elif not options.import_file:
        endpoint = ChatEndpoint.from_settings(options.context_url, model)  # refused here, before any work
        model = endpoint.model
    elif not model:
        return fail("--import keeps lines under a name: give --name NAME (then use +context;llm=NAME)")
    loaded = load(run)
    if isinstance(loaded, int):
        return loaded
    corpus, workspace = loaded
    store = ContextStore(data_folder())
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
    if not _confirmed(options.yes, plan):
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


def _confirmed(yes: bool, plan) -> bool:
    """Whether to send the plan printed above: ``--yes``, or an answer on a terminal. Without a
    terminal and without ``--yes`` nothing is sent (exit status 1)."""
    if yes:
        return True
    if not sys.stdin.isatty():
        sys.stderr.write(f"nothing sent: {len(plan.jobs):,} requests need --yes when no terminal can confirm "
                         "them (or look first with --dry-run)\n")
        return False
    sys.stderr.write(f"send {len(plan.jobs):,} requests? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer in ("y", "yes"):
        return True
    sys.stderr.write("nothing sent\n")
    return False
