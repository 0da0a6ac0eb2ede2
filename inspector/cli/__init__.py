"""``python -m inspector``: the engine's reports from the command line.

The parser and the dispatch live here; each command in its module (``report``, ``check`` for
``check`` and ``export``), what they share in ``common``. The engine (numpy, the splitters, the
probe) is imported inside the commands: ``report`` first forks its analysis workers, so they
parse the corpus while this process imports.
"""

from __future__ import annotations

import argparse
import gc
import sys

from ..data_folder import damaged
from ..engines.open import ENGINES
from ..errors import InspectorError
from ..spec import SWEEP_BUDGETS
from .check import run_check, run_export
from .common import fail, one_line
from .context import run_context
from .report import run_report
from .stores import add_store_options
from .tune import add_tune, run_tune

#: The widest neighbour window ``--expand`` takes (each side).
MAX_EXPAND = 20


def _width(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 3) or not 1 <= int(text) <= MAX_EXPAND:
        raise argparse.ArgumentTypeError(f"--expand takes a whole number of neighbours from 1 to {MAX_EXPAND}")
    return int(text)


class _Parser(argparse.ArgumentParser):
    """Refuses bad arguments with one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse echoes the refused value, however long and whatever it holds.
        self.exit(2, f"{self.prog}: error: {one_line(message)}\n")


def _parser(measure_help: bool = True) -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m inspector",
                     description="Chunk Inspector: what your splitter does to your documents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    report = commands.add_parser("report", help="the article's four tables for a corpus")
    report.add_argument("corpus", help="a folder (read recursively) or one file")
    report.add_argument("--atoms", choices=("markdown", "seed"), default="markdown",
                        help="atom detector: markdown-it-py (default) or the article's exact rules")
    report.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    report.add_argument("--intervals", action=argparse.BooleanOptionalAction, default=None,
                        help="print each rate's 95%% interval and each table's verdict (default: on, except with "
                             "--atoms seed, whose tables stay the article's); --json always carries them")
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
    report.add_argument("--files-from", metavar="LIST",
                        help="read only the files LIST names, one path per line, relative to the corpus folder "
                             "(- for standard input); a listed file that is missing is skipped with the reason")
    report.add_argument("--keep-front-matter", action="store_true",
                        help="read files with their front matter in the text, as a pipeline reading raw files does")
    report.add_argument("--converter", choices=("markitdown", "docling"), default="markitdown",
                        help="what turns PDF, DOCX, PPTX, XLSX and HTML files into markdown (docling: when installed)")
    report.add_argument("--fixes", metavar="SPEC",
                        help="add the fixes table: from SPEC, none → structure + header → + heading path → + address "
                             "stamp → + context line → + neighbours read, each measured (with the first --golden)")
    report.add_argument("--by-format", action="store_true",
                        help="also break survival down by source format (markdown, PDF, DOCX, HTML, ...)")
    report.add_argument("--by-language", action="store_true",
                        help="also break survival down by each document's language (en, de, zh, ...)")
    _add_retrieval(report)
    _add_tracking(report)
    add_store_options(report, repeatable=True, raw_offsets=True)
    _add_check(commands, measure_help)
    _add_export(commands)
    _add_context(commands)
    add_tune(commands, _add_retrieval, _add_tracking)
    for command in (report, *(commands.choices[name] for name in ("check", "export", "tune"))):
        command.add_argument("--engine", choices=ENGINES, default="local",
                             help="where documents are read, analysed and measured: this machine with the corpus "
                                  "in memory (memory), this machine a batch of documents at a time, the rest parked "
                                  "on disk (stream; options that need the whole corpus hold it in memory), memory "
                                  "or stream by the corpus's size (local, the default: stream from 16 MB of files), "
                                  "or a Ray cluster (ray: $RAY_ADDRESS, else a local Ray; needs the ray[data] extra)")
        command.add_argument("--context-model", metavar="MODEL",
                             help="the model whose context lines +context specs without ;llm= use "
                                  "(default $CHUNK_INSPECTOR_CONTEXT_MODEL)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    # Only ``check --help`` shows the measure list, and building it loads the gate module.
    parser = _parser(measure_help="check" in (sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    # A one-shot run allocates millions of small, acyclic tuples; the cyclic garbage collector
    # would rescan them over and over (a third of the run time) while finding nothing to free.
    collecting = gc.isenabled()
    gc.disable()
    before = damaged()
    try:
        if getattr(args, "engine", "local") == "ray":
            from ..engines.ray.session import ray_session

            with ray_session():  # Ray starts when the command first needs it
                return _run(args)
        return _run(args)
    except InspectorError as exc:
        return fail(str(exc))
    finally:
        for opened in getattr(args, "opened", ()):  # corpora parked on disk by the streamed engine
            opened.close()
        if collecting:
            gc.enable()
        for store, count in sorted(damaged().items()):
            found = count - before.get(store, 0)
            if found:
                sys.stderr.write(f"note: {found:,} damaged row{'s' * (found != 1)} of {store} in the data folder "
                                 f"{'were' if found != 1 else 'was'} set aside and computed again\n")


def _run(args: argparse.Namespace) -> int:
    if args.command == "report":
        return run_report(args)
    if args.command == "check":
        return run_check(args)
    if args.command == "export":
        return run_export(args)
    if args.command == "context":
        return run_context(args)
    if args.command == "tune":
        return run_tune(args)
    return 2  # pragma: no cover - argparse requires a command


def _add_tracking(command: argparse.ArgumentParser) -> None:
    command.add_argument("--mlflow", metavar="TRACKING_URI", nargs="?", const="./mlruns",
                         help="log one MLflow run per splitter configuration (default store ./mlruns; needs "
                              "the mlflow-skinny extra)")
    command.add_argument("--mlflow-experiment", metavar="NAME", default="chunk-inspector",
                         help="the MLflow experiment of the runs (default chunk-inspector)")


def _add_retrieval(command: argparse.ArgumentParser) -> None:
    command.add_argument("--expand", metavar="W", type=_width, action="append", default=[],
                         help="also read each retrieved chunk with W neighbours either side (retrieve small, "
                              "read big): answer@5, cut, context tokens and golden recall once more per W"
                              + (" (repeatable)" if command.prog.endswith("report") else ""))
    command.add_argument("--retriever", metavar="SPEC", default="bm25",
                         help="what ranks chunks for the probe and the golden set: bm25 (default), dense (the "
                              "bundled model), hybrid, dense:model2vec:PATH or dense:openai:MODEL")
    command.add_argument("--embeddings-url", metavar="URL",
                         help="base URL of an OpenAI-compatible embeddings server (default $OPENAI_BASE_URL)")
    command.add_argument("--rerank", metavar="SPEC",
                         help="rerank the retriever's best chunks: cohere:MODEL, jina:MODEL, vllm:MODEL, tei or "
                              "infinity:MODEL (the key from $CHUNK_INSPECTOR_RERANK_KEY, else $COHERE_API_KEY or "
                              "$JINA_API_KEY)")
    command.add_argument("--rerank-depth", metavar="N", type=int, default=50,
                         help="how many of the retriever's best chunks the reranker reorders (default 50)")
    command.add_argument("--rerank-url", metavar="URL",
                         help="the reranker server's root (default $CHUNK_INSPECTOR_RERANK_URL; Cohere's and "
                              "Jina's own for theirs)")


def _add_chunking(command: argparse.ArgumentParser) -> None:
    command.add_argument("corpus", help="a folder (read recursively) or one file")
    command.add_argument("--spec", metavar="SPEC",
                         help="splitter, e.g. structured:800, heading:256t, an adapter such as "
                              "ext-langchain:800/100, or imported:ID for a chunk set kept by the app")
    command.add_argument("--atoms", choices=("markdown", "seed"), default="markdown",
                         help="atom detector: markdown-it-py (default) or the article's exact rules")
    command.add_argument("--files-from", metavar="LIST",
                         help="read only the files LIST names, one path per line, relative to the corpus folder "
                              "(- for standard input); a listed file that is missing is skipped with the reason")
    command.add_argument("--keep-front-matter", action="store_true",
                         help="read files with their front matter in the text, as a pipeline reading raw files does")
    command.add_argument("--converter", choices=("markitdown", "docling"), default="markitdown",
                         help="what turns PDF, DOCX, PPTX, XLSX and HTML files into markdown (docling: when installed)")


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
    add_store_options(check, repeatable=False, raw_offsets=False)
    check.add_argument("--min", action="append", default=[], metavar="NAME=VALUE", help="a floor (repeatable)")
    check.add_argument("--max", action="append", default=[], metavar="NAME=VALUE", help="a ceiling (repeatable)")
    check.add_argument("--golden", metavar="FILE", help="golden set (JSONL, Chroma's questions_df.csv or CSV) "
                                                        "adding recall@2000 and recall@4000")
    _add_retrieval(check)
    _add_tracking(check)
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
    context.add_argument("--context-url", metavar="URL",
                         help="base URL of the chat endpoint (default $CHUNK_INSPECTOR_CONTEXT_URL, then "
                              "$OPENAI_BASE_URL); the key is $CHUNK_INSPECTOR_CONTEXT_KEY or $OPENAI_API_KEY")
    context.add_argument("--context-model", metavar="MODEL",
                         help="the chat model (default: the spec's ;llm=, then $CHUNK_INSPECTOR_CONTEXT_MODEL)")
    context.add_argument("--input-price", type=_price, metavar="USD", help="dollars per million input tokens")
    context.add_argument("--output-price", type=_price, metavar="USD", help="dollars per million output tokens")
    context.add_argument("--dry-run", action="store_true", help="print what would be sent and stop (needs no endpoint)")
    context.add_argument("--yes", action="store_true",
                         help="send without asking (asked on a terminal after the plan; without one, nothing is "
                              "sent unless --yes)")
    context.add_argument("--import", dest="import_file", metavar="FILE",
                         help="keep lines written elsewhere (JSONL: chunk_id or doc_id/start/end, and line)")
    context.add_argument("--name", metavar="NAME", help="with --import: the name the lines are kept under")


def _add_export(commands) -> None:
    export = commands.add_parser("export", help="write a configuration's chunks as JSONL for a pipeline",
                                 description="One JSON object per chunk: chunk_id, doc_id, index, start, end, "
                                             "prefix, text, tokens, token_unit, heading_path, spec.")
    _add_chunking(export)
    add_store_options(export, repeatable=False, raw_offsets=True)
    export.add_argument("-o", "--output", metavar="FILE", default="-", help="output file (default: stdout)")
