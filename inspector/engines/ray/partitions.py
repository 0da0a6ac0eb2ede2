"""``--engine ray``'s partitions: one Ray actor per run of the corpus's documents, holding them
with their analyses (``ClusterPartition``).

When the cluster reads the corpus (``ray.corpus``) the actors are the streamed engine's batches:
each runs the batch jobs (``batches``) on itself, and the driver sums and merges what they send
as it does for batches on disk. When the driver holds the corpus (a dense or hybrid retriever,
imported chunks: ``PartitionedWorkspace``), its documents
are cut into runs of about equal characters and sent to the actors, which split and measure the
built-in splitters (survival, sizes and header carry are sums over documents) and rank BM25 in
two rounds: every partition counts BM25's statistics over its chunks, or over the spans of a
pool the driver sends (``RayBM25Retriever``), the driver sums them, every partition ranks its
chunks with the sums, and the driver merges the partitions' best ``k`` (``bm25.merge_ranked``)
and asks the partitions holding them for their spans, prefixes and tokens. Scores are computed
with the pool's statistics in the article's operation order and ties are broken by the same
keys, so every number printed is the local engine's.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate

import numpy as np

from ...context.store import ContextStore
from ...errors import EngineError
from ...measure.derived import DerivedStore
from ...measure.headers import HeaderCarry
from ...measure.summary import Grouped, SplitSummary, grouped_total
from ...measure.workers import shares
from ...measure.workspace import Workspace
from ...retrieval.bm25 import Ranked, Statistics, merge_ranked
from ...retrieval.probe import ProbeResult, Query, Read, judge
from ...retrieval.ranking import Ask, BM25Retriever, HybridRetriever, Pool, Retriever
from ...spec import SplitterSpec, parse_spec
from ...split.answers import SplitAnswers
from ..partition import Partition


def partition_bounds(sizes: Sequence[int], parts: int) -> list[int]:
    """Where to cut documents of these sizes into at most ``parts`` runs of about equal
    characters, every run holding a document: positions from 0 to ``len(sizes)``."""
    return sorted(set(shares(list(sizes), parts, 0.0)))  # as the analysis workers share a corpus


class Partitions:
    """A workspace's corpus on the cluster's partitions (``PartitionedWorkspace.cluster``): what
    the driver asks of them, and how their answers make the whole corpus's."""

    def __init__(self, workspace: Workspace, partitions: int | None = None) -> None:
        self.workspace, self.partitions = workspace, partitions
        self.mode = workspace.mode
        self.ids: list[str] = []  # the corpus's document ids, in order
        self._actors: list | None = None
        self._bounds: list[int] = []  # the partitions' first documents, and the corpus's end
        self._where: dict[str, tuple[int, int]] = {}  # document id -> (partition, position in it)
        self._rankings = 0

    def actors(self) -> list:
        """The partitions' actors, started on first use with every document's analysis (each
        finds its documents' terms)."""
        if self._actors is None:
            import ray

            documents = self.workspace.documents
            analyses = self.workspace.analyses()
            cluster = max(1.0, ray.cluster_resources().get("CPU", 1.0))
            self._bounds = partition_bounds([len(d.text) for d in documents], self.partitions or int(cluster))
            self.ids = [d.id for d in documents]
            self._actors, kind = [], partition_actor()
            for a, b in zip(self._bounds, self._bounds[1:]):
                actor = kind.remote(self.mode)
                actor.take.remote(documents[a:b], [marshal.dumps(analysis.to_plain()) for analysis in analyses[a:b]])
                self._actors.append(actor)
            self._place()
        return self._actors

    @property
    def bounds(self) -> list[int]:
        """Each partition's first document's position, then the corpus's end."""
        self.actors()
        return self._bounds

    def _place(self) -> None:
        for p, (a, b) in enumerate(zip(self._bounds, self._bounds[1:])):
            self._where.update((doc_id, (p, i)) for i, doc_id in enumerate(self.ids[a:b]))

    # -- a built-in splitter, split and measured where its documents are ---------------------

    @staticmethod
    def measures(spec: SplitterSpec) -> bool:
        """Whether the partitions split and measure ``spec`` (a built-in splitter's chunks are a
        function of each document alone)."""
        return spec.is_built_in

    def probes(self, spec: SplitterSpec, retriever: Retriever, expand: int) -> bool:
        """Whether the partitions run ``spec``'s probe: BM25 over its own chunks, read alone."""
        return self.measures(spec) and not expand and type(retriever) in (BM25Retriever, RayBM25Retriever)

    def summarize(self, spec: SplitterSpec, fits: int | None) -> SplitSummary:
        import ray

        return SplitSummary.total(spec, ray.get([a.summarize.remote(str(spec), fits) for a in self.actors()]))

    def sizes(self, spec: SplitterSpec, unit: str | None) -> list[int]:
        """``Workspace.sizes`` of ``spec``, each partition's in corpus order."""
        import ray

        return [size for part in ray.get([a.sizes.remote(str(spec), unit) for a in self.actors()]) for size in part]

    def summaries_by(self, key: str, specs: list[SplitterSpec]) -> Grouped:
        """``Workspace.summaries_by``, each partition counting its own documents."""
        import ray

        return grouped_total(ray.get([a.summaries_by.remote(key, [str(s) for s in specs]) for a in self.actors()]))

    def header_carry(self, spec: SplitterSpec) -> HeaderCarry:
        import ray

        return HeaderCarry.total(ray.get([a.header_carry.remote(str(spec)) for a in self.actors()]))

    def release(self, spec: SplitterSpec) -> None:
        """Let the partitions forget ``spec``'s chunks."""
        for actor in self._actors or ():
            actor.release.remote(str(spec))

    def probe(self, queries: list[Query], spec: SplitterSpec, k: int) -> ProbeResult:
        """``Workspace.probe`` of ``spec`` with BM25, every partition ranking its own chunks."""
        import ray

        if not queries:
            return ProbeResult(0, 0, 0, 0.0, 0.0)
        actors, key = self.actors(), str(spec)
        ranking = self._ranking()
        parts = ray.get([a.statistics.remote(ranking, key, frozenset(w for q in queries for w in q.words))
                         for a in actors])
        offsets = [0, *accumulate(part.chunks for part in parts)]
        picked = self._merged(ranking, [(p, offsets[p]) for p, part in enumerate(parts) if part.chunks],
                              [tuple(q.words) for q in queries], k, Statistics.total(parts))
        if not picked:
            return ProbeResult(len(queries), 0, 0, 0.0, 0.0)
        wanted: dict[int, list[int]] = {}
        for j in sorted({j for top in picked for j in top}):
            wanted.setdefault(bisect_right(offsets, j) - 1, []).append(j)
        counting = self.mode != "seed"  # seed mode counts characters / 4, as the article
        found = ray.get([actors[p].reads.remote(key, [j - offsets[p] for j in chunks], counting)
                         for p, chunks in wanted.items()])
        reads: dict[int, Read] = {}
        tokens: dict[int, int] | None = {} if counting else None
        for (p, chunks), (mine, counts) in zip(wanted.items(), found):
            base = self._bounds[p]
            reads.update((j, Read(base + r.doc, r.start, r.end, r.prefix)) for j, r in zip(chunks, mine))
            if tokens is not None:
                tokens.update(zip(chunks, counts))
        position = {doc_id: i for i, doc_id in enumerate(self.ids)}
        return judge(queries, picked, picked, reads, [position.get(q.doc_id, -1) for q in queries], tokens)

    # -- BM25 over a pool the driver holds ------------------------------------------------

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        """``BM25Retriever.rank`` of a pool of this corpus's chunks, on the partitions."""
        import ray

        if not asks or not len(pool):
            return [[] for _ in asks]
        actors = self.actors()
        try:
            where = np.array([self._where[d] for d in pool.doc_ids], dtype=np.int64).reshape(-1, 2)
        except KeyError as missing:
            raise EngineError(f"document {missing} is not in the corpus the cluster indexed") from None
        partition_of, local = where[pool.doc_of, 0], where[pool.doc_of, 1]
        ranking, wanted = self._ranking(), frozenset(w for a in asks for w in a.words)
        members, counting = [], []
        for p, actor in enumerate(actors):
            chunks = np.flatnonzero(partition_of == p)
            if len(chunks):
                prefixes = [pool.prefixes[j] for j in chunks.tolist()] if pool.prefixes is not None else None
                members.append((p, chunks))
                counting.append(actor.statistics.remote(ranking, (local[chunks], pool.starts[chunks],
                                                                  pool.ends[chunks], prefixes), wanted))
        statistics = Statistics.total(ray.get(counting))
        return self._merged(ranking, members, [tuple(a.words) for a in asks],
                            statistics.chunks if k is None else k, statistics)

    def _ranking(self) -> int:
        self._rankings += 1
        return self._rankings

    def _merged(self, ranking: int, members: list[tuple[int, int | np.ndarray]], queries: list[tuple[str, ...]],
                k: int, statistics: Statistics) -> list[list[int]]:
        """The best ``k`` of the ranking counted on ``members`` (partition, and its chunks'
        positions in the pool: an offset or an array), scored with the pool's ``statistics``."""
        import ray

        if not members:
            return []
        ranked = ray.get([self._actors[p].ranked.remote(ranking, queries, k, statistics) for p, _ in members])
        return merge_ranked([[Ranked(r.scores, r.seen, chunks[r.chunks] if isinstance(chunks, np.ndarray)
                                     else r.chunks + chunks) for r in part]
                             for (_, chunks), part in zip(members, ranked)], k)


class ClusterPartition(Partition):
    """A partition a Ray actor holds. Besides ``Partition``'s own questions it runs the streamed
    engine's batch jobs (``batches``) on itself: it is the job's batch (``batches.Held``), and
    what a job parks for a later pass stays in its memory. Given a data folder, it reads and
    fills the kept store there (splits, terms, token counts: one pass splits what the next
    reads, a second run reads what the first kept) and reads context lines and an llm chunker's
    answers from it."""

    def __init__(self, mode: str, data: str | None = None) -> None:
        # What runs derive from documents, and context lines, in the data folder of the actor's node.
        super().__init__(mode, *((DerivedStore(data), ContextStore(data), SplitAnswers(data)) if data else ()))
        self.parked: dict[str, object] = {}

    def run(self, function: Callable, job: tuple):
        """``function`` of a batch job whose batch is this partition (``job`` without where it is
        held); the chunks it split are let go after, as a batch's are."""
        held = set(self._work.held()) if self._work is not None else set()
        try:
            return function((self, *job))
        finally:
            if self._work is not None:
                for spec in set(self._work.held()) - held:
                    self._work.release(spec)

    def partition(self, batch: int, mode: str, only: Sequence[int] | None = None) -> Partition:
        return self if only is None else self.subset(list(only))

    def documents_of(self, batch: int) -> list:
        return self.documents

    def keep(self, batch: int, name: str, value) -> None:
        self.parked[name] = value

    def kept(self, batch: int, name: str):
        return self.parked[name]

    def drop(self, name: str) -> None:
        """Forget what was parked under ``name`` (by every pass: ``*.name``)."""
        for key in [key for key in self.parked if key.endswith(f".{name}")]:
            del self.parked[key]


def partition_actor():
    """``ClusterPartition`` as a Ray actor class, spread over the cluster's nodes. Its actors
    reserve no CPU: they hold their documents while Ray Data's tasks read and analyse the rest
    on every CPU (a reserved CPU each would leave the reading none), and work only when asked."""
    import ray

    return ray.remote(num_cpus=0, scheduling_strategy="SPREAD")(ClusterPartition)


class RayBM25Retriever(BM25Retriever):
    """The article's BM25, its term index and ranking on the cluster's partitions."""

    def __init__(self, partitions: Partitions) -> None:
        self.partitions = partitions

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        return self.partitions.rank(asks, pool, k)


def on_partitions(retriever: Retriever, partitions: Partitions) -> Retriever:
    """``retriever`` with its BM25 ranking on the cluster's partitions (a dense one unchanged)."""
    if isinstance(retriever, HybridRetriever):
        return HybridRetriever(retriever.spec, retriever.dense, RayBM25Retriever(partitions))
    if isinstance(retriever, BM25Retriever):
        return RayBM25Retriever(partitions)
    return retriever


class PartitionedWorkspace(Workspace):
    """The Ray engine for a corpus the driver holds: a ``Workspace`` whose built-in splitters
    are split and measured on the cluster's partitions (started when first asked), and whose
    BM25 ranks there too; the rest (imported chunks, neighbour windows, a subset) is measured
    here as the reference does."""

    def __init__(self, corpus, mode: str = "markdown", partitions: int | None = None, *, services=None) -> None:
        super().__init__(corpus, mode, services)
        self.cluster = Partitions(self, partitions)

    def retriever(self, spec=None) -> Retriever:
        return on_partitions(super().retriever(spec), self.cluster)

    def summarize(self, spec, *, fits: int | None = None) -> SplitSummary:
        spec = parse_spec(spec)
        return self.cluster.summarize(spec, fits) if self.cluster.measures(spec) else super().summarize(spec, fits=fits)

    def header_carry(self, spec="structured:800") -> HeaderCarry:
        spec = parse_spec(spec)
        return self.cluster.header_carry(spec) if self.cluster.measures(spec) else super().header_carry(spec)

    def release(self, spec) -> None:
        super().release(spec)
        self.cluster.release(parse_spec(spec))

    def measure_probe(self, spec: SplitterSpec, k: int, retriever: Retriever, expand: int) -> ProbeResult:
        if self.cluster.probes(spec, retriever, expand):
            return self.cluster.probe(self.queries(), spec, k)
        return super().measure_probe(spec, k, retriever, expand)
