"""``context``: write (or import) the context lines ``+context`` specs put before their chunks,
and what ``report``, ``check`` and ``export`` need before they use such a spec."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from ..errors import ContextLineError
from ..spec import SplitterSpec, parse_spec
from .common import ProgressBar, fail, load


def with_context_model(spec: SplitterSpec, args: argparse.Namespace) -> SplitterSpec:
    """A ``+context`` spec with its model named: the spec's own ``;llm=``, else
    ``--context-model``, else ``$CHUNK_INSPECTOR_CONTEXT_MODEL``."""
    if not spec.context or spec.context_model:
        return spec
    from ..context.writer import ENV_MODEL, SETTINGS_HELP  # with an HTTP client: imported when needed

    model = (getattr(args, "context_model", None) or os.environ.get(ENV_MODEL, "")).strip()
    if not model:
        raise ContextLineError(f"{spec} needs the model that wrote its lines: add ;llm=MODEL, or " + SETTINGS_HELP)
    return replace(spec, context_model=model)


def fixes_context_model(spec: SplitterSpec, args: argparse.Namespace) -> str:
    """The model whose lines the fixes table's context step uses: the spec's ``;llm=``, else
    ``--context-model``, else ``$CHUNK_INSPECTOR_CONTEXT_MODEL``; empty (the step omitted) when none."""
    from ..context.writer import ENV_MODEL

    return spec.context_model or (getattr(args, "context_model", None) or os.environ.get(ENV_MODEL, "")).strip()


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
                    f"{spec.context_model}: write them with `python -m inspector context CORPUS --spec {spec}` "
                    "(it shows what they cost first), or import lines with `context CORPUS --spec SPEC --import FILE`")
    return None


def run_context(args: argparse.Namespace) -> int:
    from ..context.store import ContextStore
    from ..context.writer import ENV_MODEL, ChatEndpoint, plan_key, plan_lines, write_lines
    from ..data_folder import data_folder

    spec = parse_spec(args.spec)
    if spec.is_imported or spec.is_adapter:
        return fail("context lines are written for the built-in splitters' chunks")
    base = spec.base
    model = spec.context_model or (args.import_file and args.name) or args.context_model
    endpoint = None
    if args.dry_run and not args.import_file:  # a dry run sends nothing: it needs a model, not an endpoint
        model = model or os.environ.get(ENV_MODEL, "").strip()
        if not model:
            return fail("a dry run prices the lines of a model: give --context-model MODEL (or ;llm=MODEL)")
    elif not args.import_file:
        endpoint = ChatEndpoint.from_settings(args.context_url, model)  # refused here, before any work
        model = endpoint.model
    elif not model:
        return fail("--import keeps lines under a name: give --name NAME (then use +context;llm=NAME)")
    loaded = load(args)
    if isinstance(loaded, int):
        return loaded
    corpus, workspace = loaded
    store = ContextStore(data_folder())
    results = workspace.split(base)
    if args.import_file:
        from ..context.lines_file import import_lines

        imported = import_lines(args.import_file, workspace.documents, workspace.chunks(base), store, model)
        for line, reason in imported.problems:
            sys.stderr.write(f"{args.import_file}:{line}: {reason}\n")
        sys.stdout.write(f"kept {imported.stored:,} context lines under {model}"
                         + (f" ({imported.unmatched:,} of them match no chunk of {base})" if imported.unmatched
                            else "") + f"; measure them as {replace(base, context=True, context_model=model)}\n")
        return 0 if imported.stored else 1
    plan = plan_lines(workspace.documents, [r.spans for r in results], store, model)
    sys.stdout.write(f"{base} on {args.corpus}: {plan.summary(args.input_price, args.output_price)}\n")
    if args.dry_run or not plan.jobs:
        return 0
    if not _confirmed(args, plan):
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


def _confirmed(args: argparse.Namespace, plan) -> bool:
    """Whether to send the plan printed above: ``--yes``, or an answer on a terminal. Without a
    terminal and without ``--yes`` nothing is sent (exit status 1)."""
    if args.yes:
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
