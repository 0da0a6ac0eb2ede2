"""``--engine ray`` without the corpus on the driver: the cluster reads, analyses and measures it.

Ray Data reads every file of the listing on the cluster, with its analysis (kept in the data
folder where a worker reaches it) and its query candidates (``ray_engine.ray_read``). The
driver takes the rows in corpus order, a few batches at a time: it counts the corpus's facts
(documents, characters, languages, atom lengths), keeps each document's id and query
candidates, and hands the documents, still pickled, with their analyses to the partitions'
actors, cut into runs of about equal bytes; it never holds the texts or the analyses. The
queries are drawn from the candidates as the local engine draws them, their words found by the
partitions holding them, and every measure of a built-in splitter is the partitions'
(``ray_partitions``), so the output is the local engine's.

``ClusterWorkspace`` answers what ``report``'s four tables, ``check``'s gate and ``export`` ask
of a workspace; the rest (golden sets, chunks made elsewhere, neighbour windows, a dense
retriever) needs the corpus on the driver and takes the ``Workspace`` path.
"""

from __future__ import annotations

import marshal
from typing import IO

from ..corpus.listing import Listing, SkippedFile
from ..corpus.load import Fingerprint, Reading
from ..errors import EngineError
from ..retrieval.probe import Query, drawn
from ..retrieval.ranking import Retriever, shared_retriever
from ..spec import SplitterSpec, parse_spec
from .headers import HeaderCarry
from .ray_engine import ray_read
from .ray_partitions import Partitions, partition_actor
from .summary import CorpusFacts, Grouped, SpanLists, SplitSummary

#: Documents handed to an actor at once, and exported from one at once.
HANDOVER = 256


class ClusterWorkspace:
    """A corpus held by the cluster's partitions, measured there."""

    def __init__(self, cluster: Partitions, facts: CorpusFacts, candidates: SpanLists,
                 skipped: list[SkippedFile], fingerprint: str = "") -> None:
        self.cluster, self.facts, self.mode = cluster, facts, cluster.mode
        self.candidates = candidates
        self.skipped = tuple(sorted(skipped, key=lambda s: (s.path, s.reason)))
        """Files found but not read, as ``Corpus.skipped``."""
        self.fingerprint = fingerprint
        """``Corpus.fingerprint`` of the documents read (when asked for)."""
        self._queries: list[Query] | None = None

    def __len__(self) -> int:
        return self.facts.documents

    @property
    def characters(self) -> int:
        return self.facts.characters

    def corpus_facts(self) -> CorpusFacts:
        return self.facts

    def analyses(self, jobs: int = 1, workers=None) -> None:
        """Nothing to do: the partitions hold every analysis."""

    def measure_ahead(self, summaries=(), probes=(), headers=(), k: int = 5, golden=None, expand=()) -> None:
        """Nothing to do: the partitions measure each configuration when asked."""

    def queries(self) -> list[Query]:
        """The article's 200 lexical queries, drawn as the local engine draws them."""
        if self._queries is None:
            import ray

            chosen = drawn(self.candidates)
            asked: dict[int, list[int]] = {}
            for i, (doc, _) in enumerate(chosen):
                asked.setdefault(self.cluster.partition_of(doc)[0], []).append(i)
            words: dict[int, tuple[str, ...]] = {}
            actors = self.cluster.actors()
            replies = ray.get([actors[p].words.remote([(self.cluster.partition_of(chosen[i][0])[1], chosen[i][1])
                                                       for i in asks]) for p, asks in asked.items()])
            for asks, found in zip(asked.values(), replies):
                words.update(zip(asks, found))
            self._queries = [Query(self.cluster.ids[doc], span, words[i]) for i, (doc, span) in enumerate(chosen)]
        return self._queries

    def retriever(self, spec=None) -> Retriever:
        return shared_retriever(spec)

    def _built_in(self, spec: SplitterSpec | str) -> SplitterSpec:
        spec = parse_spec(spec)
        if not self.cluster.measures(spec):
            raise EngineError(f"{spec} needs the corpus on the driver; the cluster measures built-in splitters")
        return spec

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        return self.cluster.summarize(self._built_in(spec), fits)

    def summaries_by(self, key: str, specs) -> Grouped:
        return self.cluster.summaries_by(key, [self._built_in(s) for s in specs])

    def sizes(self, spec: SplitterSpec | str, unit: str | None = None) -> list[int]:
        """What each chunk of ``spec`` embeds (prefix and span), in ``unit`` (default: the
        spec's), in corpus order."""
        return self.cluster.sizes(self._built_in(spec), unit)

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        return self.cluster.header_carry(self._built_in(spec))

    def probe(self, spec: SplitterSpec | str, *, k: int = 5, retriever=None, expand: int = 0):
        spec = self._built_in(spec)
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        if not self.cluster.probes(spec, retriever, expand):
            raise EngineError("the cluster probes with BM25, each chunk read alone")
        return self.cluster.probe(self.queries(), spec, k)

    def release(self, spec: SplitterSpec | str) -> None:
        self.cluster.release(parse_spec(spec))

    def export(self, spec: SplitterSpec | str, stream: IO[str]) -> int:
        """``export_chunks`` of every document, partition by partition in corpus order."""
        import ray

        key, written = str(self._built_in(spec)), 0
        for p, actor in enumerate(self.cluster.actors()):
            held = self.cluster.bounds[p + 1] - self.cluster.bounds[p]
            for first in range(0, held, HANDOVER):
                lines = ray.get(actor.export.remote(key, first, min(held, first + HANDOVER)))
                stream.write(lines)
                written += lines.count("\n")
        return written


def read_on_cluster(listing: Listing, reading: Reading, store: str | None = None, partitions: int | None = None,
                    *, fingerprint: bool = False, progress=None) -> ClusterWorkspace:
    """Read, analyse and hand out a listing's files on the Ray cluster (see the module); with
    ``fingerprint`` the driver also digests the texts as they pass, as ``Corpus.fingerprint``;
    ``progress(done, total)`` is called as files come back."""
    import pickle

    import ray

    from .ray_engine import start_ray

    start_ray()
    cluster = max(1.0, ray.cluster_resources().get("CPU", 1.0))
    count = max(1, min(partitions or int(cluster), len(listing.entries)))
    sizes = listing.sizes()
    share = (sum(sizes) or 1) / count
    actor = partition_actor()
    actors, bounds, ids = [actor.remote(reading.mode)], [0], []
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
            progress(position, len(sizes))
        if not found:
            skipped.append(pickle.loads(item))
            continue
        doc_id, characters, language, lengths, spans = marshal.loads(found)
        # A new partition starts where this one has its share of bytes (and the last takes the rest).
        if len(actors) < count and done >= share * len(actors):
            hand_over()
            actors.append(actor.remote(reading.mode))
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
    return ClusterWorkspace(Partitions.started(reading.mode, ids, bounds, actors), facts, candidates, skipped,
                            digest.hexdigest() if digest is not None else "")



