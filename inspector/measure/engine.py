"""``Engine``: what every engine answers about a corpus, declared once.

The commands, the reports, ``tune`` and the golden and review rooms ask a corpus only what this
protocol lists; each engine answers it its own way. ``workspace.Workspace`` holds the corpus in
memory and is the reference; ``engines.stream`` reads it batch by batch from disk and
``engines.ray`` measures it on a Ray cluster, both printing the reference's numbers. What an
engine does not do is refused by the protocol's own method with ``EngineCannot`` (a
``NotImplementedError``), never found out by asking the object what it has.

Adding a measure: write it in ``measure/`` as a function of one workspace holding some documents
(a sum over documents, as ``headers.header_carry_spans`` is), add its method here, and give each
engine the method: the reference calls the function, the streamed engine sums it over its
batches with ``per_part``, the Ray engine over its partitions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Protocol

from ..errors import EngineCannot

if TYPE_CHECKING:
    from ..model import Chunk, ImportProblem
    from ..retrieval.golden import GoldenResult
    from ..retrieval.golden_files import GoldenSet
    from ..retrieval.probe import ProbeResult, Query
    from ..retrieval.questions import QuestionSet
    from ..retrieval.ranking import Retriever
    from ..spec import SplitterSpec
    from .asking import AskResult
    from .headers import HeaderCarry
    from .services import Services
    from .summary import CorpusFacts, Grouped, SplitSummary

Progress = Callable[[str, int, int], None]


class Engine(Protocol):
    """One corpus in one atom mode, measured by configuration (a spec or its string)."""

    mode: str
    """The atom mode: ``markdown``, ``plain`` or ``seed``."""

    services: Services
    """The folders and servers it was built with: where it keeps what it derives and finds its
    context lines and vectors, and which embeddings and rerank servers it asks."""

    @property
    def fingerprint(self) -> str:
        """A digest of the documents' ids and texts."""
        return _cannot(self, "digest its corpus")

    @property
    def characters(self) -> int:
        """Characters over the corpus."""
        return _cannot(self, "count its characters")

    def corpus_facts(self) -> CorpusFacts:
        """Documents, characters, languages and atoms of the corpus."""
        return _cannot(self, "describe its corpus")

    def analyses(self, jobs: int = 1, workers=None):
        """Every document analysed (``jobs`` processes; ``workers`` already started)."""
        return _cannot(self, "analyse documents")

    def retriever(self, spec=None) -> Retriever:
        """The retriever ``spec`` names (default BM25), ranking where this engine ranks."""
        return _cannot(self, "rank chunks")

    def embed_ahead(self, retriever: Retriever, specs, texts: list[str], progress: Progress | None = None) -> None:
        """Embed now what ``retriever`` will rank (every chunk of ``specs``, and ``texts``)."""
        _cannot(self, "embed ahead")

    def measure_ahead(self, summaries=(), probes=(), headers=(), k: int = 5, golden=None, expand=(),
                      retriever=None) -> None:
        """Measure these configurations now, in one pass where the engine makes passes (the
        reference measures each when asked and does nothing here)."""

    def release(self, spec: SplitterSpec | str) -> None:
        """Forget ``spec``'s chunks (split again when asked)."""

    def queries(self) -> list[Query]:
        """The probe's queries, drawn from the corpus's figure sentences."""
        return _cannot(self, "draw the probe's queries")

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """Chunks, duplication and survival of ``spec`` (atoms up to ``fits`` counted apart)."""
        return _cannot(self, "summarize a chunking")

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        """Rows that keep or lose their table header under ``spec``."""
        return _cannot(self, "count header carry")

    def probe(self, spec: SplitterSpec | str, *, k: int = 5, retriever=None, expand: int = 0) -> ProbeResult:
        """answer@k, cut and context of ``spec``, ranked by ``retriever``."""
        return _cannot(self, "run the probe")

    def summaries_by(self, key: str, specs: Sequence) -> Grouped:
        """Each spec's counts over the documents of each format (``key`` ``format``) or language."""
        return _cannot(self, "group documents")

    def sizes(self, spec: SplitterSpec | str, unit: str | None = None) -> list[int]:
        """What each chunk of ``spec`` embeds, in ``unit`` (default the spec's), in corpus order."""
        return _cannot(self, "size chunks")

    def context_coverage(self, spec: SplitterSpec | str) -> tuple[int, int]:
        """``(chunks with a context line, chunks)`` of a ``+context`` spec."""
        return _cannot(self, "count context lines")

    def problems(self, spec: SplitterSpec | str) -> list[ImportProblem]:
        """The chunks of ``spec`` not taken as their library gave them."""
        return _cannot(self, "check a library's chunks")

    def export(self, spec: SplitterSpec | str, stream: IO[str]) -> int:
        """Every chunk of ``spec`` as export records on ``stream``; how many."""
        return _cannot(self, "export chunks")

    def ask(self, spec: SplitterSpec | str, questions: QuestionSet, *, retriever=None, k: int = 5) -> AskResult:
        """The user's questions ranked against ``spec``'s chunks."""
        return _cannot(self, "ask questions")

    def load_golden(self, source, name: str | None = None) -> GoldenSet:
        """A golden set (a path or its bytes) with every quote located in the corpus."""
        return _cannot(self, "locate golden sets")

    def scored_golden(self, golden: GoldenSet, spec: SplitterSpec | str, *, budgets: tuple[int, ...],
                      length: str = "o200k", label: str = "", retriever=None, expand: int = 0) -> GoldenResult:
        """``golden`` scored on ``spec``'s chunks (``retrieval.golden.golden_recall``)."""
        return _cannot(self, "score golden sets")

    def per_part(self, what: str, function: Callable, *args) -> list:
        """``function(workspace, *args)`` of each part of the corpus as a ``Workspace`` holding
        it, in corpus order (the reference: one part, itself; ``function`` at a module's top
        level, for the engines that run it in other processes). ``what`` names it for progress."""
        return _cannot(self, what)

    def fan_out(self, function: Callable, items: Sequence, jobs: int = 1,
                let_go: Callable | None = None) -> Iterator:
        """``function(self, item)`` for every item (given costliest first), yielded as they
        finish: in ``jobs`` processes where the engine forks workers sharing what it holds (the
        reference), else here one after another (the others measure in their own workers);
        ``let_go(self, item)`` frees what an item held once a worker is done with it."""
        for item in items:
            yield function(self, item)

    def chunks(self, spec: SplitterSpec | str) -> list[Chunk]:
        """Every chunk of ``spec`` as objects, in corpus order (engines that hold the corpus)."""
        return _cannot(self, "hand out chunk objects: it does not hold the corpus; export them instead")


def _cannot(engine, what: str):
    raise EngineCannot(f"the {type(engine).__name__} engine cannot {what}")
