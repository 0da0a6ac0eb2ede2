"""``tune``: search splitter configurations on the user's corpus and questions, and print the
ranked table, the verdict, the recommended configuration's code and its ``check`` floors."""

from __future__ import annotations

import json
import math
import sys

from ..errors import ArgumentRefused
from .config import TuneOptions
from .inputs import golden_set, question_set, retriever_for
from .opening import Run, default_jobs, load
from .options import CorpusSource, Retrieval, Tracking
from .output import ProgressBar, log_to_mlflow, tracking_ready


def add_tune(commands) -> None:
    tune = commands.add_parser(
        "tune", help="which chunking should this corpus use? search configurations and rank them",
        description="Measure every configuration of a space (splitter kinds x budgets x overlap x prefixes x "
                    "header repetition) on your golden sets: recall within the context budget, with a 95%% "
                    "interval; rows the paired test cannot tell apart are tied, and the cheapest of the best is "
                    "recommended with its code and check floors. Without a golden set, answer@5 of the probe. "
                    "Exit status: 0 done, 2 bad arguments.")
    CorpusSource.declare(tune)
    tune.add_argument("--golden", metavar="FILE", action="append",
                      help="golden set (JSONL, Chroma's questions_df.csv or CSV); repeatable, questions pooled")
    tune.add_argument("--questions", metavar="FILE",
                      help="your own questions, without evidence (JSONL or one per line): beside the objective, "
                           "the share of them whose five chunks hold no atom cut in two")
    tune.add_argument("--context", metavar="TOKENS", type=int, default=2000,
                      help="the context budget in o200k tokens the questions are answered within (default 2000)")
    tune.add_argument("--cap", metavar="SIZE",
                      help="the embedder's limit, e.g. 256t:hf:tokenizer.json, 512t or 8000 (characters): budgets "
                           "are tried at a quarter to all of it, in its unit, and chunks over it counted")
    tune.add_argument("--max-duplication", metavar="D", type=float,
                      help="leave out configurations repeating more text than this (1.2: a fifth more than the corpus)")
    tune.add_argument("--space", metavar="FILE", help="the space to search (TOML: kinds, budgets, unit, overlaps, "
                                                      "prefixes, headers, specs); default: six kinds at four budgets")
    tune.add_argument("--json", action="store_true", help="print one JSON object")
    tune.add_argument("--quiet", action="store_true", help="no progress bar")
    tune.add_argument("--jobs", type=int, default=0, metavar="N",
                      help="configurations measured at once, in worker processes (default: one per CPU core, up to 4)")
    Retrieval.declare(tune)
    Tracking.declare(tune)


def run_tune(run: Run[TuneOptions]) -> int:
    from ..errors import SpecError
    from ..tune.space import Space, parse_cap

    config = run.config
    options: TuneOptions = config.options
    try:
        cap = parse_cap(options.cap) if options.cap else None
        space = (Space.read(options.space, options.cap) if options.space else
                 Space.for_cap(options.cap) if options.cap else Space())
    except SpecError as exc:
        raise ArgumentRefused(str(exc)) from None
    if not tracking_ready(config.tracking):
        from ..extras import install_hint

        raise ArgumentRefused(f"--mlflow needs MLflow: {install_hint('mlflow')}")
    loaded = load(run, alone=True)
    corpus, workspace = loaded
    golden = []
    for path in config.golden:
        one = golden_set(path, workspace)
        golden.append(one)
    questions = question_set(config.questions) if config.questions else None
    retriever = retriever_for(config.retrieval, workspace)
    from ..tune.search import tune

    bar = ProgressBar(enabled=not config.quiet, estimate=True)  # a log gets a line every few seconds
    result = tune(workspace, space, golden=golden, context=options.context, cap=cap,
                  max_duplication=options.max_duplication, retriever=retriever, progress=bar, questions=questions,
                  jobs=options.jobs or default_jobs())
    out = _shown(config, result, workspace, len(corpus))
    sys.stdout.write(json.dumps(out, indent=2) + "\n" if config.json else out)
    if not config.tracking.on:
        return 0
    from ..reports.tracking import tune_runs

    sys.stdout.flush()
    return log_to_mlflow(config.tracking, tune_runs(workspace, result, str(retriever.spec)), 0)


def _shown(config, result, workspace, documents: int):
    """The result as JSON data or as text, with the recommended configuration's code and floors."""
    from ..reports.snippets import check_floors, snippets_for
    from ..tune.printed import format_tune

    floors, snippets = {}, []
    if result.recommended is not None:
        floors = check_floors(workspace.summarize(result.recommended))
        best = next(c for c in result.candidates if c.spec == result.recommended)
        one_set = len(config.golden) == 1
        if best.score is not None and (one_set or not config.golden):  # check takes one golden set
            floors[result.objective] = math.floor(best.score.value * 100) / 100
        snippets = snippets_for(result.recommended, config.corpus.path, mode=config.corpus.mode, floors=floors,
                                golden=config.golden[0] if one_set else None, retriever=str(config.retrieval.retriever))
    if config.json:
        return {**result.as_dict(), "floors": floors, "snippets": [{"title": s.title, "code": s.code}
                                                                   for s in snippets]}
    lines = format_tune(result, documents=documents)
    for snippet in snippets:
        lines += ["", f"# {snippet.title}", snippet.code.rstrip()]
    return "\n".join(lines) + "\n"
