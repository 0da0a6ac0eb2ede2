"""``python -m inspector``: the engine's reports from the command line."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

from .corpus.load import load_corpus
from .errors import InspectorError
from .spec import ARTICLE_SPECS, SWEEP_BUDGETS, parse_spec

#: The most worker processes ``report --jobs`` starts (each forks a copy of this one).
MAX_JOBS = 64
#: The longest refusal printed (the rest of a long value is left out).
MAX_MESSAGE = 600
#: The most budgets one sweep measures (as on the app's Budget sweep page).
MAX_SWEEP_BUDGETS = 24

# The engine (numpy, the splitters, the probe) is imported inside the commands: ``report``
# first forks its analysis workers, so they parse the corpus while this process imports.


class _Parser(argparse.ArgumentParser):
    """Refuses bad arguments with one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse echoes the refused value, however long and whatever it holds.
        self.exit(2, f"{self.prog}: error: {_one_line(message)}\n")


class _ProgressBar:
    """A one-line progress bar on stderr (redrawn in place on a terminal)."""

    def __init__(self, stream=None, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.started = time.perf_counter()

    def __call__(self, what: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * done / total) if total else width
        elapsed = time.perf_counter() - self.started
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {what} ({elapsed:.1f}s)"
        end = "\n" if done >= total or not self.stream.isatty() else ""
        self.stream.write(("\r" if self.stream.isatty() else "") + line.ljust(72) + end)
        self.stream.flush()


def _parser(measure_help: bool = True) -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m inspector",
                     description="Chunk Inspector: what your splitter does to your documents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    report = commands.add_parser("report", help="the article's four tables for a corpus")
    report.add_argument("corpus", help="a folder (read recursively) or one file")
    report.add_argument("--atoms", choices=("markdown", "seed"), default="markdown",
                        help="atom detector: markdown-it-py (default) or the article's exact rules")
    report.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
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
    report.add_argument("--by-format", action="store_true",
                        help="also break survival down by source format (markdown, PDF, DOCX, HTML, ...)")
    _add_retrieval(report)
    _add_check(commands, measure_help)
    _add_export(commands)
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
    try:
        if args.command == "report":
            return _report(args)
        if args.command == "check":
            return _check(args)
        if args.command == "export":
            return _export(args)
    except InspectorError as exc:
        return _fail(str(exc))
    finally:
        if collecting:
            gc.enable()
    return 2  # pragma: no cover - argparse requires a command


def _add_retrieval(command: argparse.ArgumentParser) -> None:
    command.add_argument("--retriever", metavar="SPEC", default="bm25",
                         help="what ranks chunks for the probe and the golden set: bm25 (default), dense (the "
                              "bundled model), hybrid, dense:model2vec:PATH or dense:openai:MODEL")
    command.add_argument("--embeddings-url", metavar="URL",
                         help="base URL of an OpenAI-compatible embeddings server (default $OPENAI_BASE_URL)")


def _retriever(args: argparse.Namespace, workspace):
    """The run's retriever, its vectors kept in the data folder; a cache it cannot use is said."""
    from .data_folder import data_folder
    from .retrieval.remote import base_url_of
    from .retrieval.retriever_spec import parse_retriever

    spec = parse_retriever(args.retriever)
    if args.embeddings_url is not None or spec.embedder == "openai":
        base_url_of(args.embeddings_url)
    workspace.vector_folder, workspace.embeddings_url = data_folder(), args.embeddings_url
    retriever = workspace.retriever(spec)
    if retriever.warning:
        sys.stderr.write(f"note: {retriever.warning}\n")
    return retriever


def _report(args: argparse.Namespace) -> int:
    specs = [parse_spec(s) for s in args.spec] if args.spec else list(ARTICLE_SPECS)
    sweep = parse_spec(args.sweep)
    budgets = _budgets(args.budgets)
    if isinstance(budgets, str):
        return _fail(budgets)
    for budget in budgets:
        sweep.with_budget(budget)
    jobs = args.jobs or min(4, os.cpu_count() or 1)
    if not 1 <= jobs <= MAX_JOBS:
        return _fail(f"--jobs must be from 1 to {MAX_JOBS}")
    progress = _ProgressBar(enabled=not args.quiet)
    corpus = _read_corpus(args, progress)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        return _fail(f"no readable documents in {args.corpus}")
    from .measure.workers import IMPORTS_AND_TABLE_SHARE, Workers

    workers = Workers.start(list(corpus.documents), args.atoms, jobs, IMPORTS_AND_TABLE_SHARE.get(args.atoms, 1.0))
    try:
        from .measure.workspace import Workspace
        from .reports.article import build_report, format_report

        work = Workspace(corpus, args.atoms)
        if any(s.is_imported for s in specs):
            _with_chunk_sets(work)
        retriever = _retriever(args, work)
        golden = [_golden_set(path, corpus) for path in args.golden or ()]
        if any(isinstance(g, int) for g in golden):
            return 2
        questions = _question_set(args.questions) if args.questions else None
        if isinstance(questions, int):
            return questions
        report = build_report(work, specs=specs, sweep_spec=sweep, budgets=budgets, progress=progress, jobs=jobs,
                              workers=workers, retriever=retriever, golden=golden, questions=questions,
                              by_format=args.by_format)
    finally:
        if workers is not None:
            workers.close()
    report["skipped"] = [{"path": s.path, "reason": s.reason} for s in corpus.skipped]
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(report))
    return 0


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


# -- check and export ----------------------------------------------------------------------

def _add_chunking(command: argparse.ArgumentParser) -> None:
    command.add_argument("corpus", help="a folder (read recursively) or one file")
    command.add_argument("--spec", metavar="SPEC",
                         help="splitter, e.g. structured:800, heading:256t, an adapter such as "
                              "ext-langchain:800/100, or imported:ID for a chunk set kept by the app")
    command.add_argument("--atoms", choices=("markdown", "seed"), default="markdown",
                         help="atom detector: markdown-it-py (default) or the article's exact rules")


def _add_check(commands, measure_help: bool = True) -> None:
    epilog = None
    if measure_help:
        from .reports.gate import help_text

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
                       help="with --chunks: the size the chunks aimed at (for oversized and fit survival)")
    check.add_argument("--unit", metavar="UNIT", default="chars",
                       help="with --chunks: unit of --budget (chars, o200k, cl100k or a tokenizer.json)")
    check.add_argument("--default-doc", metavar="ID", help="with --chunks: document of records naming none")
    check.add_argument("--min", action="append", default=[], metavar="NAME=VALUE", help="a floor (repeatable)")
    check.add_argument("--max", action="append", default=[], metavar="NAME=VALUE", help="a ceiling (repeatable)")
    check.add_argument("--golden", metavar="FILE", help="golden set (JSONL, Chroma's questions_df.csv or CSV) "
                                                        "adding recall@2000 and recall@4000")
    _add_retrieval(check)
    check.add_argument("--baseline", metavar="FILE", help="fail on regressions against this baseline")
    check.add_argument("--tolerance", type=float, default=0.0, metavar="T",
                       help="fractions may fall this much below the baseline (default 0)")
    check.add_argument("--count-tolerance", type=float, default=0.0, metavar="T",
                       help="counts may move this fraction of the baseline (default 0)")
    check.add_argument("--write-baseline", metavar="FILE", help="write the measures as a baseline file")
    check.add_argument("--json", action="store_true", help="print one JSON object")


def _add_export(commands) -> None:
    export = commands.add_parser("export", help="write a configuration's chunks as JSONL for a pipeline",
                                 description="One JSON object per chunk: chunk_id, doc_id, index, start, end, "
                                             "prefix, text, tokens, token_unit, heading_path, spec.")
    _add_chunking(export)
    export.add_argument("-o", "--output", metavar="FILE", default="-", help="output file (default: stdout)")


def _fail(message: str) -> int:
    sys.stderr.write(f"python -m inspector: error: {_one_line(message)}\n")
    return 2


def _one_line(message: str) -> str:
    """A refusal as one printable line: control characters from the arguments shown escaped, a
    long refused value cut short."""
    if not message.isprintable():
        message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "…"


def _read_corpus(args, progress=None):
    """The corpus, its converted files kept in the data folder (a bar while files convert)."""
    from .corpus.conversions import FOLDER_NAME
    from .data_folder import data_folder

    bar = progress or _ProgressBar(enabled=sys.stderr.isatty())
    return load_corpus(args.corpus, mode=args.atoms, conversions=data_folder() / FOLDER_NAME,
                       progress=lambda done, total: bar("files converted", done, total))


def _load(args) -> tuple | int:
    corpus = _read_corpus(args)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        return _fail(f"no readable documents in {args.corpus}")
    from .measure.workspace import Workspace

    return corpus, _with_chunk_sets(Workspace(corpus, args.atoms))


def _with_chunk_sets(workspace):
    """``imported:ID`` specs name chunk sets kept by the app (``CHUNK_INSPECTOR_DATA``)."""
    from .chunks.sets import ChunkSetStore

    workspace.chunk_set_store = ChunkSetStore.in_data_folder()
    return workspace


def _say_problems(problems, source: str = "") -> None:
    """Every chunk made elsewhere that was not taken as given, one line each on stderr."""
    for problem in problems:
        where = f"{source}:{problem.line}" if source else problem.chunk_id
        sys.stderr.write(f"{where}: {problem.kind}: {problem.message}\n")


def _check(args: argparse.Namespace) -> int:
    from .reports.gate import baseline_document, check_gate, format_check, measure, write_baseline

    limits = _check_limits(args)
    if isinstance(limits, str):
        return _fail(limits)
    floors, ceilings, baseline, recall_budgets = limits
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    corpus, workspace = loaded
    chunking = _checked_chunking(args, workspace)
    if isinstance(chunking, int):
        return chunking
    measured, spec, label, unplaced = chunking
    golden = None
    if args.golden:
        golden = _golden_set(args.golden, corpus)
        if isinstance(golden, int):
            return golden
    from .retrieval.golden import DEFAULT_BUDGETS, golden_recall

    retriever = _retriever(args, measured)
    if not retriever.spec.is_default:
        texts = [q.text for q in measured.queries()] + measured.pool(spec).texts()
        bar = _ProgressBar(enabled=sys.stderr.isatty())
        retriever.prepare(texts + [i.question for i in golden.items] if golden else texts,
                          lambda done, total: bar("texts embedded", done, total))
    scored = None
    if golden is not None:
        budgets = tuple(sorted(set(DEFAULT_BUDGETS) | set(recall_budgets)))
        scored = golden_recall(measured, golden, spec, budgets=budgets, label=label, retriever=retriever)
    values = measure(measured, spec, fits=args.budget, golden=scored, unplaced=unplaced, retriever=retriever)
    try:
        result = check_gate(values, floors=floors, ceilings=ceilings, baseline=baseline,
                            tolerance=args.tolerance, count_tolerance=args.count_tolerance)
    except ValueError as exc:
        return _fail(str(exc))
    notes = list(result.notes)
    if not retriever.spec.is_default:
        notes.append(f"answer@5, cut and recall are ranked by {retriever.spec}")
    if scored is not None:
        notes.append(_golden_note(golden, scored))
    if baseline is not None and baseline.get("corpus", {}).get("fingerprint") not in (None, corpus.fingerprint):
        notes.append("the baseline was written for a different corpus")
    if baseline is not None and baseline.get("spec") not in (None, label):
        notes.append(f"the baseline was written for {baseline.get('spec')}, this run is {label}")
    if baseline is not None and baseline.get("retriever", "bm25") != str(retriever.spec):
        notes.append(f"the baseline was ranked by {baseline.get('retriever', 'bm25')}, this run by {retriever.spec}")
    if args.write_baseline:
        try:
            write_baseline(args.write_baseline, baseline_document(
                values, spec=label, mode=args.atoms, retriever=str(retriever.spec),
                corpus={"documents": len(corpus.documents), "characters": corpus.characters,
                        "fingerprint": corpus.fingerprint}))
        except OSError as exc:
            return _fail(f"cannot write {args.write_baseline}: {exc.strerror or exc}")
    if args.json:
        out = result.as_dict()
        out.update(spec=label, retriever=str(retriever.spec), notes=notes)
        if scored is not None:
            out["golden"] = {"name": golden.name, "questions": len(golden.items), "quotes": golden.quotes,
                             "left_out": golden.left_out(), "outcomes": {str(b): scored.counts(b) for b in budgets}}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
    else:
        title = f"check {label} on {args.corpus} ({len(corpus.documents)} documents, {args.atoms} atoms)"
        sys.stdout.write(format_check(title, result, notes))
    return 0 if result.passed else 1


def _check_limits(args: argparse.Namespace) -> tuple | str:
    """``check``'s floors, ceilings, baseline and recall budgets, or why the arguments are refused."""
    from .reports.gate import parse_limit, read_baseline

    if bool(args.spec) == bool(args.chunks):
        return "give either --spec SPEC or --chunks FILE"
    if args.tolerance < 0 or args.count_tolerance < 0:
        return "tolerances must be zero or more"
    if args.budget is not None and args.budget <= 0:
        return "--budget must be a positive whole number"
    try:
        floors = dict(parse_limit(t) for t in args.min)
        ceilings = dict(parse_limit(t) for t in args.max)
        baseline = read_baseline(args.baseline) if args.baseline else None
    except ValueError as exc:
        return str(exc)
    named = set(floors) | set(ceilings)
    recall_budgets = sorted({int(n[7:]) for n in named if n.startswith("recall@")})
    if recall_budgets and not args.golden:
        return "recall@B needs a golden set (--golden FILE)"
    if "unplaced" in named and not args.chunks:
        return "unplaced is measured only for imported chunks (--chunks FILE)"
    if args.spec:
        parse_spec(args.spec)
    return floors, ceilings, baseline, recall_budgets


def _checked_chunking(args: argparse.Namespace, workspace) -> tuple | int:
    """What ``check`` measures: ``(workspace, spec, label, unplaced)``. Chunks from a file are
    imported as a chunk set and measured on the documents they cover; a library splitter's
    misplaced chunks are reported."""
    if not args.chunks:
        spec = parse_spec(args.spec)
        _say_problems(workspace.problems(spec) if spec.is_adapter else ())
        return workspace, spec, str(spec), None
    from .chunks.importer import import_chunks
    from .chunks.sets import chunk_set_from_import
    from .spec import SplitterSpec

    result = import_chunks(args.chunks, workspace, default_doc=args.default_doc, workspace=workspace)
    _say_problems(result.problems, result.name)
    sys.stderr.write(result.summary() + "\n")
    if not result.imported:
        return _fail(f"no chunk of {result.name} could be placed on the corpus")
    if result.missing_documents:
        sys.stderr.write(f"{len(result.missing_documents)} of {len(workspace.documents)} documents received no "
                         "chunk; the measures cover the others\n")
    chunk_set = chunk_set_from_import(result, workspace)
    workspace.add_chunk_set(chunk_set)
    spec = SplitterSpec.imported(chunk_set.id, args.unit)
    return workspace.subset(result.chunks), spec, result.spec, len(result.unplaced)


def _golden_note(golden, scored) -> str:
    """How many questions were located, and how the misses at each budget divide."""
    located = f"golden set {golden.name}: {len(golden.items)} questions located ({golden.quotes} quotes)"
    if golden.left_out():
        located += f", {golden.left_out()} lines left out"
    parts = []
    for budget in scored.budgets:
        counts = scored.counts(budget)
        parts.append(f"at {budget}: {counts['hit']} hit, {counts['cut']} cut, {counts['rank-miss']} rank-miss, "
                     f"{counts['uncovered']} uncovered")
    return located + "; " + "; ".join(parts)


def _golden_set(path: str, corpus):
    """The golden set located in the corpus (its problems on stderr), or exit status 2."""
    from .retrieval.golden_files import load_golden

    golden = load_golden(path, corpus)
    for problem in golden.problems:
        sys.stderr.write(f"{golden.name}:{problem.line}: {problem.kind}: {problem.message}\n")
    if not golden.items:
        return _fail(f"no question of {golden.name} could be located in the corpus")
    return golden


def _question_set(path: str):
    """The user's questions (lines left out on stderr), or exit status 2."""
    from .retrieval.questions import load_questions

    questions = load_questions(path)
    for problem in questions.problems:
        sys.stderr.write(f"{questions.name}:{problem.line}: {problem.message}\n")
    if not questions.items:
        return _fail(f"no question could be read from {questions.name}")
    return questions


def _export(args: argparse.Namespace) -> int:
    from .chunks.export import export_chunks

    if not args.spec:
        return _fail("export needs --spec SPEC")
    spec = parse_spec(args.spec)
    loaded = _load(args)
    if isinstance(loaded, int):
        return loaded
    _, workspace = loaded
    if spec.is_adapter:
        _say_problems(workspace.problems(spec))
    if args.output == "-":
        try:
            export_chunks(workspace, spec, sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:
            # The reader (e.g. ``head``) stopped early; silence the interpreter's final flush.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
    else:
        try:
            with open(args.output, "w", encoding="utf-8") as stream:
                count = export_chunks(workspace, spec, stream)
        except OSError as exc:
            return _fail(f"cannot write {args.output}: {exc.strerror or exc}")
        sys.stderr.write(f"wrote {count} chunks to {args.output}\n")
    return 0
