"""``--engine ray`` without the corpus on the driver: the cluster reads, analyses and measures it.

Ray Data reads every file of the listing on the cluster, with its analysis (kept in the data
folder where a worker reaches it) and its query candidates (``ray.session.ray_read``). The
driver takes the rows in corpus order, a few batches at a time: it counts the corpus's facts
(documents, characters, languages, atom lengths), keeps each document's id and query
candidates, and hands the documents, still pickled, with their analyses to the partitions'
actors (``ray.partitions.ClusterPartition``), cut into runs of about equal bytes; it never
holds the texts or the analyses.

``ClusterWorkspace`` is then the streamed engine's workspace (``StreamWorkspace``) with
the partitions for batches: every pass (measuring, ranking, reading back, golden sets, the
user's questions, neighbour windows, the fixes' suspects) sends the same batch jobs
(``batches``) to the actors, all at once, and sums or merges what they send back as it does
for batches parked on disk, so the output is the local engine's (dense and hybrid rankings
too: the actors embed their chunks). Imported chunks and what the user's own system retrieved
need the corpus on the driver and take the ``Workspace`` path.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from typing import IO

from ...corpus.listing import Listing, SkippedFile
from ...corpus.load import Fingerprint, Reading
from ...errors import EngineError
from ...measure.services import Services
from ...measure.summary import CorpusFacts, SpanLists
from ..stream.batches import export_batch, words_batch
from ..stream.spill import batch_of
from ..stream.workspace import Progress, StreamWorkspace
from .partitions import partition_actor
from .session import ray_read

#: Documents handed to an actor at once, and exported from one at once.
HANDOVER = 256


class ClusterBatches:
    """The partitions' actors as the streamed engine's batches: actor ``p`` holds documents
    ``bounds[p]`` to ``bounds[p + 1]`` and runs batch ``p``'s jobs."""

    def __init__(self, actors: list, bounds: list[int]) -> None:
        self.actors, self.bounds = actors, bounds

    def __len__(self) -> int:
        return len(self.actors)

    def batch_of(self, doc: int) -> tuple[int, int]:
        return batch_of(self.bounds, doc)

    def drop(self, name: str) -> None:
        """Let every actor forget what jobs parked under ``name``."""
        import ray

        ray.get([actor.drop.remote(name) for actor in self.actors])

    def close(self) -> None:
        """Nothing to remove: the actors end with the command's time on Ray (``ray_session``)."""


class ClusterWorkspace(StreamWorkspace):
    """A corpus held by the cluster's partitions, measured there pass by pass (see the module)."""

    def __init__(self, batches: ClusterBatches, mode: str, facts: CorpusFacts, candidates: SpanLists,
                 ids: list[str], skipped: list[SkippedFile], fingerprint: str = "",
                 progress: Progress | None = None, services: Services | None = None) -> None:
        super().__init__(batches, mode, progress=progress, services=services)  # type: ignore[arg-type]
        self.facts, self.candidates, self.ids = facts, candidates, ids
        self.skipped = tuple(sorted(skipped, key=lambda s: (s.path, s.reason)))
        self._fingerprint = fingerprint or None

    @property
    def fingerprint(self) -> str:
        """``Corpus.fingerprint`` of the documents read, digested as they passed the driver."""
        if self._fingerprint is None:
            raise EngineError("the corpus's fingerprint is digested as the cluster reads it: "
                              "read_on_cluster(fingerprint=True)")
        return self._fingerprint

    def _query_words(self, jobs: list) -> Iterator[list[tuple[str, ...]]]:
        """``words_batch`` of each job, on the actors holding the queries' documents."""
        return self.crossed("query words", words_batch, jobs)

    def export(self, spec, stream: IO[str]) -> int:
        """``export_chunks`` of every document, partition by partition in corpus order, a few
        hundred documents at a time (a partition's whole export could be most of the corpus's)."""
        key, written = str(self._batched(spec)), 0
        for p in range(len(self.batches)):
            held = self.batches.bounds[p + 1] - self.batches.bounds[p]
            jobs = [(self.batches, p, self.mode, key, (first, min(held, first + HANDOVER)))
                    for first in range(0, held, HANDOVER)]
            for lines in self.crossed("export", export_batch, jobs):
                stream.write(lines)
                written += lines.count("\n")
        return written

    def crossed(self, what: str, function: Callable, jobs: list) -> Iterator:
        """``function`` of every job, in order, each on the actor holding its batch, all sent at
        once: one pass over the partitions (noted in ``passes``)."""
        import ray

        self.passes.append((what, len(jobs)))
        actors = self.batches.actors
        for reply in [actors[job[1]].run.remote(function, job[1:]) for job in jobs]:
            yield ray.get(reply)


def read_on_cluster(listing: Listing, reading: Reading, store: str | None = None, partitions: int | None = None,
                    *, fingerprint: bool = False, progress: Progress | None = None,
                    services: Services | None = None) -> ClusterWorkspace:
    """Read, analyse and hand out a listing's files on the Ray cluster (see the module); with
    ``fingerprint`` the driver also digests the texts as they pass, as ``Corpus.fingerprint``;
    ``progress(what, done, total)`` is called as files come back, and by the workspace's passes."""
    import pickle

    import ray

    from .session import start_ray

    start_ray()
    cluster = max(1.0, ray.cluster_resources().get("CPU", 1.0))
    count = max(1, min(partitions or int(cluster), len(listing.entries)))
    sizes = listing.sizes()
    share = (sum(sizes) or 1) / count
    actor = partition_actor()
    actors, bounds, ids = [actor.remote(reading.mode, store)], [0], []
    facts, candidates, skipped = CorpusFacts(), SpanLists(), list(listing.skipped)
    digest = Fingerprint() if fingerprint else None
    pending: list[tuple[bytes, bytes]] = []
    done = 0.0

    def hand_over() -> None:
        if pending:
            actors[-1].take.remote([item for item, _ in pending], [plain for _, plain in pending])
            pending.clear()

    for position, (size, (item, plain, found)) in enumerate(zip(sizes, ray_read(listing, reading, store)), 1):
        if progress is not None and (position % HANDOVER == 0 or position == len(sizes)):
            progress("files read on the cluster", position, len(sizes))
        if not found:
            skipped.append(pickle.loads(item))
            continue
        doc_id, characters, language, lengths, spans = marshal.loads(found)
        # A new partition starts where this one has its share of bytes (and the last takes the rest).
        if len(actors) < count and done >= share * len(actors):
            hand_over()
            actors.append(actor.remote(reading.mode, store))
            bounds.append(len(ids))
        ids.append(doc_id)
        facts.add(characters, language, lengths)
        candidates.append(spans)
        if digest is not None:
            digest.add(pickle.loads(item))
        pending.append((item, plain))
        done += size
        if len(pending) >= HANDOVER:
            hand_over()
    hand_over()
    bounds.append(len(ids))
    return ClusterWorkspace(ClusterBatches(actors, bounds), reading.mode, facts, candidates, ids, skipped,
                            digest.hexdigest() if digest is not None else "", progress, services)



