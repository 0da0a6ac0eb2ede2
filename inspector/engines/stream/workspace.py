"""The local engine over a corpus it does not hold: ``report``, ``check`` and ``export`` with
memory that does not grow with the corpus's text or its chunks.

The corpus is cut into batches of about equal file bytes (``spill.batch_runs``), and every pass
over them hands one batch at a time to a forked worker:

1. *read* (``stream.read.read_streamed``): the batch's files are read, their analyses taken from the data
   folder or computed and kept there, and the batch parked on disk (``spill.Spill``); this
   process keeps each document's id and query candidates and the corpus's facts;
2. *measure* (``StreamWorkspace.measure_ahead``, or one configuration when first asked): every
   configuration is measured on the batch by the code that measures ``--engine ray``'s
   partitions (``partition.Partition``): survival, sizes and header carry come back as sums
   over documents; for the probe, each chunk's length in terms and the query words' postings
   are parked beside the batch (``Counted``), with its vector for a dense or hybrid retriever,
   and only their BM25 statistics come back;
3. *rank*: the statistics summed into the pool's, each batch's chunks are ranked with them (or
   by their vectors) and its best k come back, merged here; a hybrid ranking takes a second
   pass to count each candidate's ranks over every batch (``stream.fusion``);
4. *read back*: the batches holding the winners are split again, their documents alone, for
   the winners' spans, prefixes and tokens, and the probe is judged.

Golden sets (``stream.golden``), the user's questions and neighbour windows (``stream.ranking``)
are passes of the same kind. Scores use the pool's statistics in the article's order and ties
are broken by the same keys, so every number is the one the corpus held in memory gives. Held
for the whole corpus: ids, query candidates and atom lengths. Imported chunks and what the
user's own system retrieved need the corpus in memory: ``Workspace``. The same passes run on a Ray cluster's
partitions, each actor a batch (``ray.corpus.ClusterWorkspace``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import IO, TYPE_CHECKING

from ...corpus.listing import SkippedFile
from ...corpus.load import Fingerprint
from ...errors import EngineCannot, EngineError
from ...lengths import get_length
from ...measure.asking import AskResult
from ...measure.engine import Engine
from ...measure.headers import HeaderCarry
from ...measure.services import Services
from ...measure.summary import CorpusFacts, Grouped, RunningSummary, SpanLists, SplitSummary, grouped_total
from ...measure.workspace import Workspace
from ...model import ImportProblem
from ...retrieval.bm25 import Statistics
from ...retrieval.opening import shared_retriever
from ...retrieval.probe import ProbeResult, Query, drawn
from ...retrieval.questions import QuestionSet
from ...retrieval.ranking import Retriever
from ...retrieval.retriever_spec import parse_retriever
from ...spec import SplitterSpec, parse_spec
from .batches import (
    Asked,
    Embedding,
    export_batch,
    group_batch,
    measure_batch,
    on_batch,
    on_workers,
    size_batch,
    words_batch,
)
from .ranking import asked_of_batches, probed_over_batches
from .spill import Spill

if TYPE_CHECKING:
    from ...retrieval.golden import GoldenResult
    from ...retrieval.golden_files import GoldenSet

Progress = Callable[[str, int, int], None]


class StreamWorkspace(Engine):
    """A corpus parked on disk, measured batch by batch (see the module). It answers what
    ``report``'s tables, ``check``'s gate and ``export`` ask of a workspace, for splitters of
    each document alone (ours or another library's) ranked by BM25, a dense retriever or both."""

    def __init__(self, batches: Spill, mode: str, jobs: int = 1, progress: Progress | None = None,
                 services: Services | None = None) -> None:
        self.batches, self.mode, self.jobs, self.progress = batches, mode, jobs, progress
        """Where the batches are held (``Spill``; a Ray cluster's partitions for ``ClusterWorkspace``)."""
        self.ids: list[str] = []
        self.candidates = SpanLists()
        self.facts = CorpusFacts()
        self.skipped: tuple[SkippedFile, ...] = ()
        """Files found but not read, as ``Corpus.skipped``."""
        self._summaries: dict[tuple[str, int | None], SplitSummary] = {}
        self._headers: dict[str, HeaderCarry] = {}
        self._probes: dict[tuple[str, str, int, int], ProbeResult] = {}  # (spec, retriever, k, neighbours read)
        self._golden: dict[tuple, GoldenResult] = {}  # by golden set, spec, budgets, neighbour width and retriever
        self.services = services or Services()
        self.vector_folder: str | None = self.services.data or None
        """Where dense retrievers keep their vectors (``embeddings.sqlite3``; None: in memory)."""
        self.embeddings_url: str | None = self.services.embeddings_url or None
        """The OpenAI-compatible server of ``dense:openai:`` retrievers (None: ``$OPENAI_BASE_URL``)."""
        self._queries: list[Query] | None = None
        self._fingerprint: str | None = None
        self.passes: list[tuple[str, int]] = []
        """Each pass made over the batches, and how many batches it took (for messages and tests)."""
        self._closing = weakref.finalize(self, batches.close)

    def close(self) -> None:
        """Remove the parked batches (also done when the workspace is let go)."""
        self._closing()

    def __enter__(self) -> "StreamWorkspace":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return self.facts.documents

    @property
    def characters(self) -> int:
        return self.facts.characters

    @property
    def fingerprint(self) -> str:
        """``Corpus.fingerprint`` of the documents read, digested batch by batch."""
        if self._fingerprint is None:
            digest = Fingerprint()
            for document in self.batches.documents():
                digest.add(document)
            self._fingerprint = digest.hexdigest()
        return self._fingerprint

    def corpus_facts(self) -> CorpusFacts:
        return self.facts

    def analyses(self, jobs: int = 1, workers=None) -> None:
        """Nothing to do: every analysis was made when the corpus was read."""

    def retriever(self, spec=None) -> Retriever:
        spec = parse_retriever(spec)
        if spec.reranker:  # the batches rank apart; a reranker would have to reorder their merged best
            raise EngineError(f"{spec}: a reranker is measured with the corpus held in memory (--engine memory), "
                              "not a batch at a time")
        return shared_retriever(spec, base_url=self.embeddings_url, cache_folder=self.vector_folder)

    def embedding(self, retriever: Retriever) -> Embedding | None:
        """How the workers embed chunks for ``retriever`` (None: BM25 embeds nothing)."""
        dense = retriever.spec.dense
        if dense is None:
            return None
        return Embedding(str(dense), self.embeddings_url, str(self.vector_folder) if self.vector_folder else None)

    def embed_ahead(self, retriever: Retriever, specs, texts: list[str], progress=None) -> None:
        """Nothing to do: the workers embed each batch's chunks as they measure it, and the
        questions are embedded when ranked."""

    def release(self, spec: SplitterSpec | str) -> None:
        """Nothing to do: no chunk is held."""

    def queries(self) -> list[Query]:
        """The article's 200 lexical queries, drawn as a workspace holding the corpus draws them,
        their words read from the batches holding them."""
        if self._queries is None:
            chosen = drawn(self.candidates)
            asked: dict[int, list[int]] = {}
            for i, (doc, _) in enumerate(chosen):
                asked.setdefault(self.batches.batch_of(doc)[0], []).append(i)
            jobs = [(self.batches, batch, self.mode, [(self.batches.batch_of(chosen[i][0])[1], chosen[i][1])
                                                      for i in mine]) for batch, mine in asked.items()]
            words: dict[int, tuple[str, ...]] = {}
            for mine, found in zip(asked.values(), self._query_words(jobs)):
                words.update(zip(mine, found))
            self._queries = [Query(self.ids[doc], span, words[i]) for i, (doc, span) in enumerate(chosen)]
        return self._queries

    def _query_words(self, jobs: list) -> Iterator[list[tuple[str, ...]]]:
        """``words_batch`` of each job: here, a batch at a time (a few batches, a few words)."""
        return map(words_batch, jobs)

    # -- measuring ------------------------------------------------------------------------

    def measure_ahead(self, summaries: Iterable[tuple[SplitterSpec | str, int | None]] = (),
                      probes: Iterable[SplitterSpec | str] = (), headers: Iterable[SplitterSpec | str] = (),
                      k: int = 5, golden: tuple | None = None, expand: Iterable[int] = (), retriever=None) -> None:
        """Measure these in one pass over the batches (what is measured already is not again);
        each probe ranked by ``retriever`` (default BM25), also with each top-k chunk read with
        each of ``expand``'s numbers of neighbours either side; ``golden``, ``(golden set, specs,
        budgets[, neighbour widths])``: score the set for every spec (and width), in two passes
        of their own."""
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        if golden is not None:
            self._golden_ahead(*golden, retriever=retriever)
        ranker = str(retriever.spec)
        widths = tuple(sorted({0, *expand}))
        asked = Asked(tuple(dict.fromkeys(key for key in ((str(self._batched(s)), f) for s, f in summaries)
                                          if key not in self._summaries)),
                      tuple(dict.fromkeys(s for s in map(str, map(self._batched, probes))
                                          if any((s, ranker, k, w) not in self._probes for w in widths))),
                      tuple(dict.fromkeys(s for s in map(str, map(self._batched, headers)) if s not in self._headers)))
        if not (asked.summaries or asked.probes or asked.headers):
            return
        asked = replace(asked, tag=len(self.passes), embedding=self.embedding(retriever) if asked.probes else None)
        if asked.probes:
            asked = replace(asked, wanted=frozenset(w for q in self.queries() for w in q.words))
        parts = {key: RunningSummary(parse_spec(key[0])) for key in asked.summaries}
        carried: dict[str, list[HeaderCarry]] = {spec: [] for spec in asked.headers}
        statistics: dict[str, list[Statistics]] = {spec: [] for spec in asked.probes}
        jobs = [(self.batches, batch, self.mode, asked) for batch in range(len(self.batches))]
        for batch, measures in enumerate(self.crossed("measure", measure_batch, jobs)):
            for key, summary in measures.summaries.items():
                parts[key].add(summary)
            for spec, carry in measures.headers.items():
                carried[spec].append(carry)
            for spec, found in measures.statistics.items():
                statistics[spec].append(found)
            if self.progress is not None:
                self.progress("documents measured", self.batches.bounds[batch + 1], len(self))
        self._summaries.update((key, running.summary()) for key, running in parts.items())
        self._headers.update((spec, HeaderCarry.total(found)) for spec, found in carried.items())
        if statistics:
            try:
                found = probed_over_batches(self, asked, statistics, k, widths, retriever)
                self._probes.update(((spec, ranker, k, width), probe) for (spec, width), probe in found.items())
            finally:
                self.batches.drop("counted")

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """A configuration's counts; measured with its probe when first asked, as ``check`` asks both."""
        key = (str(self._batched(spec)), fits)
        if key not in self._summaries:
            self.measure_ahead([key], [key[0]])
        return self._summaries[key]

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        key = str(self._batched(spec))
        if key not in self._headers:
            self.measure_ahead(headers=[key])
        return self._headers[key]

    def probe(self, spec: SplitterSpec | str, *, k: int = 5, retriever=None, expand: int = 0) -> ProbeResult:
        """answer@k, cut and context of a built-in splitter, ranked by ``retriever`` (default
        BM25), each top-k chunk read with ``expand`` neighbours either side."""
        key = str(self._batched(spec))
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        if (key, str(retriever.spec), k, expand) not in self._probes:
            self.measure_ahead(probes=[key], k=k, expand=(expand,), retriever=retriever)
        return self._probes[key, str(retriever.spec), k, expand]

    def summaries_by(self, key: str, specs) -> Grouped:
        """``Workspace.summaries_by``: one pass over the batches, every spec at once."""
        names = [str(self._batched(spec)) for spec in specs]
        jobs = [(self.batches, batch, self.mode, key, names) for batch in range(len(self.batches))]
        return grouped_total(self.crossed(f"by {key}", group_batch, jobs))

    def context_coverage(self, spec: SplitterSpec | str) -> tuple[int, int]:
        """``Workspace.context_coverage`` of a ``+context`` spec, batch by batch (lines read from
        the data folder the batches keep their analyses in)."""
        key = str(self._batched(spec))
        found = self.per_part("context lines", Workspace.context_coverage, key)
        return sum(have for have, _ in found), sum(chunks for _, chunks in found)

    def problems(self, spec: SplitterSpec | str) -> list[ImportProblem]:
        """``Workspace.problems``: a library splitter's chunks not taken as it gave them, batch by batch."""
        key = str(self._batched(spec))
        return [problem for found in self.per_part("problems", Workspace.problems, key) for problem in found]

    def per_part(self, what: str, function: Callable, *args) -> list:
        """``function(workspace, *args)`` of each batch's documents as a workspace holding them
        (in the workers; ``function`` at a module's top level), in corpus order: one pass."""
        jobs = [(self.batches, batch, self.mode, function, args) for batch in range(len(self.batches))]
        return list(self.crossed(what, on_batch, jobs))

    def sizes(self, spec: SplitterSpec | str, unit: str | None = None) -> list[int]:
        """What each chunk of ``spec`` embeds (prefix and span), in ``unit`` (default: the
        spec's), in corpus order: one pass over the batches."""
        spec = self._batched(spec)
        get_length(unit or spec.unit)  # an encoding built once here, before the workers fork
        jobs = [(self.batches, batch, self.mode, str(spec), unit) for batch in range(len(self.batches))]
        return [size for found in self.crossed("sizes", size_batch, jobs) for size in found]

    def export(self, spec: SplitterSpec | str, stream: IO[str]) -> int:
        """``export_chunks`` of every document, batch by batch in corpus order."""
        key, written = str(self._batched(spec)), 0
        jobs = [(self.batches, batch, self.mode, key, None) for batch in range(len(self.batches))]
        for lines in self.crossed("export", export_batch, jobs):
            stream.write(lines)
            written += lines.count("\n")
        return written

    def ask(self, spec: SplitterSpec | str, questions: QuestionSet, *, retriever=None, k: int = 5) -> AskResult:
        """``asking.ask``: the user's questions ranked by ``retriever`` (default BM25) against a
        built-in splitter's chunks, over the batches, the chunks retrieved read back for their
        tokens and atom fragments."""
        key = str(self._batched(spec))
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        return asked_of_batches(self, key, questions, retriever, k)

    def load_golden(self, source, name: str | None = None) -> GoldenSet:
        """``golden_files.load_golden``: the golden set's quotes located batch by batch."""
        from .quotes import located_over_batches  # golden sets' modules load when asked for

        return located_over_batches(self, source, name)

    def scored_golden(self, golden: GoldenSet, spec: SplitterSpec | str, *, budgets: tuple[int, ...],
                      length: str = "o200k", label: str = "", retriever=None, expand: int = 0) -> GoldenResult:
        """``golden.golden_recall`` of a built-in splitter ranked by ``retriever`` (default BM25),
        each ranked chunk read with ``expand`` neighbours either side, in o200k tokens, over the
        batches (a question completed beyond the largest budget has no rank)."""
        key = str(self._batched(spec))
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        if str(length) != "o200k":
            raise EngineCannot("the streamed engine scores golden sets in o200k tokens only; hold the corpus "
                               "(--engine memory) to count in another unit")
        self._golden_ahead(golden, [key], budgets, (expand,), retriever=retriever)
        return replace(self._golden[golden, key, tuple(budgets), expand, str(retriever.spec)], label=label or key)

    def _golden_ahead(self, golden: GoldenSet, specs, budgets: tuple[int, ...], widths=(0,), *, retriever) -> None:
        from .golden import golden_over_batches  # golden sets' modules load when asked for

        budgets, widths, ranker = tuple(budgets), tuple(dict.fromkeys(widths)), str(retriever.spec)
        keys = dict.fromkeys(str(self._batched(spec)) for spec in specs)
        todo = [key for key in keys if any((golden, key, budgets, w, ranker) not in self._golden for w in widths)]
        if todo:
            found = golden_over_batches(self, golden, todo, budgets, retriever, widths)
            self._golden.update(((golden, spec, budgets, width, ranker), result)
                                for (spec, width), result in found.items())

    def crossed(self, what: str, function: Callable, jobs: list) -> Iterator:
        """``function`` of every job, in order, on the workers: one pass over the batches (noted
        in ``passes``). A batch that cannot be parked or taken back ends the command with why."""
        self.passes.append((what, len(jobs)))
        try:
            yield from on_workers(function, jobs, self.jobs)
        except OSError as exc:
            raise EngineError(f"cannot park or take back the corpus's batches in {self.batches.folder} "
                              f"({exc.strerror or exc}); TMPDIR names where they go") from None

    def _batched(self, spec: SplitterSpec | str) -> SplitterSpec:
        spec = parse_spec(spec)
        if not spec.is_per_document:
            raise EngineError(f"{spec} needs the corpus in memory; a corpus measured in batches takes splitters "
                              "of each document alone (ours or another library's)")
        return spec
