"""``report``: the article's tables, and the user's golden sets and questions, for a corpus."""

from __future__ import annotations

import json
import sys

from ..errors import ArgumentRefused
from ..extras import install_hint
from ..spec import ARTICLE_SPECS, parse_spec
from .config import ReportOptions
from .context import context_ready
from .inputs import golden_set, question_set, retriever_for
from .opening import Run, analysis_store, default_jobs, held_anyway, read_alone, read_corpus
from .output import ProgressBar, log_to_mlflow, tracking_ready
from .stores import asked_of_stores, read_stores, store_labels, store_section


def run_report(run: Run[ReportOptions]) -> int:
    config = run.config
    options: ReportOptions = config.options
    specs = [config.with_context_model(parse_spec(s)) for s in config.specs] or list(ARTICLE_SPECS)
    sweep = config.with_context_model(parse_spec(options.sweep))
    fixes = parse_spec(options.fixes) if options.fixes else None
    context_model = (fixes.context_model or config.context_model) if fixes is not None else ""
    budgets = options.budgets
    if config.corpus.engine == "ray":
        from ..engines.ray.session import ray_available

        if not ray_available():
            raise ArgumentRefused(f"--engine ray needs Ray: {install_hint('ray')}")
    if not tracking_ready(config.tracking):
        raise ArgumentRefused(f"--mlflow needs MLflow: {install_hint('mlflow')}")
    jobs = options.jobs or default_jobs()
    if config.corpus.engine == "ray":
        if jobs > 1 and options.jobs:
            sys.stderr.write("note: --engine ray measures on the cluster's partitions, one actor per CPU "
                             "(a process holding Ray's threads must not fork); --jobs is not used\n")
        jobs = 1  # the cluster analyses and ranks
    progress = ProgressBar(enabled=not config.quiet)
    questions = question_set(config.questions) if config.questions else None
    engine = run.engine()
    # A corpus not held here asks the user's questions too, but for what their own system retrieved.
    # A reranker reorders the merged best of every document, which the batches never hold at once.
    alone = (_alone([*specs, sweep]) and (questions is None or not questions.has_retrieved)
             and not config.stores.addresses and not config.retrieval.retriever.reranker)
    early = None
    try:
        if engine != "memory" and alone:
            work = read_alone(run, engine, progress, jobs)
            skipped = work.skipped
        else:
            held_anyway(config.corpus.engine, alone)
            from ..measure.workers import EarlyAnalysis

            early = EarlyAnalysis(analysis_store(run), config.corpus.mode, jobs, run.reading())
            held = _held(run, engine, progress, early)
            skipped, work = held
        problem = context_ready(work, [*specs, *(sweep.with_budget(b) for b in budgets)])
        if problem:
            raise ArgumentRefused(problem)
        found = read_stores(config.stores, work, config.services, progress) if config.stores.addresses else []
        specs += [spec for spec, _ in found]
        retriever = retriever_for(config.retrieval, work)
        golden = [golden_set(path, work) for path in config.golden]
        from ..reports.article import ReportPlan, build_report

        plan = ReportPlan(specs=tuple(specs), sweep_spec=sweep, budgets=budgets, golden=tuple(golden),
                          questions=questions, by_format=options.by_format, by_language=options.by_language,
                          expand=config.retrieval.expand, fixes=fixes, context_model=context_model,
                          cost=options.cost, prices=options.prices)
        report = build_report(work, plan, progress=progress, jobs=jobs, workers=early.workers if early else None,
                              retriever=retriever)
        if found:
            from ..reports.article import name_rows

            report = name_rows(report, store_labels(found))
            report["stores"] = store_section(found)
            asked_of_stores(config.retrieval, work, found, report, golden, questions)
    finally:
        if early is not None:
            early.close()
    return _logged(run, work, report, _printed(run, report, skipped))


def _held(run: Run, engine: str, progress, early) -> tuple:
    """``(skipped files, workspace)`` of the corpus held here (its analyses started while the
    files were read); ``ArgumentRefused`` when no document is readable."""
    from ..engines.open import open_held

    corpus = read_corpus(run, progress, early if engine != "ray" else None)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        raise ArgumentRefused(f"no readable documents in {run.config.corpus.path}")
    work = open_held(corpus, engine, run.config.corpus.mode, run.config.services, kept=early.kept,
                     analysed=early.analysed)
    return corpus.skipped, work


def _logged(run: Run, work, report: dict, status: int) -> int:
    """With ``--mlflow``, one run per compared splitter logged after the report was printed."""
    if not run.config.tracking.on:
        return status
    from ..reports.tracking import report_runs

    sys.stdout.flush()
    return log_to_mlflow(run.config.tracking, report_runs(work, report), status)


def _printed(run: Run, report: dict, skipped) -> int:
    """Print the report, with the files that were skipped; the exit status."""
    from ..reports.printed import format_report

    report["skipped"] = [{"path": s.path, "reason": s.reason} for s in skipped]
    sys.stdout.write(json.dumps(report, indent=2) + "\n" if run.config.json
                     else format_report(report, run.config.options.intervals, run.config.options.layout))
    return 0


def _alone(specs: list) -> bool:
    """Whether this report's tables can be measured without the corpus in this process (streamed
    from disk, or held by the Ray cluster): splitters of each document alone (ours or another
    library's, with their context lines) ranked by BM25, a dense retriever or both, with golden
    sets, neighbour windows, survival by format or language and the fixes table. Imported chunks
    need the corpus in memory."""
    return all(spec.is_per_document for spec in specs)
