"""``python -m inspector``: the engine's reports from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time

from .corpus import load_corpus
from .errors import InspectorError
from .report import build_report, format_report
from .spec import ARTICLE_SPECS, SWEEP_BUDGETS, parse_spec
from .workspace import Workspace


class _Parser(argparse.ArgumentParser):
    """Refuses bad arguments with one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


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


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m inspector", description="Chunk Inspector: what your splitter does to your documents.")
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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "report":
            return _report(args)
    except InspectorError as exc:
        sys.stderr.write(f"python -m inspector: error: {exc}\n")
        return 2
    return 2  # pragma: no cover - argparse requires a command


def _report(args: argparse.Namespace) -> int:
    specs = [parse_spec(s) for s in args.spec] if args.spec else list(ARTICLE_SPECS)
    sweep = parse_spec(args.sweep)
    try:
        budgets = tuple(int(b) for b in args.budgets.split(",") if b.strip())
    except ValueError:
        sys.stderr.write(f"python -m inspector: error: --budgets must be whole numbers, got {args.budgets!r}\n")
        return 2
    if not budgets or any(b <= 0 for b in budgets):
        sys.stderr.write("python -m inspector: error: --budgets needs positive whole numbers\n")
        return 2
    for budget in budgets:
        sweep.with_budget(budget)
    corpus = load_corpus(args.corpus, mode=args.atoms)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        sys.stderr.write(f"python -m inspector: error: no readable documents in {args.corpus}\n")
        return 2
    progress = _ProgressBar(enabled=not args.quiet)
    report = build_report(Workspace(corpus, args.atoms), specs=specs, sweep_spec=sweep,
                          budgets=budgets, progress=progress)
    report["skipped"] = [{"path": s.path, "reason": s.reason} for s in corpus.skipped]
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        sys.stdout.write(format_report(report))
    return 0
