"""The option groups every command shares, each declared once on a parser and read once from
argparse's namespace into a frozen value: how a corpus is read (``CorpusSource``), how chunks are
ranked (``Retrieval``), where runs are logged (``Tracking``) and the user's vector stores
(``Stores``), with the one-line refusals the parser cannot give. ``config`` puts them into a
``RunConfig``; nothing below the command line sees the namespace.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..corpus.sample import SAMPLE_CORPUS
from ..engines.open import ENGINES
from ..errors import ArgumentRefused
from ..model import MODES

if TYPE_CHECKING:
    from ..retrieval.retriever_spec import RetrieverSpec

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
                                  "bundled model), hybrid, dense:minilm (all-MiniLM-L6-v2), dense:model2vec:PATH, "
                                  "dense:onnx:PATH or dense:openai:MODEL; |late after minilm or onnx chunks late")
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
