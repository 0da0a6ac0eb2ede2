"""Page computations in worker processes, so one session's work never stalls the server.

The Streamlit server runs every session's script in a thread of one process; a corpus-wide
computation there holds the interpreter for seconds, and the server (the health endpoint
included) waits with everyone else. ``Offload`` runs the pages' heavy computations (tables a and
b, the budget sweep, chunk sizes, an Orphan Test round's chunks, the Import page's measures and
golden recall, each step of the fixes table) in a pool of worker processes instead:

- each worker keeps its own ``Workspace`` per corpus and mode, so atoms are found once per worker;
- a corpus reaches the workers once, as a file written beside the others (``CorpusHandle``);
- identical requests made at the same time, by several sessions, share one computation;
- with no worker processes (``processes=0``) the same functions run in the calling thread, on
  the caller's workspace; a worker that dies is replaced and the request answered in-thread.

Workers are started with ``spawn``: forking a process that runs threads could copy a lock
another thread holds.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import pickle
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from ..chunks.importer import ImportResult
from ..chunks.sets import ChunkSet
from ..corpus.load import Corpus
from ..errors import StoreError
from ..lengths import get_length
from ..measure.asked import QuoteSpan, ask_question
from ..measure.cost import IndexCost, index_cost
from ..measure.services import Services
from ..measure.workspace import Workspace
from ..reports.fixes_table import FixStep, measure_step
from ..retrieval.golden import golden_recall
from ..retrieval.golden_files import GoldenSet
from ..retrieval.spending import ensure
from ..review.rounds import ReviewRound, draw
from ..spec import parse_spec
from ..stores.address import StoreCredentials
from ..tune.search import measure_candidate
from .frames import compare_frame, sizes_frame, sweep_frame
from .imports import side_by_side
from .kept_results import KeptResults, NotKept, result_key
from .stores import index_search, searched_probe_row

#: The server's stores asked on one workspace: ``(index, spec of its chunks, retriever spec)`` to a retriever.
StoreSearch = Callable[[str, str, str], object]

NONE = Services()  # nothing kept, the services' default servers


@dataclass(frozen=True, slots=True)
class CorpusHandle:
    """How a worker finds a corpus: its fingerprint and mode, the file holding its documents, the
    server's services (with its allowances and stores) and its stores' credentials."""

    fingerprint: str
    mode: str
    path: str
    services: Services = NONE
    """The folders, servers, stores and spending policy its workspace is built with (the
    server's own): a worker charges its paid requests as the server does."""

    store_credentials: StoreCredentials | None = None
    """What their clients are let in with (handed over a pipe, never written to disk)."""

    @property
    def data(self) -> str:
        """The data folder (empty: nothing is kept)."""
        return self.services.data


def corpus_handle(corpus: Corpus, mode: str, folder: str | os.PathLike, services: Services = NONE, *,
                  store_credentials: StoreCredentials | None = None) -> CorpusHandle:
    """Write ``corpus`` once into ``folder`` (atomically; nothing when it is already there) and
    name it for the workers, with the server's ``services``."""
    key = hashlib.blake2b(f"{corpus.fingerprint}\0{mode}".encode(), digest_size=8).hexdigest()
    path = Path(folder) / f"corpus-{key}.pickle"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            pickle.dump(corpus, stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)
    return CorpusHandle(corpus.fingerprint, mode, str(path), services, store_credentials=store_credentials)


_WORKSPACES: dict[tuple[str, str, Services], Workspace] = {}


def _workspace(handle: CorpusHandle) -> Workspace:
    """This process's workspace for the corpus and its services (read from its file on first use)."""
    key = (handle.fingerprint, handle.mode, handle.services)
    found = _WORKSPACES.get(key)
    if found is None:
        with open(handle.path, "rb") as stream:
            corpus = pickle.load(stream)
        found = _WORKSPACES[key] = Workspace(corpus, handle.mode, handle.services)
    return found


def _compare(workspace: Workspace, specs: tuple[str, ...], fits: int | None, retriever: str = "bm25",
             language: str = ""):
    part = workspace.subset_of(language) if language else workspace
    return compare_frame(part, list(specs), fits=fits, retriever=retriever)


def _cost(workspace: Workspace, spec: str, retriever: str = "bm25", language: str = "") -> IndexCost:
    return index_cost(workspace.subset_of(language) if language else workspace, spec, retriever)


def _sweep(workspace: Workspace, spec: str, budgets: tuple[int, ...], retriever: str = "bm25"):
    return sweep_frame(workspace, spec, list(budgets), retriever=retriever)


def _sizes(workspace: Workspace, spec: str, unit: str, first: int = 0, stop: int | None = None):
    """The sizes of the chunks of the documents ``first`` to ``stop`` (all by default)."""
    documents = workspace.documents[first:stop]
    part = workspace if len(documents) == len(workspace.documents) else workspace.subset(d.id for d in documents)
    return sizes_frame(part, spec, get_length(unit))


def _round(workspace: Workspace, search: StoreSearch | None, review_round: ReviewRound):
    return tuple(draw(review_round, workspace, search))


def _side_by_side(workspace: Workspace, result: ImportResult, spec: str, label: str, retriever: str = "bm25"):
    return side_by_side(workspace, result, spec, label=label, retriever=retriever)


def _golden(workspace: Workspace, golden: GoldenSet, spec: str, label: str, chunk_set: ChunkSet | None,
            retriever: str = "bm25"):
    if chunk_set is not None:  # imported chunks this worker has not seen yet
        workspace.add_chunk_set(chunk_set)
    return golden_recall(workspace, golden, spec, label=label, retriever=retriever)


def _golden_searched(workspace: Workspace, search: StoreSearch | None, golden: GoldenSet, spec: str, index: str,
                     retriever: str):
    """Golden recall of a served store's chunks as the store itself answers (``IndexSearch``)."""
    if search is None:
        raise StoreError(f"this server offers no index; {index} cannot be asked")
    searched = search(index, spec, retriever)
    return golden_recall(workspace, golden, spec, label=f"your search {index}", retriever=searched)


def _ask(workspace: Workspace, spec: str, question: str, retriever: str, k: int, quote: QuoteSpan | None):
    return ask_question(workspace, spec, question, retriever=retriever, k=k, quote=quote)


def _fix_step(workspace: Workspace, step: FixStep, golden: GoldenSet | None, retriever: str):
    return measure_step(workspace, step, golden=golden, retriever=retriever)


def _tune_candidate(workspace: Workspace, spec: str, goal, retriever: str, sample: tuple):
    try:
        return measure_candidate(workspace, spec, goal, retriever, sample)
    finally:
        workspace.release(spec)  # a search tries dozens of configurations: hold none of them


#: What a worker can compute for a page, by name: ``(workspace, *args) -> what the page shows``.
TASKS = {"ask": _ask,
         "compare": _compare, "languages": Workspace.language_counts, "sweep": _sweep, "sizes": _sizes, "round": _round,
         "side_by_side": _side_by_side, "golden": _golden, "golden_searched": _golden_searched,
         "probe_searched": searched_probe_row, "fix_step": _fix_step, "cost": _cost,
         "tune_candidate": _tune_candidate}

#: The tasks whose results are kept in the data folder (``KeptResults``), each with the specs its
#: arguments measure: a spec reading context lines is never kept (lines are written as it goes).
#: The others read what changes under them: a user's store, an import, a random draw.
KEPT_TASKS = {"compare": lambda specs, *_: specs, "sweep": lambda spec, *_: (spec,),
              "sizes": lambda spec, *_: (spec,), "fix_step": lambda step, *_: (step.spec,),
              "languages": lambda: ()}


#: The tasks that may ask the server's stores themselves: called with the search of them bound to
#: the task's workspace (``IndexSearch.on``; None when the server serves none) before their arguments.
SEARCHING_TASKS = frozenset({"round", "golden_searched", "probe_searched"})


def _call(task: str, workspace: Workspace, handle: CorpusHandle, args: tuple):
    """``task`` on ``workspace`` (a worker's or, with none, the caller's) with ``args``."""
    if task not in SEARCHING_TASKS:
        return TASKS[task](workspace, *args)
    search = index_search(handle.services.stores, handle.store_credentials, handle.services.spend)
    return TASKS[task](workspace, search and search.on(workspace), *args)


def kept_key(task: str, handle: CorpusHandle, args: tuple) -> str | None:
    """The key of ``task``'s result with ``args`` among the kept ones (None: it is not kept)."""
    if task not in KEPT_TASKS or not handle.data:
        return None
    if any(parse_spec(spec).context for spec in KEPT_TASKS[task](*args)):
        return None
    try:
        servers = (handle.services.rerank_url, handle.services.embeddings_url)
        return result_key(task, handle.fingerprint, handle.mode, args, servers)
    except NotKept:
        return None


def _run(task: str, handle: CorpusHandle, args: tuple):
    if handle.services.spend is not None and handle.data:
        ensure(handle.data, handle.services.spend)  # charged as the server charges
    return _call(task, _workspace(handle), handle, args)


def _identity(arg):
    """An argument as part of a request's key: itself when hashable, else the object (one import
    or golden set, shared by every session through the page's cache)."""
    try:
        hash(arg)
    except TypeError:
        return ("object", id(arg))
    return arg


def _kept(task: str, handle: CorpusHandle, args: tuple) -> tuple[str | None, object]:
    """``task``'s key among the kept results and the result kept under it (None, None: not kept)."""
    key = kept_key(task, handle, args)
    return key, KeptResults(handle.data).get(key) if key else None


def _keep(folder: str, key: str, done: Future) -> None:
    if not done.cancelled() and done.exception() is None:
        KeptResults(folder).put(key, done.result())


class Offload:
    """A pool of worker processes for the pages' corpus-wide computations."""

    def __init__(self, processes: int) -> None:
        self.processes = max(0, processes)
        self._pool = self._start()
        self._running: dict[tuple, Future] = {}
        self._lock = threading.Lock()

    def _start(self) -> ProcessPoolExecutor | None:
        if not self.processes:
            return None
        return ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"))

    def run(self, task: str, workspace: Workspace, handle: CorpusHandle, *args):
        """The result of ``task`` (a name in ``TASKS``) with ``args`` over the
        corpus: computed by a worker process (in this thread, on ``workspace``, when there are
        none), or by the same request already running for another session."""
        key, found = _kept(task, handle, args)
        if found is not None:
            return found
        return self._result(self._submit(task, workspace, handle, args, key), task, workspace, handle, args)

    def each(self, task: str, workspace: Workspace, handle: CorpusHandle,
             calls: Sequence[tuple]) -> Iterator[tuple[int, object]]:
        """``task`` with each of ``calls`` (argument tuples), all handed to the workers at once:
        each result with its call's position, in the order they finish (one by one, in this
        thread, when there are no workers)."""
        if self._pool is None:
            for position, args in enumerate(calls):
                yield position, self.run(task, workspace, handle, *args)
            return
        started = {}
        for position, args in enumerate(calls):
            key, found = _kept(task, handle, args)
            if found is not None:
                yield position, found
            else:
                started[self._submit(task, workspace, handle, args, key)] = position
        for future in as_completed(started):
            position = started[future]
            yield position, self._result(future, task, workspace, handle, calls[position])

    def _submit(self, task: str, workspace: Workspace, handle: CorpusHandle, args: tuple,
                kept: str | None = None) -> Future:
        """The future of ``task`` with ``args``: a worker's, one another session started, or (with
        no workers) one computed here and finished; its result kept under ``kept`` (a key of
        ``KeptResults``) when it comes."""
        if task not in TASKS:
            raise ValueError(f"unknown task {task!r}; tasks are {', '.join(TASKS)}")
        key = (task, handle.fingerprint, handle.mode, tuple(map(_identity, args)))
        with self._lock:
            running = self._running.get(key)
            mine = running is None
            if mine:
                running = self._running[key] = Future() if self._pool is None else \
                    self._pool.submit(_run, task, handle, args)
        if mine:
            running.add_done_callback(lambda _: self._forget(key))
            if kept:
                running.add_done_callback(lambda done: _keep(handle.data, kept, done))
            if self._pool is None:
                try:
                    running.set_result(_call(task, workspace, handle, args))
                except BaseException as exc:  # handed to every session waiting for it
                    running.set_exception(exc)
        return running

    def _result(self, running: Future, task: str, workspace: Workspace, handle: CorpusHandle, args: tuple):
        try:
            return running.result()
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh, answer here
            self._restart()
            return _call(task, workspace, handle, args)

    def _forget(self, key: tuple) -> None:
        with self._lock:
            self._running.pop(key, None)

    def _restart(self) -> None:
        with self._lock:
            broken, self._pool = self._pool, self._start()
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (waiting for running tasks)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
