"""The command line read once: argv becomes a frozen ``RunConfig`` that the commands take.

The option groups every command shares are ``options``'; each command's own options are here,
and ``run_config`` reads them all from argparse's namespace in one place, with the one-line
refusals the parser cannot give. Nothing below the command line sees the namespace.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from ..errors import ArgumentRefused
from ..measure.cost import Prices
from .options import CorpusSource, Retrieval, Stores, Tracking

if TYPE_CHECKING:
    from ..measure.services import Services
    from ..spec import SplitterSpec


@dataclass(frozen=True, slots=True)
class AppOptions:
    """``app``: where its server listens and what a visitor may open (read again, in the server,
    by ``views.launch``)."""

    allow_roots: tuple[str, ...] = ()
    stores: tuple[str, ...] = ()
    """``NAME=URI`` or ``URI`` as given: the app names each store it refuses on its first page."""

    port: int = 8501
    address: str = "localhost"
    browser: bool = True

    @staticmethod
    def declare(command: argparse.ArgumentParser) -> None:
        command.add_argument("corpus", nargs="?", default=None,
                             help="the folder the app opens (and may read under); default: the bundled sample corpus")
        command.add_argument("--allow-root", metavar="FOLDER", action="append", default=[],
                             help="a folder under which a visitor may open any folder (repeatable)")
        command.add_argument("--store", metavar="[NAME=]URI", action="append", default=[],
                             help="a vector store a visitor may read by name on \"Your index\" (repeatable)")
        command.add_argument("--port", type=_port, default=8501, help="the server's port (default 8501)")
        command.add_argument("--address", default="localhost",
                             help="the address the server listens on (default localhost: this machine only; "
                                  "0.0.0.0 serves the network)")
        command.add_argument("--no-browser", action="store_true", help="do not open a browser tab")

    @classmethod
    def read(cls, given: argparse.Namespace) -> "AppOptions":
        return cls(tuple(given.allow_root), tuple(given.store), given.port, given.address, not given.no_browser)


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"a port is a whole number from 1 to 65535, got {text[:20]!r}")
    return int(text)


#: A command's own options: ``ReportOptions``, ``CheckOptions``, ``ExportOptions``, ``TuneOptions``,
#: ``ContextOptions``, ``ReviewOptions`` or ``AppOptions``.
CommandOptions = TypeVar("CommandOptions")


@dataclass(frozen=True, slots=True)
class RunConfig(Generic[CommandOptions]):
    """One command's run, as argv and the environment gave it."""

    command: str
    corpus: CorpusSource
    specs: tuple[str, ...] = ()
    """``--spec`` as given (``report``: each splitter compared; the others: their one chunking)."""

    retrieval: Retrieval | None = None
    tracking: Tracking = Tracking()
    stores: Stores = Stores()
    golden: tuple[str, ...] = ()
    questions: str | None = None
    json: bool = False
    quiet: bool = False
    context_model: str = ""
    """The model whose context lines ``+context`` specs without ``;llm=`` use (``--context-model``,
    else ``$CHUNK_INSPECTOR_CONTEXT_MODEL``)."""

    options: CommandOptions | None = None
    """The command's own options: ``RunConfig[ReportOptions]`` for ``report``, and so on."""

    @property
    def spec(self) -> str | None:
        """The one ``--spec`` of a command measuring one chunking (None: none given)."""
        return self.specs[0] if self.specs else None

    @property
    def services(self) -> "Services":
        """The folders and servers the run's corpus is opened with: the data folder
        (``CHUNK_INSPECTOR_DATA``, where the app keeps chunk sets, vectors, context lines and
        analyses) and the retrieval's servers."""
        from ..data_folder import data_folder
        from ..measure.services import Services

        servers = (self.retrieval.embeddings_url or "", self.retrieval.rerank_url or "") if self.retrieval else ()
        return Services.in_folder(data_folder(), *servers)

    @property
    def golden_file(self) -> str | None:
        """The one ``--golden`` of a command taking one (None: none given)."""
        return self.golden[0] if self.golden else None

    def with_context_model(self, spec: "SplitterSpec") -> "SplitterSpec":
        """A ``+context`` spec with its model named: the spec's own ``;llm=``, else the run's
        ``context_model``."""
        from dataclasses import replace

        from ..errors import ContextLineError

        if not spec.context or spec.context_model:
            return spec
        if not self.context_model:
            from ..context.writer import SETTINGS_HELP  # with an HTTP client: imported when needed

            raise ContextLineError(f"{spec} needs the model that wrote its lines: add ;llm=MODEL, or "
                                   + SETTINGS_HELP)
        return replace(spec, context_model=self.context_model)


#: The most worker processes ``--jobs`` starts (each forks a copy of this one).
MAX_JOBS = 64
#: The most budgets one sweep measures (as on the app's Budget sweep page).
MAX_SWEEP_BUDGETS = 24
#: The most splitters one ``ask`` compares.
MAX_ASK_SPECS = 8


@dataclass(frozen=True, slots=True)
class ReportOptions:
    sweep: str = "structured:800"
    budgets: tuple[int, ...] = ()
    """``--budgets``, read: the sweep's budgets, each one the sweep's splitter takes."""
    jobs: int = 0
    """``--jobs`` (0: as many as the machine's processors)."""
    fixes: str | None = None
    by_format: bool = False
    by_language: bool = False
    intervals: bool | None = None
    cost: bool = False
    prices: Prices = Prices()
    layout: str = "article"
    """``--layout``: how golden sets print (``article`` or ``chroma``)."""


@dataclass(frozen=True, slots=True)
class CheckOptions:
    chunks: str | None = None
    budget: int | None = None
    unit: str = "chars"
    default_doc: str | None = None
    floors: tuple[str, ...] = ()
    ceilings: tuple[str, ...] = ()
    baseline: str | None = None
    tolerance: float = 0.0
    count_tolerance: float = 0.0
    strict: bool = False
    write_baseline: str | None = None


@dataclass(frozen=True, slots=True)
class AskOptions:
    question: str
    quote: str | None = None
    """``--quote``: the passage that answers, looked for in the corpus."""

    k: int = 5


@dataclass(frozen=True, slots=True)
class ExportOptions:
    output: str = "-"


@dataclass(frozen=True, slots=True)
class TuneOptions:
    context: int = 2000
    cap: str | None = None
    max_duplication: float | None = None
    space: str | None = None
    jobs: int = 0


@dataclass(frozen=True, slots=True)
class ReviewOptions:
    round_id: str
    data: str | None = None
    """``--data``: the data folder holding the review store (else the server's, from the environment)."""

    base_url: str = ""
    """``--base-url``: the app's address, for the round's link."""

    model: str = ""
    """``--model``: a chat model asked the round's questions as an extra reviewer."""

    context_url: str | None = None
    """``--context-url``: the model's OpenAI-compatible endpoint (else the environment's)."""

    sample: int = 0
    """``--sample N``: N more chunks drawn from the corpus for the model to answer."""

    input_price: float | None = None
    output_price: float | None = None
    dry_run: bool = False
    yes: bool = False


@dataclass(frozen=True, slots=True)
class ContextOptions:
    context_url: str | None = None
    given_model: str | None = None
    """``--context-model`` alone (the environment's model is the run's ``context_model``)."""

    input_price: float | None = None
    output_price: float | None = None
    dry_run: bool = False
    yes: bool = False
    import_file: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class GoldenOptions:
    """``golden``: where the set goes, how many questions a document is asked for, the model's
    endpoint and prices, and whether to send."""

    output: str = "-"
    per_document: int = 2
    context_url: str | None = None
    input_price: float | None = None
    output_price: float | None = None
    dry_run: bool = False
    yes: bool = False


def run_config(given: argparse.Namespace, environ=None) -> RunConfig:
    """``given`` (argparse's namespace of one command) and the environment, read once; an
    argument the parser took but that cannot be used is refused (``ArgumentRefused``)."""
    from ..context.writer import ENV_MODEL

    if given.command == "app":
        return RunConfig("app", CorpusSource(given.corpus or ""), options=AppOptions.read(given))
    if given.command == "review":
        return _review(given)
    environ = os.environ if environ is None else environ
    model = (given.context_model or environ.get(ENV_MODEL, "")).strip()
    return _READERS[given.command](given, model)


def _store_search_checked(config: RunConfig) -> RunConfig:
    """Refused when a store would be asked itself (``--store`` with questions) without the
    operator's embedder: nothing a store's folder records decides where questions are sent."""
    asks = bool(config.golden) or bool(config.questions)
    if config.stores.addresses and asks and config.retrieval.retriever.dense is None:
        from ..stores.search import needs_embedder  # only now: it imports numpy, which workers fork without

        raise ArgumentRefused(str(needs_embedder(config.stores.addresses[0])))
    return config


def _report(g: argparse.Namespace, model: str) -> RunConfig:
    return _store_search_checked(_report_config(g, model))


def _report_config(g: argparse.Namespace, model: str) -> RunConfig:
    from ..spec import parse_spec

    budgets = _budgets(g.budgets)
    for budget in budgets:
        parse_spec(g.sweep).with_budget(budget)  # a SpecError says which budget the sweep's splitter refuses
    if g.layout == "chroma" and not g.golden:
        raise ArgumentRefused("--layout chroma lays out golden sets' scores: give one with --golden FILE")
    fixes = parse_spec(g.fixes) if g.fixes else None
    if fixes is not None and (fixes.is_imported or fixes.is_adapter):
        raise ArgumentRefused("--fixes takes a built-in splitter, e.g. recursive:800")
    return RunConfig("report", CorpusSource.read(g), tuple(g.spec or ()), Retrieval.read(g), Tracking.read(g),
                     Stores.read(g), tuple(g.golden or ()), g.questions, g.json, g.quiet, model,
                     ReportOptions(g.sweep, budgets, _jobs(g.jobs), g.fixes, g.by_format, g.by_language, g.intervals,
                                   g.cost, Prices(g.embed_price, g.input_price, g.output_price), g.layout))


def _budgets(text: str) -> tuple[int, ...]:
    """``--budgets`` read, or refused with the reason."""
    parts = [b.strip() for b in text.split(",") if b.strip()]
    if len(parts) > MAX_SWEEP_BUDGETS:
        raise ArgumentRefused(f"--budgets takes at most {MAX_SWEEP_BUDGETS} budgets, got {len(parts):,}")
    if not all(p.isascii() and p.isdigit() and len(p) <= 7 for p in parts):
        raise ArgumentRefused(f"--budgets must be whole numbers, got {text[:60]!r}{'…' if len(text) > 60 else ''}")
    budgets = tuple(int(p) for p in parts)
    if not budgets or any(b <= 0 for b in budgets):
        raise ArgumentRefused("--budgets needs positive whole numbers")
    return budgets


def _jobs(given: int) -> int:
    """``--jobs`` as given (0: the machine's processors), or refused."""
    if given and not 1 <= given <= MAX_JOBS:
        raise ArgumentRefused(f"--jobs must be from 1 to {MAX_JOBS}")
    return given


def _check(g: argparse.Namespace, model: str) -> RunConfig:
    return _store_search_checked(RunConfig(
        "check", CorpusSource.read(g), (g.spec,) if g.spec else (), Retrieval.read(g), Tracking.read(g),
        Stores.read(g), (g.golden,) if g.golden else (), None, g.json, False, model,
        CheckOptions(g.chunks, g.budget, g.unit, g.default_doc, tuple(g.min), tuple(g.max), g.baseline,
                     g.tolerance, g.count_tolerance, g.strict, g.write_baseline)))


def _ask(g: argparse.Namespace, model: str) -> RunConfig:
    from ..measure.asked import k_problem, question_problem

    problem = question_problem(g.question) or (k_problem(g.k) and "-" + k_problem(g.k))
    if problem:
        raise ArgumentRefused(problem)
    if len(g.spec or ()) > MAX_ASK_SPECS:
        raise ArgumentRefused(f"ask compares at most {MAX_ASK_SPECS} splitters, got {len(g.spec)}")
    if g.expand:
        raise ArgumentRefused("ask shows the chunks retrieved; leave out --expand")
    from ..spec import parse_spec

    for spec in g.spec or ():
        parse_spec(spec)  # refused before the corpus is read
    return RunConfig("ask", CorpusSource.read(g, engine=False), tuple(g.spec or ()), Retrieval.read(g),
                     json=g.json, context_model=model, options=AskOptions(g.question, g.quote, g.k))


def _export(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("export", CorpusSource.read(g), (g.spec,) if g.spec else (), stores=Stores.read(g),
                     context_model=model, options=ExportOptions(g.output))


def _tune(g: argparse.Namespace, model: str) -> RunConfig:
    if g.expand:
        raise ArgumentRefused("tune does not search neighbour windows; leave out --expand")
    if not 1 <= g.context <= 1_000_000:
        raise ArgumentRefused(f"--context is a number of tokens from 1 to 1,000,000, got {g.context}")
    if g.max_duplication is not None and not 1 <= g.max_duplication <= 100:
        raise ArgumentRefused(f"--max-duplication is a ratio of 1 or more (1.2: a fifth more text), got "
                              f"{g.max_duplication}")
    return RunConfig("tune", CorpusSource.read(g), (), Retrieval.read(g), Tracking.read(g), Stores(),
                     tuple(g.golden or ()), g.questions, g.json, g.quiet, model,
                     TuneOptions(g.context, g.cap, g.max_duplication, g.space, _jobs(g.jobs)))


def _context(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("context", CorpusSource.read(g, engine=False), (g.spec,) if g.spec else (),
                     context_model=model,
                     options=ContextOptions(g.context_url, g.context_model, g.input_price, g.output_price, g.dry_run,
                                            g.yes, g.import_file, g.name))


def _golden(g: argparse.Namespace, model: str) -> RunConfig:
    if not 1 <= g.per_document <= 20:
        raise ArgumentRefused(f"--per-document is a number of questions from 1 to 20, got {g.per_document}")
    return RunConfig("golden", CorpusSource.read(g, engine=False), context_model=model,
                     options=GoldenOptions(g.output, g.per_document, g.context_url, g.input_price, g.output_price,
                                           g.dry_run, g.yes))


def _review(g: argparse.Namespace) -> RunConfig:
    return RunConfig("review", CorpusSource(g.corpus or ""), json=g.json,
                     options=ReviewOptions(g.round, g.data, g.base_url, g.model or "", g.context_url, g.sample,
                                           g.input_price, g.output_price, g.dry_run, g.yes))


_READERS = {"ask": _ask, "report": _report, "check": _check, "export": _export, "tune": _tune, "context": _context,
            "golden": _golden}
