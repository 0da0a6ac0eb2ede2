"""The stores a server was started with ("Your index" in the app), and reading one onto the
corpus a page shows, without Streamlit.

An operator names them at start (``streamlit run app.py -- --store NAME=URI``, repeatable, or
``CHUNK_INSPECTOR_STORES="NAME=URI;NAME=URI"``); a link may pick one by its name only, never a
host or a path. Reading one places its chunks on the corpus and keeps them as a chunk set, so
every page measures them like a splitter and a shared link or an Orphan Test round opens the
same chunks for a colleague.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial

from ..chunks.sets import ChunkSet, ChunkSetInfo, make_chunk_set
from ..errors import RetrieverError, StoreError
from ..retrieval.retriever_spec import parse_retriever
from ..retrieval.spending import SpendPolicy
from ..spec import SplitterSpec, parse_spec
from ..stores.address import StoreCredentials
from ..stores.search import store_retriever
from ..stores.served import ServedStore
from ..stores.source import StoreImport, read_store
from .intervals import bound_values

#: How a served store's chunk set is named: this, then the store's name.
INDEX_SET = "your index "
#: Problems listed under a store's read; the rest are counted.
SHOWN_PROBLEMS = 3


@dataclass(frozen=True, slots=True)
class IndexRead:
    """A served store read onto a corpus."""

    store: ServedStore
    chunk_set: ChunkSet
    imported: StoreImport

    @property
    def spec(self) -> str:
        return str(self.chunk_set.spec)

    def lines(self) -> list[str]:
        """What a visitor should know: how many chunks were placed, and what was not as stored."""
        result = self.imported.result
        out = [f"{result.imported:,} of {self.imported.stored:,} stored chunks of {self.store.name} placed on the "
               f"corpus ({', '.join(f'{n:,} by {k}' for k, n in result.placements.items() if n) or 'none'})."]
        return out + self.imported.lines(SHOWN_PROBLEMS, named=False)


def read_index(store: ServedStore, workspace, credentials: StoreCredentials, progress=None) -> IndexRead:
    """``store``'s chunks placed on ``workspace``'s corpus, kept as a chunk set named after the
    store (``StoreError`` when it cannot be read, ``ChunkSetError`` when no chunk could be placed)."""
    imported = read_store(store.address, list(workspace.documents), headings=workspace.headings,
                          credentials=credentials, progress=progress)
    chunk_set = make_chunk_set(INDEX_SET + store.name, workspace.fingerprint, workspace.documents,
                               imported.result.chunks)
    if workspace.chunk_set_store is not None:
        workspace.chunk_set_store.save(chunk_set)
    workspace.add_chunk_set(chunk_set)
    return IndexRead(store, chunk_set, imported)


def index_of(spec: SplitterSpec | str, sets: Mapping[str, ChunkSetInfo], stores: Sequence[ServedStore]) -> str:
    """The served store whose chunks ``spec`` names (``sets``: the stored chunk sets by spec), or
    "" when it names none."""
    chunk_set = parse_spec(spec).chunk_set
    info = sets.get(str(SplitterSpec.imported(chunk_set))) if chunk_set else None
    name = info.name[len(INDEX_SET):] if info is not None and info.name.startswith(INDEX_SET) else ""
    return name if any(s.name == name for s in stores) else ""


class IndexSearch:
    """The served stores asked themselves: each store read onto a corpus once a process, then
    searched with the questions embedded by the retriever spec's embedder, which must be one
    ``spend`` (the server's policy, read at its start) allows: by default none. One per process and
    server settings (``index_search``); ``on`` binds it to the workspace a page or a task measures."""

    def __init__(self, stores: Sequence[ServedStore], credentials: StoreCredentials,
                 spend: SpendPolicy | None = None) -> None:
        self.stores = {s.name: s for s in stores}
        self.credentials = credentials
        self.spend = spend if spend is not None else SpendPolicy()
        self.read: dict[tuple[str, str, str], IndexRead] = {}  # by corpus fingerprint, mode and store

    def remember(self, workspace, found: IndexRead) -> None:
        """A store already read onto ``workspace``'s corpus (the sidebar's read): not read again to ask it."""
        self.read[workspace.fingerprint, workspace.mode, found.store.name] = found

    def on(self, workspace) -> Callable[[str, str, str], object]:
        """The search of ``workspace``'s corpus: ``(index name, spec of its chunks, embedder's
        retriever spec)`` to a retriever ranking what the store itself answers."""
        return partial(self.ask, workspace)

    def ask(self, workspace, name: str, spec: str, retriever: str):
        # The embedder must be one this server allows; its address and key are the server's own.
        embedder = parse_retriever(retriever)
        dense = embedder.dense
        refused = self.spend.model_problem(dense.model) if dense is not None and dense.embedder == "openai" else ""
        if refused:
            raise RetrieverError(refused)
        store = self.stores.get(name)
        if store is None:
            raise StoreError(f"this server offers no index named {name[:40]!r}")
        key = (workspace.fingerprint, workspace.mode, name)
        found = self.read.get(key)
        if found is None:
            found = self.read[key] = read_index(store, workspace, self.credentials)
        if SplitterSpec.parse(spec).chunk_set != found.chunk_set.id:
            raise StoreError(f"the round's chunks are {spec}, not {name}'s ({found.spec}): read {name} in the "
                             "sidebar (Your index) and draw the round on its chunks")
        return store_retriever(found.imported, embedder, base_url=workspace.embeddings_url,
                               credentials=self.credentials)


_SEARCHES: dict[tuple, IndexSearch] = {}
_SEARCHES_LOCK = threading.Lock()


def index_search(stores: Sequence[ServedStore], credentials: StoreCredentials | None = None,
                 spend: SpendPolicy | None = None) -> IndexSearch | None:
    """This process's search of the served ``stores`` under ``spend`` (None: no store is served):
    one per server's settings, shared by its sessions and tasks so a store is read once a corpus."""
    if not stores:
        return None
    key = (tuple(stores), credentials or StoreCredentials(), spend or SpendPolicy())
    with _SEARCHES_LOCK:
        found = _SEARCHES.get(key)
        if found is None:
            found = _SEARCHES[key] = IndexSearch(*key)
    return found


def searched_probe_row(workspace, search: Callable[[str, str, str], object] | None, spec: str, index: str,
                       retriever: str) -> dict:
    """Table b's row of the probe's queries asked of the served store ``index`` itself (queries
    embedded by ``retriever``'s embedder), for the store's chunks ``spec``; ``search``: the
    server's stores asked on ``workspace`` (``IndexSearch.on``; None: it serves none)."""
    if search is None:
        raise StoreError(f"this server offers no index; {index} cannot be asked")
    from ..reports.decide import probe_intervals

    probe = workspace.probe(spec, retriever=search(index, spec, retriever))
    bounds = probe_intervals(probe)
    return {"splitter": f"your search {index}", "spec": spec, "answer@5": probe.answer_rate, "cut": probe.cut_rate,
            "rank miss": probe.miss_rate and max(0.0, probe.miss_rate), "ctx chars": round(probe.context_chars, 1),
            "ctx tokens": round(probe.context_tokens, 1),
            **bound_values({"answer@5": bounds["answer_at_5"], "cut": bounds["cut"]})}
