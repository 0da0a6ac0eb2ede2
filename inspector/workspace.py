"""A corpus prepared once for many measurements: atoms, term indexes and splits are cached.

Every splitter and every budget reuses the same per-document ``Analysis`` (atoms are never
recomputed per configuration), and the probe's term index is built once per document.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass

from .analysis import Analysis
from .atoms import analyze
from .corpus import Corpus
from .lengths import Length, get_length
from .measures import HeaderCarry, header_carry, survival_pair
from .model import ATOM_KINDS, Chunk, Document
from .bm25 import TermTable
from .probe import ProbeResult, Query, make_queries, run_probe
from .spec import SplitterSpec, parse_spec
from .splitters import SplitResult, split_document


@dataclass(frozen=True, slots=True)
class SplitSummary:
    """A configuration's corpus-wide counts (survival as ``kind -> (intact, counted)``)."""

    spec: SplitterSpec
    """The configuration."""

    chunks: int
    """Number of chunks over the corpus."""

    span_chars: int
    """Characters inside chunk spans, repeats counted (prefixes not included)."""

    survival_fit: dict[str, tuple[int, int]]
    """Survival over atoms no larger than the budget."""

    survival_all: dict[str, tuple[int, int]]
    """Survival over every atom."""

    oversized: int
    """Chunks over budget because one indivisible piece is."""


class Workspace:
    """One corpus in one atom mode, with everything derived from it cached."""

    def __init__(self, corpus: Corpus | list[Document], mode: str = "markdown") -> None:
        self.documents: list[Document] = list(corpus.documents if isinstance(corpus, Corpus) else corpus)
        self.mode = mode
        self._analyses: dict[str, Analysis] = {}
        self._terms: TermTable | None = None
        self._queries: list[Query] | None = None
        self._splits: dict[str, list[SplitResult]] = {}
        self._fingerprint: str | None = corpus.fingerprint if isinstance(corpus, Corpus) else None

    @property
    def fingerprint(self) -> str:
        """A digest of the documents' ids and texts (the corpus's, when built from one)."""
        if self._fingerprint is None:
            self._fingerprint = Corpus("", tuple(self.documents)).fingerprint
        return self._fingerprint

    @property
    def characters(self) -> int:
        """Total characters of the corpus."""
        return sum(len(d.text) for d in self.documents)

    def analysis(self, document: Document) -> Analysis:
        """The document's structure, computed on first use."""
        found = self._analyses.get(document.id)
        if found is None:
            found = self._analyses[document.id] = analyze(document.text, self.mode)
        return found

    def analyses(self, jobs: int = 1) -> list[Analysis]:
        """Every document's structure, in corpus order. With ``jobs`` > 1 the documents are
        analysed in forked workers while this process builds the probe's term table."""
        missing = [d for d in self.documents if d.id not in self._analyses]
        if jobs > 1 and len(missing) > 1 and "fork" in multiprocessing.get_all_start_methods():
            size = max(1, -(-len(missing) // jobs))
            batches = [[d.text for d in missing[i:i + size]] for i in range(0, len(missing), size)]
            with multiprocessing.get_context("fork").Pool(min(jobs, len(batches))) as pool:
                pending = pool.map_async(_analyze_batch, [(self.mode, batch) for batch in batches])
                self.term_table()  # independent of atoms: overlaps the workers' parsing
                results = pending.get()
            for document, analysis in zip(missing, (a for batch in results for a in batch)):
                self._analyses[document.id] = analysis
        return [self.analysis(d) for d in self.documents]

    def prepare_probe(self) -> None:
        """Build everything the probe shares across configurations (before forking workers)."""
        self.queries()
        self.term_table().select(frozenset(w for q in self.queries() for w in q.words))
        if self.mode != "seed":
            get_length("o200k")

    def atom_counts(self) -> dict[str, int]:
        """Atoms per kind over the corpus."""
        counts = dict.fromkeys(ATOM_KINDS, 0)
        for analysis in self.analyses():
            for kind in ATOM_KINDS:
                counts[kind] += analysis.count(kind)
        return counts

    def split(self, spec: SplitterSpec | str) -> list[SplitResult]:
        """Every document split under ``spec`` (cached per configuration)."""
        spec = parse_spec(spec)
        key = str(spec)
        if key not in self._splits:
            length = get_length(spec.unit)
            self._splits[key] = [split_document(d, spec, self.analysis(d), length) for d in self.documents]
        return self._splits[key]

    def chunks(self, spec: SplitterSpec | str) -> list[Chunk]:
        """Every chunk of the corpus under ``spec``, in corpus order."""
        return [c for result in self.split(spec) for c in result.chunks]

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """Counts and survival for one configuration; ``fits`` (default: the spec's budget,
        in its unit) is the size limit of the atoms counted in ``survival_fit``."""
        spec = parse_spec(spec)
        fits = spec.budget if fits is None else fits
        results = self.split(spec)
        fit_size = None
        if spec.in_tokens:
            length = get_length(spec.unit)
            fit_size = _SpanTokens(length)
        fit: dict[str, list[int]] = {k: [0, 0] for k in ATOM_KINDS}
        every: dict[str, list[int]] = {k: [0, 0] for k in ATOM_KINDS}
        chunks = chars = oversized = 0
        for document, result in zip(self.documents, results):
            spans = result.spans
            chunks += len(spans)
            chars += sum(b - a for a, b in spans)
            oversized += len(result.oversized)
            atoms = self.analysis(document).atoms
            size = fit_size.bind(document.text) if fit_size else None
            for target, part in zip((fit, every), survival_pair(atoms, spans, fits, size)):
                for kind, (intact, counted) in part.items():
                    target[kind][0] += intact
                    target[kind][1] += counted
        return SplitSummary(spec, chunks, chars, {k: tuple(v) for k, v in fit.items()},
                            {k: tuple(v) for k, v in every.items()}, oversized)

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        """Rows that keep or lose their table header under ``spec``."""
        total = HeaderCarry()
        for document, result in zip(self.documents, self.split(spec)):
            total.add(header_carry(document.text, self.analysis(document), list(result.chunks)))
        return total

    def term_table(self) -> TermTable:
        """Every term of the corpus, found once, for the probe's BM25."""
        if self._terms is None:
            self._terms = TermTable((d.id, d.text) for d in self.documents)
        return self._terms

    def queries(self) -> list[Query]:
        """The article's 200 lexical queries for this corpus and mode."""
        if self._queries is None:
            figures = [self.analysis(d).atoms["num"] for d in self.documents]
            self._queries = make_queries(self.documents, figures)
        return self._queries

    def probe(self, spec: SplitterSpec | str, *, k: int = 5) -> ProbeResult:
        """answer@k, cut and context for one configuration (context tokens: characters / 4 in
        seed mode, real o200k tokens otherwise)."""
        counter = None
        if self.mode != "seed":
            counter = get_length("o200k").count_many
        return run_probe(self.queries(), self.chunks(spec), self.term_table(), k=k, token_count=counter)


def _analyze_batch(job: tuple[str, list[str]]) -> list[Analysis]:
    mode, texts = job
    return [analyze(text, mode) for text in texts]


class _SpanTokens:
    """Token size of atom spans, for 'atoms that fit a token budget'."""

    def __init__(self, length: Length) -> None:
        self.length = length

    def bind(self, text: str):
        return lambda a, b: self.length.count(text[a:b])
