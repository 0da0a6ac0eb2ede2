"""``python -m inspector``: the engine's reports from the command line.

The parser and the dispatch live here; argv is read once into a ``config.RunConfig``, and each
command in its module (``report``, ``check`` for ``check`` and ``export``, ``tune``, ``context``, ``review``)
takes it inside a ``opening.Run``; ``output`` prints refusals and progress, ``inputs`` reads
golden sets, questions and the retriever. The engine (numpy, the splitters, the
probe) is imported inside the commands: ``report`` first forks its analysis workers, so they
parse the corpus while this process imports.
"""

from __future__ import annotations

import argparse
import gc
import sys

from ..data_folder import damaged, first_use_note
from ..errors import InspectorError
from ..reports.printed import LAYOUTS
from ..spec import SWEEP_BUDGETS
from .app import run_app
from .ask import run_ask
from .check import run_check, run_export
from .config import AppOptions, run_config
from .context import run_context
from .golden import run_golden
from .opening import Run
from .options import CorpusSource, Retrieval, Stores, Tracking
from .output import fail, one_line
from .report import run_report
from .review import run_review
from .tune import add_tune, run_tune


class _Parser(argparse.ArgumentParser):
    """Refuses bad arguments with one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse echoes the refused value, however long and whatever it holds.
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def build_parser(measure_help: bool = True, prog: str = "chunk-inspector") -> argparse.ArgumentParser:
    """The command line's parser (``check --help`` lists the measures only with ``measure_help``)."""
    return _parsers(measure_help, prog)[0]


def command_parsers(measure_help: bool = True) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser and each command's own, by name (the docs print their help)."""
    return _parsers(measure_help, "chunk-inspector")


def _parsers(measure_help: bool, prog: str) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = _Parser(prog=prog,
                     description="Chunk Inspector: what your splitter does to your documents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    report = commands.add_parser("report", help="the article's four tables for a corpus")
    CorpusSource.declare(report)
    report.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    report.add_argument("--intervals", action=argparse.BooleanOptionalAction, default=None,
                        help="print each rate's 95%% interval and each table's verdict (default: on, except with "
                             "--atoms seed, whose tables stay the article's); --json always carries them")
    report.add_argument("--layout", choices=LAYOUTS, default="article",
                        help="how each golden set's table is printed: article (recall at each budget, the "
                             "default) or chroma (Chroma's columns: the top 5's recall, precision, "
                             "precision-Ω and IoU, each mean ± standard deviation over questions)")
    report.add_argument("--spec", action="append", metavar="SPEC",
                        help="splitters to compare (repeatable); default: the article's seven")
    report.add_argument("--sweep", metavar="SPEC", default="structured:800",
                        help="splitter whose budget is swept (default structured:800)")
    report.add_argument("--budgets", metavar="N,N,...", default=",".join(map(str, SWEEP_BUDGETS)),
                        help="budgets of the sweep")
    report.add_argument("--quiet", action="store_true", help="no progress bar")
    report.add_argument("--jobs", type=int, default=0, metavar="N",
                        help="worker processes (default: one per CPU core, up to 4)")
    report.add_argument("--golden", metavar="FILE", action="append",
                        help="golden set (JSONL, Chroma's questions_df.csv or CSV) scored for every splitter "
                             "(repeatable)")
    report.add_argument("--questions", metavar="FILE",
                        help="your own questions (JSONL, CSV or one per line, optionally with what your system "
                             "retrieved): the context and atom fragments each splitter hands back for them")
    report.add_argument("--fixes", metavar="SPEC",
                        help="add the fixes table: from SPEC, none → structure + header → + heading path → + address "
                             "stamp → + context line → + neighbours read, each measured (with the first --golden)")
    report.add_argument("--by-format", action="store_true",
                        help="also break survival down by source format (markdown, PDF, DOCX, HTML, ...)")
    report.add_argument("--by-language", action="store_true",
                        help="also break survival down by each document's language (en, de, zh, ...)")
    report.add_argument("--cost", action="store_true",
                        help="add each splitter's index-time cost: seconds to split, texts and o200k tokens the "
                             "splitter and the retriever embed, context-line prompts, dollars at the prices below "
                             "(seconds are measured, so they differ from run to run)")
    report.add_argument("--embed-price", type=_price, metavar="USD",
                        help="dollars per million tokens of a paid embeddings model (dense:openai:MODEL)")
    report.add_argument("--input-price", type=_price, metavar="USD", help="dollars per million chat input tokens")
    report.add_argument("--output-price", type=_price, metavar="USD", help="dollars per million chat output tokens")
    Retrieval.declare(report, repeatable_expand=True)
    Tracking.declare(report)
    Stores.declare(report, repeatable=True, raw_offsets=True)
    _add_ask(commands)
    _add_check(commands, measure_help)
    _add_export(commands)
    _add_context(commands)
    _add_golden(commands)
    add_tune(commands)
    app = commands.add_parser("app", help="serve the app on this machine (default: on the bundled sample corpus)",
                              description="Start the app's server and open it in a browser. The corpus folder "
                                          "given is opened first, and a visitor may open folders under it and "
                                          "under each --allow-root, nowhere else.")
    AppOptions.declare(app)
    review = commands.add_parser("review", help="an Orphan Test round's report (Markdown, or --json)",
                                 description="The round's definition and link, its reviewers, the orphan rate by "
                                             "majority with its 95%% interval, each question, Fleiss' kappa and "
                                             "the chunks the reviewers split on; with the round's corpus, their "
                                             "text.")
    review.add_argument("round", help="the round's id (the link's round=)")
    review.add_argument("corpus", nargs="?", default=None,
                        help="the folder the round was drawn on, for the chunks' text (optional)")
    review.add_argument("--data", metavar="DIR",
                        help="the data folder holding the review store (default $CHUNK_INSPECTOR_DATA, or the "
                             "PostgreSQL of $CHUNK_INSPECTOR_DATABASE_URL)")
    review.add_argument("--base-url", metavar="URL", default="", help="the app's address, for the round's link")
    review.add_argument("--json", action="store_true", help="print one JSON object instead of Markdown")
    review.add_argument("--model", metavar="MODEL", help="a chat model that answers the round's questions as one more "
                        "reviewer, with Cohen's kappa against the team's majority (needs the round's corpus)")
    review.add_argument("--context-url", metavar="URL", help="the model's OpenAI-compatible endpoint (default "
                        "$CHUNK_INSPECTOR_CONTEXT_URL or $OPENAI_BASE_URL)")
    review.add_argument("--sample", type=int, default=0, metavar="N",
                        help="with --model: N more chunks drawn from the corpus, the orphan rate the model gives them")
    review.add_argument("--input-price", type=_price, metavar="USD", help="dollars per million input tokens")
    review.add_argument("--output-price", type=_price, metavar="USD", help="dollars per million output tokens")
    review.add_argument("--dry-run", action="store_true", help="print what the model would be sent and stop")
    review.add_argument("--yes", action="store_true", help="send without asking (needed without a terminal)")
    for command in (report, *(commands.choices[name] for name in ("check", "export", "tune"))):
        CorpusSource.declare_engine(command)
        command.add_argument("--context-model", metavar="MODEL",
                             help="the model whose context lines +context specs without ;llm= use "
                                  "(default $CHUNK_INSPECTOR_CONTEXT_MODEL)")
    return parser, dict(commands.choices)


def main(argv: list[str] | None = None, prog: str = "chunk-inspector") -> int:
    """Run the command line; returns the exit status."""
    # Only ``check --help`` shows the measure list, and building it loads the gate module.
    parser = build_parser(measure_help="check" in (sys.argv[1:] if argv is None else argv), prog=prog)
    given = parser.parse_args(argv)
    # A one-shot run allocates millions of small, acyclic tuples; the cyclic garbage collector
    # would rescan them over and over (a third of the run time) while finding nothing to free.
    collecting = gc.isenabled()
    gc.disable()
    before = damaged()
    run = None
    try:
        run = Run(run_config(given))
        note = first_use_note()
        if note:  # said once: the folder exists from this run on
            sys.stderr.write(note + "\n")
        if run.config.corpus.engine == "ray":
            from ..engines.ray.session import ray_session

            with ray_session():  # Ray starts when the command first needs it
                return _run(run)
        return _run(run)
    except InspectorError as exc:
        return fail(str(exc))
    finally:
        if run is not None:
            run.close()  # corpora parked on disk by the streamed engine
        if collecting:
            gc.enable()
        for store, count in sorted(damaged().items()):
            found = count - before.get(store, 0)
            if found:
                sys.stderr.write(f"note: {found:,} damaged row{'s' * (found != 1)} of {store} in the data folder "
                                 f"{'were' if found != 1 else 'was'} set aside and computed again\n")


#: Each command's run.
COMMANDS = {"ask": run_ask, "report": run_report, "check": run_check, "export": run_export, "context": run_context,
            "tune": run_tune, "golden": run_golden,
            "app": run_app, "review": run_review}


def command() -> None:
    """The ``chunk-inspector`` command (``python -m inspector`` runs the same)."""
    status = main()
    # The run's objects go with the process: a last collection at exit would only scan them (and
    # what a frozen cycle holds is not freed at all: ``lengths`` keeps its encodings so).
    gc.freeze()
    sys.exit(status)


def _run(run: Run) -> int:
    return COMMANDS[run.config.command](run)


def _add_ask(commands) -> None:
    ask = commands.add_parser("ask", help="one question asked of your splitters: the chunks that come back, and "
                                          "where the passage that answers lands",
                              description="Rank the chunks of each --spec for QUESTION and print the top k with "
                                          "their scores and spans; with --quote, say whether the passage is whole "
                                          "in a retrieved chunk, cut across several, or missing from the top k "
                                          "(and whether the split holds it whole at all).")
    CorpusSource.declare(ask)
    ask.add_argument("question", help="the question, as a user would type it")
    ask.add_argument("--spec", action="append", metavar="SPEC",
                     help="a splitter to ask (repeatable, up to 8; default structured:800)")
    ask.add_argument("--quote", metavar="TEXT", help="the passage that answers: where it lands in each splitter's "
                                                     "retrieved chunks")
    ask.add_argument("-k", type=int, default=5, metavar="N", help="chunks retrieved per splitter (1 to 100, default 5)")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    Retrieval.declare(ask)
    ask.add_argument("--context-model", metavar="MODEL", help="the model whose context lines +context specs "
                     "without ;llm= use (default $CHUNK_INSPECTOR_CONTEXT_MODEL)")


def _add_chunking(command: argparse.ArgumentParser) -> None:
    CorpusSource.declare(command)
    command.add_argument("--spec", metavar="SPEC",
                         help="splitter, e.g. structured:800, heading:256t, an adapter such as "
                              "ext-langchain:800/100, or imported:ID for a chunk set kept by the app")


def _add_check(commands, measure_help: bool = True) -> None:
    epilog = None
    if measure_help:
        from ..reports.gate import help_text

        epilog = help_text()
    check = commands.add_parser(
        "check", help="CI gate: exit 1 when a measure falls below its floor or regresses",
        description="Measure one chunking of a corpus and hold each measure to a floor (--min), a ceiling "
                    "(--max) or a baseline. Exit status: 0 all hold, 1 some do not, 2 bad arguments.",
        epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_chunking(check)
    check.add_argument("--chunks", metavar="FILE",
                       help="check chunks made elsewhere (JSONL, JSON or CSV) instead of a --spec")
    check.add_argument("--budget", metavar="N", type=int,
                       help="with --chunks or --store: the size the chunks aimed at (for oversized and fit survival)")
    check.add_argument("--unit", metavar="UNIT", default="chars",
                       help="with --chunks or --store: unit of --budget (chars, o200k, cl100k or a tokenizer.json)")
    check.add_argument("--default-doc", metavar="ID", help="with --chunks: document of records naming none")
    check.add_argument("--raw-offsets", action="store_true",
                       help="with --chunks or --store: offsets count in the raw files, front matter included")
    Stores.declare(check, repeatable=False, raw_offsets=False)
    check.add_argument("--min", action="append", default=[], metavar="NAME=VALUE", help="a floor (repeatable)")
    check.add_argument("--max", action="append", default=[], metavar="NAME=VALUE", help="a ceiling (repeatable)")
    check.add_argument("--golden", metavar="FILE", help="golden set (JSONL, Chroma's questions_df.csv or CSV) "
                                                        "adding recall@2000 and recall@4000")
    Retrieval.declare(check)
    Tracking.declare(check)
    check.add_argument("--baseline", metavar="FILE", help="fail on regressions against this baseline")
    check.add_argument("--tolerance", type=float, default=0.0, metavar="T",
                       help="fractions may fall this much below the baseline (default 0)")
    check.add_argument("--count-tolerance", type=float, default=0.0, metavar="T",
                       help="counts may move this fraction of the baseline (default 0)")
    check.add_argument("--strict", action="store_true",
                       help="hold answer@5, cut and recall@B to the baseline exactly; by default they regress only "
                            "when the change is significant query by query (McNemar's exact test, 5%%)")
    check.add_argument("--write-baseline", metavar="FILE", help="write the measures as a baseline file")
    check.add_argument("--json", action="store_true", help="print one JSON object")


def _price(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"a price is dollars per million tokens, from 0, got {text[:20]!r}")
    return value


def _add_context(commands) -> None:
    context = commands.add_parser(
        "context", help="write the context lines of a +context spec through an OpenAI-compatible chat endpoint",
        description="For each chunk of SPEC without a kept line, a language model reads the document and the "
                    "chunk and writes one or two sentences that place it (contextual retrieval). What will be "
                    "sent (chunks, input tokens, cost) is printed first; lines are kept in the data folder by "
                    "model, document and span, so a second run sends nothing. Exit status 1 when some chunk failed.")
    _add_chunking(context)
    context.add_argument("--context-model", metavar="MODEL",
                         help="the chat model (default: the spec's ;llm=, then $CHUNK_INSPECTOR_CONTEXT_MODEL)")
    _add_chat_run(context)
    context.add_argument("--import", dest="import_file", metavar="FILE",
                         help="keep lines written elsewhere (JSONL: chunk_id or doc_id/start/end, and line)")
    context.add_argument("--name", metavar="NAME", help="with --import: the name the lines are kept under")


def _add_golden(commands) -> None:
    golden = commands.add_parser(
        "golden", help="write a golden set from the corpus itself (Chroma's CSV format), by a chat model",
        description="For each document a chat model reads a stretch at a time and writes a question with the "
                    "passages that answer it, copied word for word; each excerpt is placed at its exact offsets "
                    "(one not found verbatim is left out), and questions that give their answer away or repeat "
                    "another are left out. What will be sent is printed first; answers are kept in the data "
                    "folder, so a stopped run resumes and a second one sends nothing. Without a model, the "
                    "probe's figure-sentence questions are written, marked as such.")
    CorpusSource.declare(golden)
    golden.add_argument("-o", "--output", metavar="FILE", default="-", help="the CSV written (default: stdout)")
    golden.add_argument("--model", dest="context_model", metavar="MODEL",
                        help="the chat model (default $CHUNK_INSPECTOR_CONTEXT_MODEL; none: the probe's questions)")
    golden.add_argument("--per-document", type=int, default=2, metavar="N",
                        help="questions asked of each document, each about another stretch of it (default 2)")
    _add_chat_run(golden)


def _add_chat_run(command) -> None:
    """The options of a command that sends prompts to a chat endpoint: where it is, the prices
    that cost the plan, and whether to send."""
    command.add_argument("--context-url", metavar="URL",
                         help="base URL of the chat endpoint (default $CHUNK_INSPECTOR_CONTEXT_URL, then "
                              "$OPENAI_BASE_URL); the key is $CHUNK_INSPECTOR_CONTEXT_KEY or $OPENAI_API_KEY")
    command.add_argument("--input-price", type=_price, metavar="USD", help="dollars per million input tokens")
    command.add_argument("--output-price", type=_price, metavar="USD", help="dollars per million output tokens")
    command.add_argument("--dry-run", action="store_true", help="print what would be sent and stop (needs no endpoint)")
    command.add_argument("--yes", action="store_true",
                         help="send without asking (asked on a terminal after the plan; without one, nothing is "
                              "sent unless --yes)")


def _add_export(commands) -> None:
    export = commands.add_parser("export", help="write a configuration's chunks as JSONL for a pipeline",
                                 description="One JSON object per chunk: chunk_id, doc_id, index, start, end, "
                                             "prefix, text, tokens, token_unit, heading_path, spec.")
    _add_chunking(export)
    Stores.declare(export, repeatable=False, raw_offsets=True)
    export.add_argument("-o", "--output", metavar="FILE", default="-", help="output file (default: stdout)")
