"""What every command shares: one-line refusals, the progress bar, reading the corpus (its
converted files kept in the data folder), the retriever, golden sets and question files, and the
report of chunks that were not taken as given."""

from __future__ import annotations

import argparse
import os
import sys
import time

from ..corpus.listing import read_listing
from ..errors import CorpusError

#: The longest refusal printed (the rest of a long value is left out).
MAX_MESSAGE = 600
#: Chunks placed by their text a fixed shift from their offsets are harmless: the first few are
#: shown, the rest counted, so the lines that matter are not lost among them.
SHIFTS_SHOWN = 3


class ProgressBar:
    """A one-line progress bar on stderr (redrawn in place on a terminal)."""

    def __init__(self, stream=None, enabled: bool = True, estimate: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.estimate = estimate
        """Say how long the rest will take, at the pace so far."""
        self.started = time.perf_counter()

    def __call__(self, what: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 24
        filled = int(width * done / total) if total else width
        elapsed = time.perf_counter() - self.started
        left = f", about {elapsed / done * (total - done):.0f}s left" if self.estimate and 0 < done < total else ""
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {what} ({elapsed:.1f}s{left})"
        end = "\n" if done >= total or not self.stream.isatty() else ""
        self.stream.write(("\r" if self.stream.isatty() else "") + line.ljust(72) + end)
        self.stream.flush()


def fail(message: str) -> int:
    sys.stderr.write(f"python -m inspector: error: {one_line(message)}\n")
    return 2


def one_line(message: str) -> str:
    """A refusal as one printable line: control characters from the arguments shown escaped, a
    long refused value cut short."""
    if not message.isprintable():
        message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "…"


def read_corpus(args, progress=None, ahead=None):
    """The corpus, its converted files kept in the data folder (a bar while files convert);
    ``ahead`` as in ``load_listing``."""
    from ..corpus.load import load_listing

    bar = progress or ProgressBar(enabled=sys.stderr.isatty())
    return load_listing(listing_of(args), reading_of(args, lambda done, total: bar("files converted", done, total)),
                        ahead)


def read_alone(args, engine: str, progress=None, jobs: int = 0):
    """The corpus read by the streamed or Ray engine (``engines.open.open_alone``), its converted
    files and analyses kept in the data folder; the files it could not read on stderr. An exit
    status when none could be read."""
    from ..data_folder import data_folder
    from ..engines.open import open_alone

    bar = progress or ProgressBar(enabled=sys.stderr.isatty())
    workspace = open_alone(engine, listing_of(args), reading_of(args), data_folder(), jobs=jobs or default_jobs(),
                           fingerprint=args.command == "check" or getattr(args, "mlflow", None) is not None,
                           progress=bar)
    args.opened = [*getattr(args, "opened", ()), workspace]  # closed when the command ends (``main``)
    for skipped in workspace.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not workspace.corpus_facts().documents:
        return fail(f"no readable documents in {args.corpus}")
    return workspace


def default_jobs() -> int:
    return min(4, os.cpu_count() or 1)


def listing_of(args):
    """The files the command reads: the corpus folder's, or those ``--files-from`` lists in it
    (listed once a command, as a listing on standard input can be read only once)."""
    from ..corpus.listing import list_corpus, list_files

    if getattr(args, "listing", None) is None:
        if getattr(args, "files_from", None):
            if not os.path.isdir(args.corpus):
                raise CorpusError(f"--files-from names files inside a corpus folder; {args.corpus} is not a folder")
            args.listing = list_files(read_listing(args.files_from), root=args.corpus)
        else:
            args.listing = list_corpus(args.corpus, mode=args.atoms)
    return args.listing


def engine_of(args) -> str:
    """Where the command measures (``engines.open.engine_for``)."""
    from ..engines.open import engine_for

    return engine_for(getattr(args, "engine", "local"), listing_of(args))


def reading_of(args, progress=None):
    """How the command reads its files (``corpus.Reading``), converted files kept in the data folder."""
    from ..corpus.conversions import FOLDER_NAME, ConversionCache
    from ..corpus.convert import check_converter
    from ..corpus.load import Reading
    from ..data_folder import data_folder

    check_converter(args.converter)
    return Reading(args.atoms, conversions=ConversionCache(data_folder() / FOLDER_NAME, args.converter),
                   progress=progress, keep_front_matter=args.keep_front_matter, converter=args.converter)


def load(args, *, alone: bool = False) -> tuple | int:
    """``(corpus, workspace)`` of a command, or an exit status. ``alone``: the command needs no
    more than a corpus it does not hold gives, so (``engine_of`` permitting) the corpus is
    streamed from disk (``StreamWorkspace``) or held by the Ray cluster
    (``ray.corpus.ClusterWorkspace``), one object being both."""
    from ..engines.open import holds, open_held

    engine = engine_of(args)
    if not holds(engine, alone):
        found = read_alone(args, engine)
        return found if isinstance(found, int) else (found, found)
    held_anyway(args, alone)
    corpus = read_corpus(args)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        return fail(f"no readable documents in {args.corpus}")
    from ..data_folder import data_folder

    return corpus, with_chunk_sets(open_held(corpus, engine, args.atoms, data_folder()))


def held_anyway(args, alone: bool) -> None:
    """Say so when ``--engine stream`` or ``ray`` was asked for and the command needs the corpus
    in this process's memory."""
    engine = getattr(args, "engine", "local")
    if engine in ("stream", "ray") and not alone:
        where = "streamed" if engine == "stream" else "held by the cluster"
        sys.stderr.write("note: what this command measures needs the whole corpus (what your own "
                         "system retrieved, imported chunks or a store's), "
                         f"so it is held in memory here rather than {where}\n")


def analysis_store():
    """Where analyses are kept between runs: the data folder."""
    from ..atoms.store import AnalysisStore
    from ..data_folder import data_folder

    return AnalysisStore(data_folder())


def with_chunk_sets(workspace):
    """``imported:ID`` specs name chunk sets kept by the app (``CHUNK_INSPECTOR_DATA``)."""
    from ..chunks.sets import ChunkSetStore

    workspace.chunk_set_store = ChunkSetStore.in_data_folder()
    return workspace


def say_problems(problems, source: str = "") -> None:
    """Every chunk made elsewhere that was not taken as given, one line each on stderr (harmless
    shifts summarised)."""
    shifted = [p for p in problems if p.is_shift]
    for problem in problems:
        if problem.is_shift and shifted.index(problem) >= SHIFTS_SHOWN:
            continue
        where = f"{source}:{problem.line}" if source else problem.chunk_id
        sys.stderr.write(f"{where}: {problem.kind}: {problem.message}\n")
    if len(shifted) > SHIFTS_SHOWN:
        sys.stderr.write(f"... and {len(shifted) - SHIFTS_SHOWN:,} more chunks placed by their text, their offsets "
                         f"shifted ({len(shifted):,} offset-mismatch in all)\n")


def retriever_for(args: argparse.Namespace, workspace):
    """The run's retriever, its vectors kept in the data folder, its BM25 ranking on the
    cluster with ``--engine ray``; a cache it cannot use is said."""
    from ..data_folder import data_folder
    from ..retrieval.remote import base_url_of

    spec = retriever_spec(args)
    if args.embeddings_url is not None or spec.embedder == "openai":
        base_url_of(args.embeddings_url)
    workspace.vector_folder, workspace.embeddings_url = data_folder(), args.embeddings_url
    if spec.reranker:
        from ..retrieval.rerank import rerank_url

        rerank_url(spec.rerank_service, args.rerank_url)  # refused now, not after the corpus is measured
        workspace.rerank_url = args.rerank_url
    retriever = workspace.retriever(spec)
    if retriever.warning:
        sys.stderr.write(f"note: {retriever.warning}\n")
    return retriever


def retriever_spec(args: argparse.Namespace):
    """``--retriever`` with ``--rerank`` (and its depth) put together."""
    from ..errors import RetrieverError
    from ..retrieval.retriever_spec import parse_retriever

    spec = parse_retriever(args.retriever)
    if args.rerank:
        if spec.reranker:
            raise RetrieverError("give the reranker once: in --retriever (…|rerank=…) or as --rerank")
        spec = spec.reranked(args.rerank, args.rerank_depth)
    elif args.rerank_depth != 50:
        raise RetrieverError("--rerank-depth goes with --rerank")
    return spec


def golden_set(path: str, workspace):
    """The golden set located in the workspace's corpus (its problems on stderr), or exit status 2."""
    golden = workspace.load_golden(path)
    for problem in golden.problems:
        sys.stderr.write(f"{golden.name}:{problem.line}: {problem.kind}: {problem.message}\n")
    if not golden.items:
        return fail(f"no question of {golden.name} could be located in the corpus")
    return golden


def question_set(path: str):
    """The user's questions (lines left out on stderr), or exit status 2."""
    from ..retrieval.questions import load_questions

    questions = load_questions(path)
    for problem in questions.problems:
        sys.stderr.write(f"{questions.name}:{problem.line}: {problem.message}\n")
    if not questions.items:
        return fail(f"no question could be read from {questions.name}")
    return questions


def tracking_ready(args) -> bool:
    """Whether ``--mlflow`` can log (checked before the work, so a long run is not lost at its end)."""
    if args.mlflow is None:
        return True
    from ..reports.tracking import mlflow_available

    return mlflow_available()


def log_to_mlflow(args, runs, status: int) -> int:
    """Log ``runs`` where ``--mlflow`` says (the report is printed already), and say so on
    stderr; ``status``, or 2 with one line saying why MLflow could not log them."""
    from ..errors import TrackingError
    from ..reports.tracking import log_runs, shown, tracking_uri

    try:
        ids = log_runs(runs, args.mlflow, args.mlflow_experiment)
    except TrackingError as exc:
        return fail(f"{exc}; the report above was not logged")
    sys.stderr.write(f"logged {len(ids)} MLflow run{'s' * (len(ids) != 1)} to {shown(tracking_uri(args.mlflow))} "
                     f"(experiment {args.mlflow_experiment})\n")
    return status
