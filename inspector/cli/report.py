"""``report``: the article's tables, and the user's golden sets and questions, for a corpus."""

from __future__ import annotations

import argparse
import json
import sys

from ..extras import install_hint
from ..spec import ARTICLE_SPECS, parse_spec
from .common import (
    ProgressBar,
    analysis_store,
    default_jobs,
    engine_of,
    fail,
    golden_set,
    held_anyway,
    log_to_mlflow,
    question_set,
    read_alone,
    read_corpus,
    reading_of,
    retriever_for,
    retriever_spec,
    tracking_ready,
    with_chunk_sets,
)
from .context import context_ready, fixes_context_model, with_context_model
from .stores import asked_of_stores, read_stores, store_addresses, store_labels, store_section

#: The most worker processes ``report --jobs`` starts (each forks a copy of this one).
MAX_JOBS = 64
#: The most budgets one sweep measures (as on the app's Budget sweep page).
MAX_SWEEP_BUDGETS = 24


def run_report(args: argparse.Namespace) -> int:
    specs = [with_context_model(parse_spec(s), args) for s in args.spec] if args.spec else list(ARTICLE_SPECS)
    sweep = with_context_model(parse_spec(args.sweep), args)
    fixes = parse_spec(args.fixes) if args.fixes else None
    if fixes is not None and (fixes.is_imported or fixes.is_adapter):
        return fail("--fixes takes a built-in splitter, e.g. recursive:800")
    context_model = fixes_context_model(fixes, args) if fixes is not None else ""
    budgets = _budgets(args.budgets)
    if isinstance(budgets, str):
        return fail(budgets)
    stores = store_addresses(args)
    if isinstance(stores, str):
        return fail(stores)
    addresses, fields = stores
    for budget in budgets:
        sweep.with_budget(budget)
    if args.engine == "ray":
        from ..engines.ray.session import ray_available

        if not ray_available():
            return fail(f"--engine ray needs Ray: {install_hint('ray')}")
    if not tracking_ready(args):
        return fail(f"--mlflow needs MLflow: {install_hint('mlflow')}")
    jobs = args.jobs or default_jobs()
    if not 1 <= jobs <= MAX_JOBS:
        return fail(f"--jobs must be from 1 to {MAX_JOBS}")
    if args.engine == "ray":
        if jobs > 1 and args.jobs:
            sys.stderr.write("note: --engine ray measures on the cluster's partitions, one actor per CPU "
                             "(a process holding Ray's threads must not fork); --jobs is not used\n")
        jobs = 1  # the cluster analyses and ranks
    progress = ProgressBar(enabled=not args.quiet)
    questions = question_set(args.questions) if args.questions else None
    if isinstance(questions, int):
        return questions
    engine = engine_of(args)
    # A corpus not held here asks the user's questions too, but for what their own system retrieved.
    # A reranker reorders the merged best of every document, which the batches never hold at once.
    alone = (_alone([*specs, sweep]) and (questions is None or not questions.has_retrieved) and not addresses
             and not retriever_spec(args).reranker)
    if engine != "memory" and alone:
        from ..reports.article import build_report

        work = read_alone(args, engine, progress, jobs)
        if isinstance(work, int):
            return work
        problem = context_ready(work, [*specs, *(sweep.with_budget(b) for b in budgets)])
        if problem:
            return fail(problem)
        golden = [golden_set(path, work) for path in args.golden or ()]
        if any(isinstance(g, int) for g in golden):
            return 2
        report = build_report(work, specs=specs, sweep_spec=sweep, budgets=budgets, progress=progress,
                              retriever=retriever_for(args, work), golden=golden, questions=questions,
                              by_format=args.by_format,
                              by_language=args.by_language, expand=tuple(dict.fromkeys(args.expand)),
                              fixes=fixes, context_model=context_model)
        return _logged(args, work, report, _printed(args, report, work.skipped))
    held_anyway(args, alone)
    from ..data_folder import data_folder
    from ..measure.workers import EarlyAnalysis

    store = analysis_store()
    early = EarlyAnalysis(store, args.atoms, jobs, reading_of(args))
    try:
        corpus = read_corpus(args, progress, early if args.engine != "ray" else None)
        for skipped in corpus.skipped:
            sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
        if not corpus.documents:
            return fail(f"no readable documents in {args.corpus}")
        from ..engines.open import open_held
        from ..reports.article import build_report

        work = open_held(corpus, engine, args.atoms, data_folder(), kept=early.kept, analysed=early.analysed)
        problem = context_ready(work, [*specs, *(sweep.with_budget(b) for b in budgets)])
        if problem:
            return fail(problem)
        if context_model:
            from ..context.store import ContextStore

            work.context_store = ContextStore(data_folder())
        if any(s.is_imported for s in specs):
            with_chunk_sets(work)
        found = read_stores(args, work, addresses, fields, progress) if addresses else []
        if isinstance(found, int):
            return found
        specs += [spec for spec, _ in found]
        retriever = retriever_for(args, work)
        golden = [golden_set(path, work) for path in args.golden or ()]
        if any(isinstance(g, int) for g in golden):
            return 2
        report = build_report(work, specs=specs, sweep_spec=sweep, budgets=budgets, progress=progress, jobs=jobs,
                              workers=early.workers, retriever=retriever, golden=golden, questions=questions,
                              by_format=args.by_format, by_language=args.by_language,
                              expand=tuple(dict.fromkeys(args.expand)), fixes=fixes, context_model=context_model)
        if found:
            from ..reports.article import name_rows

            report = name_rows(report, store_labels(found))
            report["stores"] = store_section(found)
            asked_of_stores(args, work, found, report, golden, questions)
    finally:
        early.close()
    return _logged(args, work, report, _printed(args, report, corpus.skipped))


def _logged(args: argparse.Namespace, work, report: dict, status: int) -> int:
    """With ``--mlflow``, one run per compared splitter logged after the report was printed."""
    if args.mlflow is None:
        return status
    from ..reports.tracking import report_runs

    sys.stdout.flush()
    return log_to_mlflow(args, report_runs(work, report), status)


def _printed(args: argparse.Namespace, report: dict, skipped) -> int:
    """Print the report, with the files that were skipped; the exit status."""
    from ..reports.printed import format_report

    report["skipped"] = [{"path": s.path, "reason": s.reason} for s in skipped]
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if args.json else format_report(report, args.intervals))
    return 0


def _alone(specs: list) -> bool:
    """Whether this report's tables can be measured without the corpus in this process (streamed
    from disk, or held by the Ray cluster): splitters of each document alone (ours or another
    library's, with their context lines) ranked by BM25, a dense retriever or both, with golden
    sets, neighbour windows, survival by format or language and the fixes table. Imported chunks
    need the corpus in memory."""
    return all(spec.is_per_document for spec in specs)


def _budgets(text: str) -> tuple[int, ...] | str:
    """The sweep's budgets as given, or why they are refused."""
    parts = [b.strip() for b in text.split(",") if b.strip()]
    if len(parts) > MAX_SWEEP_BUDGETS:
        return f"--budgets takes at most {MAX_SWEEP_BUDGETS} budgets, got {len(parts):,}"
    if not all(p.isascii() and p.isdigit() and len(p) <= 7 for p in parts):
        return f"--budgets must be whole numbers, got {text[:60]!r}{'…' if len(text) > 60 else ''}"
    budgets = tuple(int(p) for p in parts)
    if not budgets or any(b <= 0 for b in budgets):
        return "--budgets needs positive whole numbers"
    return budgets
