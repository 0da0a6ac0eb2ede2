"""A corpus parked on disk in batches of documents, for the local engine that does not hold it.

The streamed engine (``stream``) reads a corpus once, batch by batch, and leaves each batch's
documents and analyses here; every later pass takes one batch back at a time. Batches are
cut by file bytes, so the memory a batch takes does not depend on the corpus's size.

What a pass's worker asks of where its batch is held (``batches``): ``partition`` (the batch
as a ``Partition``), ``documents_of``, and ``keep`` / ``derived`` for what it parks beside the
batch for a later pass; the driver asks ``bounds``, ``batch_of`` and ``drop``. A Ray actor
holding a partition of the corpus answers the same (``ray.partitions.ClusterPartition``)."""

from __future__ import annotations

import marshal
import os
import pickle
import shutil
import tempfile
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from pathlib import Path

from ...atoms.analysis import Analysis
from ...context.store import ContextStore
from ...measure.derived import DerivedStore
from ...model import Document
from ...split.answers import SplitAnswers
from ..partition import Partition

#: File bytes of the largest batch, and of the smallest worth a worker's task.
MOST_BYTES = 8 << 20
LEAST_BYTES = 256 << 10
#: Batches per worker at least, so that workers finish together.
BATCHES_PER_WORKER = 4


def batch_runs(sizes: Sequence[int], workers: int) -> list[int]:
    """Where to cut files of these sizes into batches: positions from 0 to ``len(sizes)``, each
    batch of about ``BATCHES_PER_WORKER`` per worker, between ``LEAST_BYTES`` and ``MOST_BYTES``
    (a larger file makes a batch of its own)."""
    share = min(MOST_BYTES, max(LEAST_BYTES, sum(sizes) // max(1, workers * BATCHES_PER_WORKER)))
    bounds, held = [0], 0
    for position, size in enumerate(sizes):
        if position > bounds[-1] and held + size > share:
            bounds.append(position)
            held = 0
        held += size
    return [*bounds, len(sizes)] if sizes else bounds


def batch_of(bounds: Sequence[int], doc: int) -> tuple[int, int]:
    """The run of documents (cut at ``bounds``, the last the corpus's size) holding document
    ``doc`` (a position in the corpus), and its position there."""
    batch = bisect_right(bounds, doc) - 1
    return batch, doc - bounds[batch]


class Spill:
    """Batches of documents with their analyses in a private folder, removed by ``close``; what
    is unpickled from it was written by this command (the folder is made by ``mkdtemp``).

    ``bounds[b]`` is batch ``b``'s first document's position in the corpus; the last bound is
    the corpus's size."""

    def __init__(self, folder: str | os.PathLike[str] | None = None, data: str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="chunk-inspector-"))
        self.bounds: list[int] = [0]
        self.owner = os.getpid()  # a forked worker holding a copy never removes the folder
        self.data = data or None
        """The data folder whose kept store (``derived.DerivedStore``) the batches' workers read and
        fill between runs (splits, terms, token counts), and whose context lines ``+context``
        specs read (None: nothing is kept, no line is found)."""

    def __len__(self) -> int:
        return len(self.bounds) - 1

    def path(self, batch: int) -> Path:
        return self.folder / f"{batch:06d}.batch"

    def write(self, batch: int, documents: Sequence[Document], analyses: Sequence[Analysis]) -> None:
        """Park one batch (a forked reader writes its own)."""
        plains = [marshal.dumps(a.to_plain()) for a in analyses]
        self.path(batch).write_bytes(pickle.dumps((list(documents), plains), protocol=pickle.HIGHEST_PROTOCOL))

    def add(self, documents: int) -> None:
        """Count the next batch, of ``documents`` documents, as written."""
        self.bounds.append(self.bounds[-1] + documents)

    def keep(self, batch: int, name: str, value) -> None:
        """Park something made of a batch beside it (a worker's counts, for a later pass)."""
        (self.folder / f"{batch:06d}.{name}").write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def kept(self, batch: int, name: str):
        """What ``keep`` parked beside a batch."""
        return pickle.loads((self.folder / f"{batch:06d}.{name}").read_bytes())

    def drop(self, name: str) -> None:
        """Remove what ``keep`` parked under ``name`` beside every batch."""
        for path in self.folder.glob(f"*.{name}"):
            path.unlink(missing_ok=True)

    def read(self, batch: int) -> tuple[list[Document], list[bytes]]:
        """A batch's documents and their analyses (``marshal`` bytes of ``Analysis.to_plain``)."""
        return pickle.loads(self.path(batch).read_bytes())

    def documents_of(self, batch: int) -> list[Document]:
        """A batch's documents."""
        return self.read(batch)[0]

    def partition(self, batch: int, mode: str, only: Sequence[int] | None = None) -> Partition:
        """A batch's documents (those at positions ``only`` in it, when given) with their analyses
        as a partition, reading and filling the data folder's kept store."""
        documents, plains = self.read(batch)
        if only is not None:
            documents, plains = [documents[d] for d in only], [plains[d] for d in only]
        part = Partition(mode, *((DerivedStore(self.data), ContextStore(self.data), SplitAnswers(self.data))
                                 if self.data else ()))
        part.take(documents, plains)
        return part

    def documents(self) -> Iterator[Document]:
        """Every document, in corpus order, one batch in memory at a time."""
        for batch in range(len(self)):
            yield from self.read(batch)[0]

    def batch_of(self, doc: int) -> tuple[int, int]:
        return batch_of(self.bounds, doc)

    def close(self) -> None:
        """Remove the folder (in the process that made it)."""
        if os.getpid() == self.owner:
            shutil.rmtree(self.folder, ignore_errors=True)
