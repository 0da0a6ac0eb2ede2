"""A corpus prepared once for many measurements: atoms, term indexes and splits are cached.

Every splitter and every budget reuses the same per-document ``Analysis`` (atoms are never
recomputed per configuration), and the probe's term index is built once per document.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

from .analysis import Analysis
from .atoms import analyze
from .corpus import Corpus
from .lengths import get_length
from .measures import HeaderCarry
from .model import ATOM_KINDS, Chunk, Document
from .bm25 import TermTable
from .chunksets import ChunkSet, ChunkSetStore
from .collector import collection_paused
from .errors import ChunkSetError
from .probe import ProbeResult, Query, make_queries
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
        self._chunk_sets: dict[str, ChunkSet] = {}
        self._query_candidates: dict[str, list] | None = None  # left by ``analyses`` for ``prepare_probe``
        self._chunk_arrays_cache: dict = {}  # built-in specs' chunks as arrays (see ``_chunk_arrays``)
        self._atom_arrays_cache = None  # every atom as arrays (see ``_atom_arrays``)
        self.chunk_set_store: ChunkSetStore | None = None
        """Where ``imported:ID`` specs not yet registered are looked up (None: nowhere)."""

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

    def analyses(self, jobs: int = 1, workers=None) -> list[Analysis]:
        """Every document's structure, in corpus order. With ``jobs`` > 1, forked workers
        analyse the later documents (and pick their query candidates) while this process
        builds the probe's term table and does the same for the first ones. ``workers``
        (``analysis_workers.Workers`` over this corpus's documents) are ones started earlier."""
        from .analysis_workers import TABLE_SHARE, Workers

        missing = [d for d in self.documents if d.id not in self._analyses]
        if workers is None and jobs > 1:
            head = TABLE_SHARE.get(self.mode, 0.2) if self._terms is None else 0.0
            workers = Workers.start(missing, self.mode, jobs, head)
        if workers is not None:
            from .probe import query_candidates

            candidates: dict[str, list] = {}
            try:
                self.term_table()  # independent of atoms: overlaps the workers' parsing
                for document in workers.own:
                    candidates[document.id] = query_candidates(document, self.analysis(document).atoms["num"])
                for document, analysis, found in workers.collect():
                    self._analyses[document.id] = analysis
                    candidates[document.id] = found
            finally:
                workers.close()
            if all(d.id in candidates for d in self.documents):
                self._query_candidates = candidates
        return [self.analysis(d) for d in self.documents]

    def prepare_probe(self) -> None:
        """Build everything the probe shares across configurations (before forking workers)."""
        candidates, self._query_candidates = self._query_candidates, None
        if self._queries is None and candidates is not None:
            from .probe import choose_queries

            self._queries = choose_queries([c for d in self.documents for c in candidates[d.id]])
        self.queries()
        self.term_table().select(frozenset(w for q in self.queries() for w in q.words))
        _atom_arrays(self)
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
            if spec.is_imported:
                found = self.chunk_set(spec.chunk_set)
                self._splits[key] = found.split_results(self.documents, spec, self.mode)
            else:
                length = get_length(spec.unit)
                analyses = [self.analysis(d) for d in self.documents]
                # Library splitters (ext-) run foreign code, which may well make cycles.
                with nullcontext() if spec.kind.startswith("ext-") else collection_paused():
                    self._splits[key] = [split_document(d, spec, a, length) for d, a in zip(self.documents, analyses)]
        return self._splits[key]

    def add_chunk_set(self, chunk_set: ChunkSet) -> SplitterSpec:
        """Make imported chunks splittable as ``imported:ID``; returns that spec.
        ``ChunkSetError`` when the set was placed on another corpus."""
        if chunk_set.corpus != self.fingerprint:
            raise ChunkSetError(f"chunk set {chunk_set.id} was placed on another corpus than this workspace's")
        self._chunk_sets[chunk_set.id] = chunk_set
        return chunk_set.spec

    def forget_chunk_set(self, set_id: str) -> None:
        """Drop a chunk set and its cached splits (after it was deleted from the store)."""
        self._chunk_sets.pop(set_id, None)
        for key in [k for k in self._splits if k.startswith(f"imported:{set_id}")]:
            del self._splits[key]

    def chunk_set(self, set_id: str) -> ChunkSet:
        """A registered chunk set, else one read from ``chunk_set_store`` (``ChunkSetError``
        when neither has it)."""
        found = self._chunk_sets.get(set_id)
        if found is None:
            if self.chunk_set_store is None:
                raise ChunkSetError(f"no imported chunk set {set_id} is registered with this workspace")
            found = self.chunk_set_store.load(set_id, self.documents, self.fingerprint)
            self._chunk_sets[set_id] = found
        return found

    def chunks(self, spec: SplitterSpec | str) -> list[Chunk]:
        """Every chunk of the corpus under ``spec``, in corpus order."""
        return [c for result in self.split(spec) for c in result.chunks]

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """Counts and survival for one configuration; ``fits`` (default: the spec's budget,
        in its unit) is the size limit of the atoms counted in ``survival_fit``."""
        from .chunk_arrays import survival_counts

        spec = parse_spec(spec)
        fits = spec.budget if fits is None else fits
        chunks = _chunk_arrays(self, spec)
        atoms = _atom_arrays(self)
        sizes = None
        if spec.in_tokens:
            length = get_length(spec.unit)
            texts = [d.text for d in self.documents]
            sizes = lambda kind: atoms.token_sizes(kind, spec.unit, length, texts)  # noqa: E731
        starts, ends = chunks.global_spans(atoms.bases)
        fit, every = survival_counts(atoms, starts, ends, fits, sizes)
        return SplitSummary(spec, len(chunks), chunks.span_chars(), fit, every, chunks.oversized)

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        """Rows that keep or lose their table header under ``spec``."""
        from itertools import accumulate

        from .measures import header_carry_spans

        chunks = _chunk_arrays(self, parse_spec(spec))
        total = HeaderCarry()
        stops = list(accumulate(chunks.counts.tolist()))
        starts, ends = chunks.starts.tolist(), chunks.ends.tolist()
        first = 0
        for document, stop in zip(self.documents, stops):
            prefixes = chunks.prefixes[first:stop] if chunks.prefixes is not None else None
            total.add(header_carry_spans(document.text, self.analysis(document),
                                         list(zip(starts[first:stop], ends[first:stop])), prefixes))
            first = stop
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
        from .probe import probe_spans

        counter = None
        if self.mode != "seed":
            counter = get_length("o200k").count_many
        chunks = _chunk_arrays(self, parse_spec(spec))
        return probe_spans(self.queries(), self.term_table(), list(chunks.doc_ids), chunks.doc_of,
                           chunks.starts, chunks.ends, chunks.prefixes, k=k, token_count=counter)


# -- the measuring fast path: whole-corpus arrays instead of Chunk objects -------------------

def _chunk_arrays(workspace: Workspace, spec: SplitterSpec):
    """``spec``'s chunks over the corpus as arrays (cached for built-in splitters, which are
    split straight to spans; other chunks come from ``Workspace.split``)."""
    from .chunk_arrays import ChunkArrays
    from .splitters import chunk_spans

    ids = [d.id for d in workspace.documents]
    key = str(spec)
    if key in workspace._splits or spec.is_imported or spec.kind.startswith("ext-"):
        per_doc = []
        for result in workspace.split(spec):
            prefixes = [c.prefix for c in result.chunks]
            per_doc.append((result.spans, prefixes if any(prefixes) else None, len(result.oversized)))
        return ChunkArrays.from_spans(ids, per_doc)
    cache = workspace._chunk_arrays_cache
    if key not in cache:
        length = get_length(spec.unit)
        cache[key] = ChunkArrays.from_spans(
            ids, [chunk_spans(d.text, spec, workspace.analysis(d), length) for d in workspace.documents])
    return cache[key]


def _atom_arrays(workspace: Workspace):
    """Every atom of the corpus as arrays, built once."""
    found = workspace._atom_arrays_cache
    if found is None:
        from .chunk_arrays import AtomArrays, document_bases

        bases = document_bases([len(d.text) for d in workspace.documents])
        found = workspace._atom_arrays_cache = AtomArrays(bases, workspace.analyses())
    return found
