"""``check`` (the CI gate) and ``export`` (chunks for a pipeline)."""

from __future__ import annotations

import json
import os
import sys

from ..errors import ArgumentRefused
from ..extras import install_hint
from ..spec import parse_spec
from .config import CheckOptions, ExportOptions, RunConfig
from .context import context_ready
from .inputs import golden_set, retriever_for
from .opening import Run, load
from .output import ProgressBar, log_to_mlflow, say_problems, tracking_ready
from .stores import read_stores


def run_check(run: Run[CheckOptions]) -> int:
    from ..reports.gate import baseline_document, format_check, write_baseline
    from ..reports.gate_run import GateChunking, GateLimits, run_gate
    from ..retrieval.golden import DEFAULT_BUDGETS, golden_recall

    config = run.config
    options: CheckOptions = config.options
    limits = _check_limits(config)
    if isinstance(limits, str):
        raise ArgumentRefused(limits)
    floors, ceilings, baseline, recall_budgets = limits
    corpus, workspace = load(run, alone=_alone(config))
    measured, spec, label, unplaced, imported, store = _checked_chunking(config, workspace)
    golden = golden_set(config.golden_file, workspace) if config.golden_file else None
    retriever = retriever_for(config.retrieval, measured)
    expand = config.retrieval.width
    if not retriever.spec.is_default:
        texts = [q.text for q in measured.queries()] + ([i.question for i in golden.items] if golden else [])
        bar = ProgressBar(enabled=sys.stderr.isatty())
        measured.embed_ahead(retriever, [spec], texts, lambda done, total: bar("texts embedded", done, total))
    scored = searched = None
    budgets = tuple(sorted(set(DEFAULT_BUDGETS) | set(recall_budgets)))
    if golden is not None:
        searched = _searched(config, store, retriever) if store is not None else None
        scored = golden_recall(measured, golden, spec, budgets=budgets, label=label, retriever=searched or retriever,
                               expand=expand)
    chunking = GateChunking(measured, spec, label, unplaced, imported, store.address if store is not None else "")
    try:
        gate = run_gate(chunking, GateLimits(floors, ceilings, baseline, options.tolerance, options.count_tolerance,
                                             options.strict),
                        fingerprint=corpus.fingerprint, retriever=retriever, expand=expand, budget=options.budget,
                        unit=options.unit, golden=golden, scored=scored, searched=searched)
    except ValueError as exc:
        raise ArgumentRefused(str(exc)) from None
    if options.write_baseline:
        try:
            write_baseline(options.write_baseline, baseline_document(
                gate.values, spec=label, mode=config.corpus.mode, retriever=str(retriever.spec), expand=expand,
                answered=gate.answered, groups=gate.groups,
                corpus={"documents": len(corpus), "characters": corpus.characters,
                        "fingerprint": corpus.fingerprint}))
        except OSError as exc:
            raise ArgumentRefused(f"cannot write {options.write_baseline}: {exc.strerror or exc}") from None
    if config.json:
        out = gate.result.as_dict()
        out.update(spec=label, retriever=str(retriever.spec), notes=gate.notes)
        if scored is not None:
            out["golden"] = {"name": golden.name, "questions": len(golden.items), "quotes": golden.quotes,
                             "left_out": golden.left_out(), "outcomes": {str(b): scored.counts(b) for b in budgets}}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        title = f"check {label} on {config.corpus.path} ({len(corpus)} documents, {config.corpus.mode} atoms)"
        sys.stdout.write(format_check(title, gate.result, gate.notes))
    status = 0 if gate.result.passed else 1
    if not config.tracking.on:
        return status
    from ..reports.tracking import check_run

    sys.stdout.flush()
    return log_to_mlflow(config.tracking, [check_run(measured, spec, label, gate.values, str(retriever.spec),
                                          {**gate.result.as_dict(), "notes": gate.notes})], status)


def _check_limits(config: RunConfig) -> tuple | str:
    """``check``'s floors, ceilings, baseline and recall budgets, or why the arguments are refused."""
    options: CheckOptions = config.options
    from ..reports.gate import parse_limit, read_baseline

    if not tracking_ready(config.tracking):
        return f"--mlflow needs MLflow: {install_hint('mlflow')}"
    if len(config.retrieval.expand) > 1:
        return "check measures one chunking at one --expand width; give it once"
    if sum(map(bool, (config.spec, options.chunks, config.stores.addresses))) != 1:
        return "give one of --spec SPEC, --chunks FILE or --store URI"
    if options.tolerance < 0 or options.count_tolerance < 0:
        return "tolerances must be zero or more"
    if options.budget is not None and options.budget <= 0:
        return "--budget must be a positive whole number"
    try:
        floors = dict(parse_limit(t) for t in options.floors)
        ceilings = dict(parse_limit(t) for t in options.ceilings)
        baseline = read_baseline(options.baseline) if options.baseline else None
    except ValueError as exc:
        return str(exc)
    named = set(floors) | set(ceilings)
    recall_budgets = sorted({int(n[7:]) for n in named if n.startswith("recall@")})
    if recall_budgets and not config.golden_file:
        return "recall@B needs a golden set (--golden FILE)"
    if "unplaced" in named and not (options.chunks or config.stores.addresses):
        return "unplaced is measured only for chunks made elsewhere (--chunks FILE or --store URI)"
    if config.spec:
        parse_spec(config.spec)
    return floors, ceilings, baseline, recall_budgets


def _checked_chunking(config: RunConfig, workspace) -> tuple:
    """What ``check`` measures: ``(workspace, spec, label, unplaced, import)``. Chunks from a file are
    imported as a chunk set and measured on the documents they cover; a library splitter's
    misplaced chunks are reported."""
    options: CheckOptions = config.options
    if config.stores.addresses:
        return _stored_chunking(config, workspace)
    if not options.chunks:
        spec = config.with_context_model(parse_spec(config.spec))
        say_problems(workspace.problems(spec) if spec.is_adapter else ())
        problem = context_ready(workspace, [spec])
        if problem:
            raise ArgumentRefused(problem)
        return workspace, spec, str(spec), None, None, None
    from ..chunks.importer import import_chunks
    from ..chunks.sets import chunk_set_from_import
    from ..spec import SplitterSpec

    result = import_chunks(options.chunks, workspace, default_doc=options.default_doc, workspace=workspace,
                           raw_offsets=config.stores.raw_offsets)
    say_problems(result.problems, result.name)
    sys.stderr.write(result.summary() + "\n")
    if not result.imported:
        raise ArgumentRefused(f"no chunk of {result.name} could be placed on the corpus")
    if result.missing_documents:
        sys.stderr.write(f"{len(result.missing_documents)} of {len(workspace.documents)} documents received no "
                         "chunk; the measures cover the others\n")
    chunk_set = chunk_set_from_import(result, workspace)
    workspace.add_chunk_set(chunk_set)
    spec = SplitterSpec.imported(chunk_set.id, options.unit)
    return workspace.subset(result.chunks), spec, result.spec, len(result.unplaced), result, None


def _stored_chunking(config: RunConfig, workspace) -> tuple:
    """``check --store``: the store's chunks placed on the corpus, measured on the documents they cover."""
    options: CheckOptions = config.options
    from ..spec import SplitterSpec

    found = read_stores(config.stores, workspace, config.services)
    spec, imported = found[0]
    spec = SplitterSpec.imported(spec.chunk_set, options.unit)
    result = imported.result
    if result.missing_documents:
        sys.stderr.write(f"{len(result.missing_documents)} of {len(workspace.documents)} documents hold no stored "
                         "chunk; the measures cover the others\n")
    return (workspace.subset(result.chunks), spec, str(imported.address),
            len(result.unplaced) + len(imported.unreadable), result, imported)


def _searched(config: RunConfig, store, retriever):
    """The store's own search for ``check --store --golden``, questions embedded by the run's
    embedder (``run_config`` refused the run without one)."""
    from ..stores.address import StoreCredentials
    from ..stores.search import store_retriever

    return store_retriever(store, retriever.spec, base_url=config.retrieval.embeddings_url,
                           credentials=StoreCredentials.from_environment(os.environ))


def run_export(run: Run[ExportOptions]) -> int:
    config = run.config
    options: ExportOptions = config.options
    if bool(config.spec) == bool(config.stores.addresses):
        raise ArgumentRefused("export needs --spec SPEC or --store URI")
    spec = config.with_context_model(parse_spec(config.spec)) if config.spec else None
    loaded = load(run, alone=spec is not None and spec.is_per_document)
    _, workspace = loaded
    if spec is None:
        found = read_stores(config.stores, workspace, config.services)
        spec = found[0][0]
    problem = context_ready(workspace, [spec])
    if problem:
        raise ArgumentRefused(problem)
    if spec.is_adapter:
        say_problems(workspace.problems(spec))
    if options.output == "-":
        try:
            workspace.export(spec, sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader (e.g. ``head``) stopped early; silence the interpreter's final flush.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    else:
        try:
            with open(options.output, "w", encoding="utf-8") as stream:
                count = workspace.export(spec, stream)
        except OSError as exc:
            raise ArgumentRefused(f"cannot write {options.output}: {exc.strerror or exc}") from None
        sys.stderr.write(f"wrote {count} chunk{'s' * (count != 1)} to {options.output}\n")
    return 0


def _alone(config: RunConfig) -> bool:
    """Whether ``check`` can measure without the corpus in this process (streamed from disk, or
    held by the Ray cluster): one splitter of each document alone (ours or another library's),
    with no chunk file."""
    options: CheckOptions = config.options
    return (not (options.chunks or config.stores.addresses) and parse_spec(config.spec).is_per_document
            and not config.retrieval.retriever.reranker)
