"""``--engine ray``'s BM25: the term index and the ranking split across the cluster.

The corpus's documents are cut into partitions of about equal characters, one Ray actor per
partition, and each actor finds its own documents' terms once (``TermTable``). A ranking then
takes two rounds: every partition counts BM25's statistics over its chunks of the pool (chunks,
terms in all, chunks per query word; ``bm25.Statistics``), the driver sums them, and every
partition ranks its chunks with the sums (``BM25.ranked``); the driver merges the partitions'
best ``k`` (``bm25.merge_ranked``). Scores are computed with the pool's statistics in the
article's operation order and ties are broken by the same keys, so the rankings, and every
number printed from them, are those of the local engine. Only the chunks' spans, the queries
and the ranked keys travel; the texts go to the actors once.

A dense retriever still ranks on the driver; a hybrid one takes its BM25 half from here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import EngineError
from ..model import Document
from ..retrieval.bm25 import BM25, Ranked, Statistics, merge_ranked
from ..retrieval.ranking import Ask, BM25Retriever, HybridRetriever, Pool, Retriever
from ..retrieval.terms import TermTable
from .workers import shares


class PartitionIndex:
    """One partition of the corpus on the cluster (a Ray actor): its documents' terms, and the
    statistics of its chunks of the pool being ranked."""

    def __init__(self, documents: list[tuple[str, str]], scripts: bool) -> None:
        self.table = TermTable(documents, scripts).index()
        self.doc_ids = list(self.table.texts)
        self.counted: dict[int, tuple[np.ndarray, dict]] = {}

    def statistics(self, ranking: int, doc_of: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                   prefixes: Sequence[str] | None, wanted: frozenset[str]) -> Statistics:
        """Count BM25's statistics over this partition's chunks (kept for ``ranked``)."""
        lens, postings = Pool(self.table, self.doc_ids, doc_of, starts, ends, prefixes).postings(wanted)
        self.counted[ranking] = lens, postings
        return Statistics.of(lens, postings)

    def ranked(self, ranking: int, queries: list[tuple[str, ...]], k: int, pool: Statistics) -> list[Ranked]:
        """Each query's best ``k`` chunks of this partition, scored with the pool's statistics."""
        lens, postings = self.counted.pop(ranking)
        return BM25(lens, postings, pool).ranked(queries, k)


def partition_bounds(sizes: Sequence[int], parts: int) -> list[int]:
    """Where to cut documents of these sizes into at most ``parts`` runs of about equal
    characters, every run holding a document: positions from 0 to ``len(sizes)``."""
    return sorted(set(shares(list(sizes), parts, 0.0)))  # as the analysis workers share a corpus


class RayBM25Retriever(BM25Retriever):
    """The article's BM25, its term index and ranking on the cluster's partitions."""

    def __init__(self, documents: Sequence[Document], scripts: bool, partitions: int | None = None) -> None:
        self.documents, self.scripts, self.partitions = list(documents), scripts, partitions
        self._actors: list | None = None
        self._where: dict[str, tuple[int, int]] = {}  # document id -> (partition, position in it)
        self._rankings = 0

    def actors(self) -> list:
        """The partitions' actors, started on first use (each finds its documents' terms)."""
        if self._actors is None:
            import ray

            cluster = max(1.0, ray.cluster_resources().get("CPU", 1.0))
            bounds = partition_bounds([len(d.text) for d in self.documents], self.partitions or int(cluster))
            # The actors share the cluster's CPUs among them, so any number of partitions fits.
            cpus = min(1.0, cluster / (len(bounds) - 1))
            actor = ray.remote(num_cpus=cpus, scheduling_strategy="SPREAD")(PartitionIndex)
            self._actors = []
            for p, (a, b) in enumerate(zip(bounds, bounds[1:])):
                mine = self.documents[a:b]
                self._where.update((d.id, (p, i)) for i, d in enumerate(mine))
                self._actors.append(actor.remote([(d.id, d.text) for d in mine], self.scripts))
        return self._actors

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        import ray

        if not asks or not len(pool):
            return [[] for _ in asks]
        actors = self.actors()
        try:
            where = np.array([self._where[d] for d in pool.doc_ids], dtype=np.int64).reshape(-1, 2)
        except KeyError as missing:
            raise EngineError(f"document {missing} is not in the corpus the cluster indexed") from None
        partition_of, local = where[pool.doc_of, 0], where[pool.doc_of, 1]
        self._rankings += 1
        ranking, wanted = self._rankings, frozenset(w for a in asks for w in a.words)
        members, counting = [], []
        for p, actor in enumerate(actors):
            chunks = np.flatnonzero(partition_of == p)
            if len(chunks):
                prefixes = [pool.prefixes[j] for j in chunks.tolist()] if pool.prefixes is not None else None
                members.append((chunks, actor))
                counting.append(actor.statistics.remote(ranking, local[chunks], pool.starts[chunks],
                                                        pool.ends[chunks], prefixes, wanted))
        statistics = Statistics.total(ray.get(counting))
        depth = statistics.chunks if k is None else k
        queries = [tuple(a.words) for a in asks]
        ranked = ray.get([actor.ranked.remote(ranking, queries, depth, statistics) for _, actor in members])
        return merge_ranked([[Ranked(r.scores, r.seen, chunks[r.chunks]) for r in part]
                             for (chunks, _), part in zip(members, ranked)], depth)


def on_partitions(retriever: Retriever, documents: Sequence[Document], scripts: bool) -> Retriever:
    """``retriever`` with its BM25 ranking on the cluster's partitions (a dense one unchanged)."""
    if isinstance(retriever, HybridRetriever):
        return HybridRetriever(retriever.spec, retriever.dense, RayBM25Retriever(documents, scripts))
    if isinstance(retriever, BM25Retriever):
        return RayBM25Retriever(documents, scripts)
    return retriever
