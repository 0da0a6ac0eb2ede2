"""The command line read once: argv becomes a frozen ``RunConfig`` that the commands take.

The options every command shares are declared here once (how a corpus is read, how chunks are
ranked, where runs are logged) and turned into typed values in one place, with the one-line
refusals the parser cannot give. Nothing below the command line sees argparse's namespace.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..corpus.sample import SAMPLE_CORPUS
from ..engines.open import ENGINES
from ..errors import ArgumentRefused
from ..model import MODES

if TYPE_CHECKING:
    from ..retrieval.retriever_spec import RetrieverSpec
    from ..spec import SplitterSpec

#: The widest neighbour window ``--expand`` takes (each side).
MAX_EXPAND = 20
#: ``--rerank-depth`` when none is given.
RERANK_DEPTH = 50


@dataclass(frozen=True, slots=True)
class CorpusSource:
    """How a command reads its corpus, and which engine measures it."""

    path: str
    """A folder (read recursively) or one file."""

    mode: str = "markdown"
    """The atom detector: ``markdown`` or ``seed``."""

    files_from: str | None = None
    """A file listing the files to read (``-``: standard input)."""

    keep_front_matter: bool = False
    converter: str = "markitdown"
    engine: str = "local"
    """One of ``engines.open.ENGINES``, as given."""

    @staticmethod
    def declare(command: argparse.ArgumentParser) -> None:
        """The corpus-reading options of a command."""
        command.add_argument("corpus", nargs="?", default=None,
                             help="a folder (read recursively) or one file (default: the bundled sample corpus)")
        command.add_argument("--atoms", choices=MODES, default="markdown",
                             help="atom detector: markdown-it-py (default), plain (text without markup: figure "
                                  "and citing sentences only) or seed (the article's exact rules)")
        command.add_argument("--files-from", metavar="LIST",
                             help="read only the files LIST names, one path per line, relative to the corpus "
                                  "folder (- for standard input); a listed file that is missing is skipped with "
                                  "the reason")
        command.add_argument("--keep-front-matter", action="store_true",
                             help="read files with their front matter in the text, as a pipeline reading raw files "
                                  "does")
        command.add_argument("--converter", choices=("markitdown", "docling"), default="markitdown",
                             help="what turns PDF, DOCX, PPTX, XLSX and HTML files into markdown (docling: when "
                                  "installed)")

    @staticmethod
    def declare_engine(command: argparse.ArgumentParser) -> None:
        command.add_argument("--engine", choices=ENGINES, default="local",
                             help="where documents are read, analysed and measured: this machine with the corpus "
                                  "in memory (memory), this machine a batch of documents at a time, the rest parked "
                                  "on disk (stream; options that need the whole corpus hold it in memory), memory "
                                  "or stream by the corpus's size (local, the default: stream from 16 MB of files), "
                                  "or a Ray cluster (ray: $RAY_ADDRESS, else a local Ray; needs the ray[data] extra)")

    @classmethod
    def read(cls, given: argparse.Namespace, engine: bool = True) -> "CorpusSource":
        return cls(given.corpus or str(SAMPLE_CORPUS), given.atoms, given.files_from, given.keep_front_matter,
                   given.converter, given.engine if engine else "local")


def expand_width(text: str) -> int:
    """An ``--expand`` value: a whole number of neighbours from 1 to ``MAX_EXPAND``."""
    if not (text.isascii() and text.isdigit() and len(text) <= 3) or not 1 <= int(text) <= MAX_EXPAND:
        raise argparse.ArgumentTypeError(f"--expand takes a whole number of neighbours from 1 to {MAX_EXPAND}")
    return int(text)


@dataclass(frozen=True, slots=True)
class Retrieval:
    """How chunks are ranked for the probe and the golden sets, and read once ranked."""

    retriever: "RetrieverSpec"
    """``--retriever`` with ``--rerank`` (and its depth) put together."""

    embeddings_url: str | None = None
    rerank_url: str | None = None
    expand: tuple[int, ...] = ()
    """Neighbour widths, in the order given, each once."""

    @staticmethod
    def declare(command: argparse.ArgumentParser, repeatable_expand: bool = False) -> None:
        command.add_argument("--expand", metavar="W", type=expand_width, action="append", default=[],
                             help="also read each retrieved chunk with W neighbours either side (retrieve small, "
                                  "read big): answer@5, cut, context tokens and golden recall once more per W"
                                  + (" (repeatable)" if repeatable_expand else ""))
        command.add_argument("--retriever", metavar="SPEC", default="bm25",
                             help="what ranks chunks for the probe and the golden set: bm25 (default), dense (the "
                                  "bundled model), hybrid, dense:model2vec:PATH or dense:openai:MODEL")
        command.add_argument("--embeddings-url", metavar="URL",
                             help="base URL of an OpenAI-compatible embeddings server (default $OPENAI_BASE_URL)")
        command.add_argument("--rerank", metavar="SPEC",
                             help="rerank the retriever's best chunks: cohere:MODEL, jina:MODEL, vllm:MODEL, tei or "
                                  "infinity:MODEL (the key from $CHUNK_INSPECTOR_RERANK_KEY, else $COHERE_API_KEY or "
                                  "$JINA_API_KEY)")
        command.add_argument("--rerank-depth", metavar="N", type=int, default=RERANK_DEPTH,
                             help="how many of the retriever's best chunks the reranker reorders (default 50)")
        command.add_argument("--rerank-url", metavar="URL",
                             help="the reranker server's root (default $CHUNK_INSPECTOR_RERANK_URL; Cohere's and "
                                  "Jina's own for theirs)")

    @classmethod
    def read(cls, given: argparse.Namespace) -> "Retrieval":
        from ..errors import RetrieverError
        from ..retrieval.retriever_spec import parse_retriever

        spec = parse_retriever(given.retriever)
        if given.rerank:
            if spec.reranker:
                raise RetrieverError("give the reranker once: in --retriever (…|rerank=…) or as --rerank")
            spec = spec.reranked(given.rerank, given.rerank_depth)
        elif given.rerank_depth != RERANK_DEPTH:
            raise RetrieverError("--rerank-depth goes with --rerank")
        return cls(spec, given.embeddings_url, given.rerank_url, tuple(dict.fromkeys(given.expand)))

    @property
    def width(self) -> int:
        """The one neighbour width of a command that reads one (0: none)."""
        return self.expand[-1] if self.expand else 0


@dataclass(frozen=True, slots=True)
class Tracking:
    """Where runs are logged (``--mlflow``; None: not logged)."""

    uri: str | None = None
    experiment: str = "chunk-inspector"

    @staticmethod
    def declare(command: argparse.ArgumentParser) -> None:
        command.add_argument("--mlflow", metavar="TRACKING_URI", nargs="?", const="./mlruns",
                             help="log one MLflow run per splitter configuration (default store ./mlruns; needs "
                                  "the mlflow-skinny extra)")
        command.add_argument("--mlflow-experiment", metavar="NAME", default="chunk-inspector",
                             help="the MLflow experiment of the runs (default chunk-inspector)")

    @classmethod
    def read(cls, given: argparse.Namespace) -> "Tracking":
        return cls(given.mlflow, given.mlflow_experiment)

    @property
    def on(self) -> bool:
        return self.uri is not None


@dataclass(frozen=True, slots=True)
class Stores:
    """The user's vector stores read as chunkings (``--store``), and how their metadata is read."""

    addresses: tuple = ()
    """``stores.address.StoreAddress`` values, in the order given."""

    fields: object = None
    """``stores.fields.StoreFields`` (None: the conventions alone)."""

    raw_offsets: bool = False
    """Offsets count in the raw files, front matter included."""

    @staticmethod
    def declare(command: argparse.ArgumentParser, *, repeatable: bool, raw_offsets: bool) -> None:
        """``--store``, ``--store-field`` and, with ``raw_offsets`` (a command that has none yet),
        ``--raw-offsets``."""
        command.add_argument("--store", metavar="URI", action="append" if repeatable else "store",
                             help="read your chunks from your vector store: chroma:PATH?collection=NAME, "
                                  "chroma+http://HOST:PORT?collection=NAME, qdrant:PATH?collection=NAME, "
                                  "qdrant+http://…, lancedb:PATH?table=NAME, milvus:FILE.db?collection=NAME, "
                                  "milvus+http://…, "
                                  "postgresql://USER@HOST/DB?table=NAME[&text=COL&id=COL&metadata=COL]; "
                                  "credentials from $CHUNK_INSPECTOR_STORE_KEY / $CHUNK_INSPECTOR_STORE_PASSWORD"
                                  + (" (repeatable)" if repeatable else ""))
        command.add_argument("--store-field", metavar="doc=KEY,start=KEY,end=KEY,text=KEY",
                             help="with --store: the metadata keys holding each chunk's document, offsets and text, "
                                  "when they are not LangChain's, LlamaIndex's, Haystack's or Chonkie's")
        if raw_offsets:
            command.add_argument("--raw-offsets", action="store_true",
                                 help="with --store: offsets count in the raw files, front matter included")

    @classmethod
    def read(cls, given: argparse.Namespace) -> "Stores":
        from ..errors import StoreAddressError
        from ..stores.address import parse_store
        from ..stores.fields import StoreFields

        texts = given.store if isinstance(given.store, list) else [given.store] if given.store else []
        field_text = given.store_field
        try:
            addresses = tuple(parse_store(text) for text in texts)
            fields = StoreFields.parse(field_text or "")
        except StoreAddressError as exc:
            raise ArgumentRefused(str(exc)) from None
        if field_text and not addresses:
            raise ArgumentRefused("--store-field goes with --store")
        if len(set(map(str, addresses))) != len(addresses):
            raise ArgumentRefused("the same --store is given twice")
        return cls(addresses, fields, given.raw_offsets)


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


@dataclass(frozen=True, slots=True)
class RunConfig:
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

    options: object = None
    """The command's own options (``ReportOptions``, ``CheckOptions``, ``ExportOptions``,
    ``TuneOptions``, ``ContextOptions`` or ``AppOptions``)."""

    @property
    def spec(self) -> str | None:
        """The one ``--spec`` of a command measuring one chunking (None: none given)."""
        return self.specs[0] if self.specs else None

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


@dataclass(frozen=True, slots=True)
class ReportOptions:
    sweep: str = "structured:800"
    budgets: str = ""
    jobs: int = 0
    fixes: str | None = None
    by_format: bool = False
    by_language: bool = False
    intervals: bool | None = None


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


def run_config(given: argparse.Namespace, environ=None) -> RunConfig:
    """``given`` (argparse's namespace of one command) and the environment, read once; an
    argument the parser took but that cannot be used is refused (``ArgumentRefused``)."""
    from ..context.writer import ENV_MODEL

    if given.command == "app":
        return RunConfig("app", CorpusSource(given.corpus or ""), options=AppOptions.read(given))
    environ = os.environ if environ is None else environ
    model = (given.context_model or environ.get(ENV_MODEL, "")).strip()
    return _READERS[given.command](given, model)


def _report(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("report", CorpusSource.read(g), tuple(g.spec or ()), Retrieval.read(g), Tracking.read(g),
                     Stores.read(g), tuple(g.golden or ()), g.questions, g.json, g.quiet, model,
                     ReportOptions(g.sweep, g.budgets, g.jobs, g.fixes, g.by_format, g.by_language, g.intervals))


def _check(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("check", CorpusSource.read(g), (g.spec,) if g.spec else (), Retrieval.read(g), Tracking.read(g),
                     Stores.read(g), (g.golden,) if g.golden else (), None, g.json, False, model,
                     CheckOptions(g.chunks, g.budget, g.unit, g.default_doc, tuple(g.min), tuple(g.max), g.baseline,
                                  g.tolerance, g.count_tolerance, g.strict, g.write_baseline))


def _export(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("export", CorpusSource.read(g), (g.spec,) if g.spec else (), stores=Stores.read(g),
                     context_model=model, options=ExportOptions(g.output))


def _tune(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("tune", CorpusSource.read(g), (), Retrieval.read(g), Tracking.read(g), Stores(),
                     tuple(g.golden or ()), g.questions, g.json, g.quiet, model,
                     TuneOptions(g.context, g.cap, g.max_duplication, g.space, g.jobs))


def _context(g: argparse.Namespace, model: str) -> RunConfig:
    return RunConfig("context", CorpusSource.read(g, engine=False), (g.spec,) if g.spec else (),
                     context_model=model,
                     options=ContextOptions(g.context_url, g.context_model, g.input_price, g.output_price, g.dry_run,
                                            g.yes, g.import_file, g.name))


_READERS = {"report": _report, "check": _check, "export": _export, "tune": _tune, "context": _context}
