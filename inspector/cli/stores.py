"""``--store URI``: the user's own vector store read as one more chunking of the corpus.

Each store's chunks are read a page at a time, placed on the corpus the command holds, kept as a
chunk set (``imported:ID``, so the app and a shared link open the same chunks) and measured like
any splitter; what could not be placed exactly is said on stderr, a few lines per kind.
"""

from __future__ import annotations

import os
import sys

from ..errors import ArgumentRefused
from .options import Retrieval, Stores
from .output import ProgressBar

#: How a store's row is named in the tables when the report reads one store: its chunks ranked by
#: the run's retriever, and the store asked itself.
YOUR_INDEX = "your index"
YOUR_SEARCH = "your search"


def read_stores(stores: Stores, workspace, services, progress=None) -> list:
    """``(spec, StoreImport)`` for each store, its chunk set registered with ``workspace``;
    ``ArgumentRefused`` when a store cannot be read or none of its chunks could be placed."""
    from ..chunks.sets import ChunkSetStore, make_chunk_set
    from ..errors import ChunkSetError, MissingExtra, StoreError
    from ..stores.address import StoreCredentials
    from ..stores.source import read_store

    credentials = StoreCredentials.from_environment(os.environ)
    bar = progress or ProgressBar(enabled=sys.stderr.isatty())
    found = []
    for address in stores.addresses:
        try:
            imported = read_store(address, list(workspace.documents), fields=stores.fields,
                                  headings=workspace.headings, raw_offsets=stores.raw_offsets,
                                  credentials=credentials, progress=bar)
        except (StoreError, MissingExtra) as exc:
            raise ArgumentRefused(str(exc)) from None
        if imported.note:
            sys.stderr.write(f"note: {imported.note}\n")
        for line in imported.lines():
            sys.stderr.write(line + "\n")
        sys.stderr.write(imported.summary() + "\n")
        if not imported.result.imported:
            raise ArgumentRefused(f"no chunk of {address} could be placed on the corpus: read the folder the store was "
                        "filled from (and --keep-front-matter when the pipeline read raw files)")
        missing = len(imported.result.missing_documents)
        if missing:
            sys.stderr.write(f"note: {address.label} holds chunks of {len(workspace.documents) - missing} of the "
                             f"{len(workspace.documents)} documents; corpus-wide measures count the other {missing}'s "
                             "atoms as lost and their questions as missed\n")
        chunk_set = make_chunk_set(imported.name, workspace.fingerprint, workspace.documents, imported.result.chunks)
        spec = workspace.add_chunk_set(chunk_set)
        try:
            ChunkSetStore(services.chunk_sets).save(chunk_set)  # the app and shared links open the same chunks
        except ChunkSetError as exc:
            sys.stderr.write(f"note: {exc}\n")
        found.append((spec, imported))
    return found


def asked_of_stores(retrieval: Retrieval, work, found: list, report: dict, golden: list, questions) -> None:
    """Each golden set and the user's questions asked of each store's own search (questions
    embedded by ``--retriever``'s embedder): a row beside the splitters' in tables e and f. A store
    that cannot be searched is said on stderr and the report goes on."""
    from ..errors import EmbeddingServiceError, MissingExtra, RetrieverError, StoreError
    from ..reports.golden_table import decided, golden_row, questions_row
    from ..stores.address import StoreCredentials
    from ..stores.search import store_retriever

    if not (golden or questions):
        return
    spec = retrieval.retriever
    credentials = StoreCredentials.from_environment(os.environ)
    for chunk_spec, imported in found:
        label = YOUR_SEARCH if len(found) == 1 else f"search {imported.address.collection}"[:16]
        try:
            retriever = store_retriever(imported, spec, base_url=retrieval.embeddings_url, credentials=credentials)
            for section, one in zip(report.get("golden", ()), golden):
                row = golden_row(work, one, chunk_spec, retriever, section["budgets"], label)
                section["rows"].append({**row, "searched": str(imported.address), "retriever": str(retriever.spec)})
                section["decision"] = decided(section)["decision"]
            if questions is not None:
                row = questions_row(work, questions, chunk_spec, retriever, label)
                report["questions"]["rows"].append({**row, "searched": str(imported.address)})
            for note in retriever.notes:
                sys.stderr.write(f"note: {note}\n")
        except (StoreError, MissingExtra, RetrieverError, EmbeddingServiceError) as exc:
            sys.stderr.write(f"note: {imported.address.label} was not asked itself: {exc}\n")
            continue
        if retriever.unplaced:
            sys.stderr.write(f"note: {retriever.unplaced:,} chunks {imported.address.label} answered were not placed "
                             "on the corpus and count as missed\n")


def store_labels(found: list) -> dict[str, str]:
    """The names the tables give the stores' rows: "your index" for one store, else each collection."""
    if len(found) == 1:
        return {str(found[0][0]): YOUR_INDEX}
    return {str(spec): f"index {imported.address.collection}"[:16] for spec, imported in found}


def store_section(found: list) -> list[dict]:
    """What the JSON report says of each store: where, how many chunks, how they were placed."""
    from collections import Counter

    return [{"store": str(imported.address), "spec": str(spec), "stored": imported.stored,
             "placed": imported.result.imported, "placements": imported.result.placements,
             "conventions": imported.conventions,
             "problems": dict(Counter(p.kind for p in imported.problems)), "strays": imported.strays()}
            for spec, imported in found]
