"""``chunk-inspector review ROUND [CORPUS]``: a round's report, as the Results tab downloads it.

The answers come from the data folder's review store (``--data``, else ``$CHUNK_INSPECTOR_DATA``
or the server's PostgreSQL), opened read-only; with the corpus the round was drawn on, the
disagreements carry their chunks' text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import ReviewInputError
from .config import ReviewOptions, RunConfig
from .opening import Run
from .output import ProgressBar, confirmed


def run_review(run: Run[ReviewOptions]) -> int:
    config: RunConfig = run.config
    options: ReviewOptions = config.options
    from ..review.agreement import answer_history
    from ..review.database import STORE_NAME
    from ..review.report import round_report
    from ..review.store import ReviewStore, open_review_store

    if options.data:
        path = Path(options.data) / STORE_NAME
        if not path.is_file():
            raise ReviewInputError(f"{options.data} holds no review store ({STORE_NAME})")
        store = ReviewStore(path, readonly=True)
    else:
        store = open_review_store(config.services.data)
    stored = store.get_round(options.round_id)
    if stored is None:
        known = ", ".join(r.id for r in store.rounds()[:10]) or "none"
        raise ReviewInputError(f"no round {options.round_id[:40]!r} in the review store (it has: {known})")
    if options.model and not config.corpus.path:
        raise ReviewInputError("--model asks the model about the round's chunks: give the corpus the round was "
                               "drawn on")
    texts, drawn = {}, None
    if config.corpus.path:
        try:
            drawn = _drawn(stored, config)
            texts = {c.chunk.id: c.text for c in drawn[1]}
        except ReviewInputError as exc:
            if stored.round.source != "questions" or options.model:
                raise
            sys.stderr.write(f"note: the chunks' texts are left out: {exc}\n")
    report = round_report(stored, store.answers(stored.id), texts=texts, base_url=options.base_url,
                          history=answer_history(store.history(stored.id)))
    if options.model:
        status, report = _with_model(report, options, config.services, *drawn)
        if status:
            return status
    sys.stdout.write(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n" if config.json
                     else report.markdown())
    return 0


def _with_model(report, options: ReviewOptions, services, workspace, chunks):
    """The report with the model as an extra reviewer (and its estimate over ``--sample`` more
    chunks), after the plan is printed and confirmed; ``(status, report)``, status 0 to print."""
    from dataclasses import replace

    from ..context.writer import ChatEndpoint
    from ..review.model_review import ModelAnswers, ask_model, calibrate, estimate, plan_review, sampled_chunks

    sample = sampled_chunks(report.stored.round, workspace, options.sample) if options.sample else []
    kept = ModelAnswers(options.data or services.data)
    plan = plan_review([c.text for c in [*chunks, *sample]], options.model, kept)
    sys.stderr.write(f"model: {plan.summary(options.input_price, options.output_price)}\n")
    if plan.to_ask and options.dry_run:
        return 0, report
    if plan.to_ask:
        endpoint = ChatEndpoint.from_settings(options.context_url, options.model)  # refused before anything is sent
        if not confirmed(options.yes, len(plan.to_ask)):
            return 1, report
        bar = ProgressBar(enabled=sys.stderr.isatty())
        for failure in ask_model(plan, endpoint, kept, lambda done, total: bar("chunks answered", done, total)):
            sys.stderr.write(f"not answered: {failure}\n")
    answers = kept.get(options.model, plan.texts)
    return 0, replace(report, calibration=calibrate(options.model, chunks, answers, report.summary),
                      estimate=estimate(sample, answers) if sample else None)


def _drawn(stored, config: RunConfig):
    """The round's workspace and chunks, drawn again on the corpus given (which must be the round's)."""
    from ..corpus.load import load_corpus
    from ..measure.workspace import Workspace
    from ..review.rounds import draw

    definition = stored.round
    corpus = load_corpus(config.corpus.path, mode=definition.mode)
    if corpus.fingerprint != definition.corpus:
        raise ReviewInputError(f"{config.corpus.path} is not the corpus round {definition.id} was drawn on "
                               f"(its fingerprint is {corpus.fingerprint[:16]}, the round's {definition.corpus[:16]})")
    workspace = Workspace(corpus, definition.mode)
    return workspace, draw(definition, workspace)
