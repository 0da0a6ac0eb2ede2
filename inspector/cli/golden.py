"""``golden``: a golden set written from the corpus itself, by a chat model (planned, priced and
confirmed first), or without one from the probe's figure sentences; in Chroma's CSV format."""

from __future__ import annotations

import sys
from pathlib import Path

from .config import GoldenOptions, RunConfig
from .opening import Run, load
from .output import ProgressBar, confirmed


def run_golden(run: Run[GoldenOptions]) -> int:
    from ..context.golden_writer import golden_store, plan_golden, write_golden
    from ..context.writer import ChatEndpoint
    from ..retrieval.golden_written import chroma_csv, probe_questions

    config: RunConfig = run.config
    options: GoldenOptions = config.options
    model = config.context_model
    endpoint = None
    if model and not options.dry_run:
        endpoint = ChatEndpoint.from_settings(options.context_url, model)  # refused here, before any work
    corpus, workspace = load(run)
    documents = workspace.documents
    if not model:
        questions = probe_questions(documents, workspace.queries())
        sys.stderr.write(f"no chat model given (--model, or $CHUNK_INSPECTOR_CONTEXT_MODEL): the set holds the probe's "
                         f"{len(questions):,} figure-sentence questions, each marked so in its written_by column\n")
        return _written(options.output, chroma_csv(questions, documents), len(questions))
    store = golden_store(config.services.data)
    plan = plan_golden(documents, model, store, options.per_document)
    sys.stdout.write(f"golden set of {config.corpus.path}: {plan.summary(options.input_price, options.output_price)}\n")
    if options.dry_run:
        return 0
    if plan.prompts and not confirmed(options.yes, plan.prompts):
        return 1
    bar = ProgressBar(enabled=sys.stderr.isatty())
    result = write_golden(documents, model, store, per_document=options.per_document, endpoint=endpoint,
                          progress=lambda done, total: bar("documents asked", done, total))
    for doc_id, reason in result.failures:
        sys.stderr.write(f"{doc_id}: {reason}\n")
    for reason, count in sorted(result.dropped.items()):
        sys.stdout.write(f"left out: {count:,} × {reason}\n")
    status = _written(options.output, chroma_csv(result.questions, documents), len(result.questions))
    sys.stdout.write(f"{len(result.questions):,} questions from {model}: {result.sent:,} prompts sent, "
                     f"{result.replayed:,} answers read from the data folder"
                     + (f"; {result.waiting:,} prompts not sent after {len(result.failures)} failures"
                        if result.failures else "") + "\n")
    return 1 if result.failures else status


def _written(output: str, text: str, questions: int) -> int:
    """Write the set to ``output`` (``-``: standard output); 1 when it holds no question."""
    if output == "-":
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")
        sys.stderr.write(f"wrote {questions:,} questions to {output}\n")
    if not questions:
        sys.stderr.write("no question was written\n")
        return 1
    return 0
