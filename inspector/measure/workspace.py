"""A corpus prepared once for many measurements: atoms, term indexes and splits are cached.

Every splitter and every budget reuses the same per-document ``Analysis`` (atoms are never
recomputed per configuration), and the probe's term index is built once per document. The
analyses are ``analysing``'s side of the workspace, the probe ``probing``'s; splitting,
measuring, chunk sets and exports are here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from itertools import accumulate

from ..atoms.analysis import Analysis
from ..chunks.export import export_chunks
from ..chunks.sets import ChunkSet
from ..corpus.load import Corpus
from ..errors import ChunkSetError, ContextLineError
from ..forking import collection_paused
from ..lengths import get_length
from ..model import Chunk, Document, ImportProblem, Span, SplitResult
from ..retrieval.probe import ProbeResult, Query
from ..retrieval.ranking import Retriever
from ..retrieval.terms import TermTable
from ..spec import SplitterSpec, parse_spec
from ..split.address import Address
from ..split.llm import SplitAnswersMissing
from ..split.splitters import chunk_spans, split_document
from .analysing import Analysing
from .arrays import AtomArrays, ChunkArrays, document_bases, document_groups, survival_counts
from .engine import Engine
from .headers import HeaderCarry, header_carry_spans
from .probing import Probing
from .services import OpenedServices, Services
from .summary import Grouped, SplitSummary


class Workspace(Analysing, Probing, Engine):
    """One corpus in one atom mode, with everything derived from it cached.

    Every chunking is named by a spec: a built-in splitter, another library's splitter
    (``ext-``) or a chunk set made elsewhere (``imported:ID``, registered with
    ``add_chunk_set`` or found in ``chunk_set_store``). All of them are split, measured,
    probed and drawn the same way.
    """

    def __init__(self, corpus: Corpus | list[Document], mode: str = "markdown",
                 services: Services | None = None, *, opened: OpenedServices | None = None) -> None:
        """``services`` are opened as the workspace is built, unless ``opened`` gives them open
        (a subset's, a partition's: the stores of the workspace they are part of)."""
        self.documents: list[Document] = list(corpus.documents if isinstance(corpus, Corpus) else corpus)
        self.mode = mode
        self._analyses: dict[str, Analysis] = {}
        self._terms: TermTable | None = None
        self._queries: list[Query] | None = None
        self._whole: Workspace | None = None  # the workspace a subset sees through (``subset``)
        self._splits: dict[str, list[SplitResult]] = {}
        self._fingerprint: str | None = corpus.fingerprint if isinstance(corpus, Corpus) else None
        self._chunk_sets: dict[str, ChunkSet] = {}
        self._query_candidates: dict[str, list] | None = None  # left by ``analyses`` for ``prepare_probe``
        self._chunk_arrays_cache: dict[str, ChunkArrays] = {}  # built-in specs' chunks as arrays
        self._atom_arrays_cache: AtomArrays | None = None
        self._groups_cache = None
        self._selections: set[frozenset[str]] = set()  # word sets looked up among the terms (``find_words``)
        self._probes: dict[tuple, ProbeResult] = {}  # by spec, retriever, k and neighbour width
        self.services = services or Services()
        opened = opened or OpenedServices.of(self.services)
        # The services, opened (``services.OpenedServices`` says what each is): only here, as the
        # workspace is built.
        self.chunk_set_store, self.vector_folder = opened.chunk_set_store, opened.vector_folder
        self.embeddings_url, self.rerank_url = opened.embeddings_url, opened.rerank_url
        self.question_store, self.context_store = opened.question_store, opened.context_store
        self.split_answers, self.analysis_store, self.kept = opened.split_answers, opened.analysis_store, opened.kept
        self._store_read = False
        self._unsaved: list[str] = []  # ids of analyses computed here and not yet kept
        self._computed: dict[str, Analysis] = {}  # analyses computed here, by text

    @property
    def opened(self) -> OpenedServices:
        """The services this workspace uses, as they are now (what its subsets are built with)."""
        return OpenedServices(self.chunk_set_store, self.vector_folder, self.embeddings_url, self.rerank_url,
                              self.question_store, self.context_store, self.split_answers, self.analysis_store,
                              self.kept)

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

    def subset(self, doc_ids: Iterable[str]) -> "Workspace":
        """The same corpus seen through some of its documents (corpus order kept).

        Measures of the subset count only those documents; it shares this workspace's
        analyses, term table, chunk sets and fingerprint, and the probe asks only the queries
        drawn from those documents. Used to compare chunkings on the documents an import
        covers."""
        wanted = set(doc_ids)
        part = Workspace([d for d in self.documents if d.id in wanted], self.mode, self.services, opened=self.opened)
        part._analyses = self._analyses
        part._whole = self  # its term table and queries are this workspace's, taken when first asked
        part._fingerprint = self.fingerprint
        part._chunk_sets = self._chunk_sets
        part._store_read = self._store_read
        return part

    def ask(self, spec: SplitterSpec | str, questions, *, retriever=None, k: int = 5):
        """The user's questions (a ``QuestionSet``) ranked against ``spec``'s chunks by
        ``retriever`` (default BM25): an ``asking.AskResult``."""
        from .asking import ask

        return ask(self, spec, questions, retriever=retriever, k=k)

    def fan_out(self, function: Callable, items, jobs: int = 1, let_go: Callable | None = None):
        """``Engine.fan_out`` in this process and ``jobs - 1`` forked workers, which inherit
        this workspace's analyses, splits and term index (``fanout``); the probe's shared parts
        built first."""
        from .fanout import fan_out

        return fan_out(self, function, items, jobs, let_go, before=self.prepare_probe)

    def per_part(self, what: str, function: Callable, *args) -> list:
        """``function(self, *args)``: a held corpus is one part."""
        return [function(self, *args)]

    def load_golden(self, source, name: str | None = None):
        """``golden_files.load_golden`` over this corpus's documents."""
        from ..retrieval.golden_files import load_golden

        return load_golden(source, self.documents, name=name)

    def scored_golden(self, golden, spec: SplitterSpec | str, *, budgets: tuple[int, ...], length="o200k",
                      label: str = "", retriever=None, expand: int = 0):
        """``golden`` scored on ``spec``'s chunks ranked by ``retriever`` (default BM25), each
        question counted in the language of its evidence's document."""
        from dataclasses import replace

        from ..retrieval.golden import evaluate_golden

        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        result = evaluate_golden(golden, self.pool(spec), self.term_table(), budgets=budgets, length=length,
                                 label=label or str(spec), retriever=retriever, expand=expand)
        language = self.languages()
        return replace(result, languages=tuple(language.get(q.item.locations[0][0], "und") if q.item.locations
                                               else "" for q in result.questions))

    def summaries_by(self, key: str, specs) -> Grouped:
        """Each spec's counts (every atom, each spec's own budget) over the documents of each
        source format (``key`` ``format``) or language (``language``): group -> (documents,
        spec -> summary). Each group is a ``subset``, which finds no terms to be measured."""
        group_of = self.languages() if key == "language" else {d.id: d.format for d in self.documents}
        groups: dict[str, list[str]] = {}
        for document in self.documents:
            groups.setdefault(group_of[document.id], []).append(document.id)
        return {name: (len(ids), {str(spec): self.subset(ids).summarize(spec) for spec in specs})
                for name, ids in groups.items()}

    def subset_of(self, language: str) -> "Workspace":
        """``subset`` of the documents written in ``language``."""
        return self.subset(d for d, found in self.languages().items() if found == language)

    def split(self, spec: SplitterSpec | str) -> list[SplitResult]:
        """Every document split under ``spec`` (cached per configuration)."""
        spec = parse_spec(spec)
        key = str(spec)
        if key not in self._splits:
            if spec.context:
                self._splits[key] = [result.with_context(spec, lines) for result, lines in
                                     zip(self.split(spec.base), self.context_lines(spec))]
            elif spec.is_imported:
                found = self.chunk_set(spec.chunk_set)
                self._splits[key] = found.split_results(self.documents, spec, self.mode)
            else:
                length = get_length(spec.unit)
                analyses = [self.analysis(d) for d in self.documents]
                # Library splitters (ext-) run foreign code, which may well make cycles.
                answers = self.cut_answers(spec)
                with nullcontext() if spec.is_adapter else collection_paused():
                    self._splits[key] = [split_document(d, spec, a, length, answers=answers)
                                         for d, a in zip(self.documents, analyses)]
        return self._splits[key]

    def cut_answers(self, spec: SplitterSpec):
        """Where ``spec``'s cuts are read from: ``split_answers`` for an ``llm`` spec
        (``ContextLineError`` when this workspace has none), None for any other."""
        if not spec.needs_answers:
            return None
        if self.split_answers is None:
            raise ContextLineError(f"{spec} cuts where its model's answers say, and this workspace keeps none "
                                   "(a workspace built with a data folder's Services reads the folder's)")
        return self.split_answers

    def context_lines(self, spec: SplitterSpec | str) -> list[dict[Span, str]]:
        """Per document, the lines ``spec``'s model has in ``context_store``, by span."""
        spec = parse_spec(spec)
        if not spec.context_model:
            raise ContextLineError(f"{spec} names no model for its context lines: add ;llm=MODEL")
        if self.context_store is None:
            raise ContextLineError("this workspace has no context-line store to read lines from")
        return self.context_store.lines_of(spec.context_model, self.documents)

    def context_coverage(self, spec: SplitterSpec | str) -> tuple[int, int]:
        """``(chunks with a line, chunks)`` of a ``+context`` spec."""
        spec = parse_spec(spec)
        results = self.split(spec.base)
        lines = self.context_lines(spec)
        return sum(sum(c.span in found for c in r.chunks) for r, found in zip(results, lines)), \
            sum(len(r.chunks) for r in results)

    def problems(self, spec: SplitterSpec | str) -> list[ImportProblem]:
        """Every chunk of a library splitter (``ext-``) not taken as its library gave it."""
        return [p for result in self.split(spec) for p in result.problems]

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
        for key in [k for k in self._splits if parse_spec(k).chunk_set == set_id]:
            del self._splits[key]

    def chunk_set(self, set_id: str) -> ChunkSet:
        """A registered chunk set, else one read from ``chunk_set_store`` (``ChunkSetError``
        when neither has it)."""
        found = self._chunk_sets.get(set_id)
        if found is None:
            if self.chunk_set_store is None:
                raise ChunkSetError(f"no imported chunk set {set_id} is registered with this workspace")
            # A set holds chunks of the whole corpus: a subset reads it against every document.
            documents = self._whole.documents if self._whole is not None else self.documents
            found = self.chunk_set_store.load(set_id, documents, self.fingerprint)
            self._chunk_sets[set_id] = found
        return found

    def chunks(self, spec: SplitterSpec | str) -> list[Chunk]:
        """Every chunk of the corpus under ``spec``, in corpus order."""
        return [c for result in self.split(spec) for c in result.chunks]

    def export(self, spec: SplitterSpec | str, stream) -> int:
        """Every chunk of ``spec`` as export records (JSON lines, ``chunks.export``) on ``stream``;
        how many."""
        return export_chunks(self, spec, stream)

    def sizes(self, spec: SplitterSpec | str, unit: str | None = None) -> list[int]:
        """What each chunk of ``spec`` embeds (prefix and span), in ``unit`` (default: the
        spec's), in corpus order."""
        spec = parse_spec(spec)
        length = get_length(unit or spec.unit)
        texts = {d.id: d.text for d in self.documents}
        return length.count_many([c.prefix + texts[c.doc_id][c.start:c.end] for c in self.chunks(spec)])

    def summarize(self, spec: SplitterSpec | str, *, fits: int | None = None) -> SplitSummary:
        """Counts and survival for one configuration; ``fits`` (default: the spec's budget,
        in its unit) is the size limit of the atoms counted in ``survival_fit``.

        Imported chunks have no budget of their own: without ``fits`` every atom counts and
        none is oversized; with it, chunks embedding more than ``fits`` are oversized."""
        spec = parse_spec(spec)
        if fits is None and not spec.is_imported:
            fits = spec.budget
        chunks = self._chunk_arrays(spec)
        atoms = self._atom_arrays()
        sizes = None
        if spec.in_tokens and fits is not None:
            length = get_length(spec.unit)
            texts = [d.text for d in self.documents]
            sizes = lambda kind: atoms.token_sizes(kind, spec.unit, length, texts)  # noqa: E731
        starts, ends = chunks.global_spans(atoms.bases)
        found = survival_counts(atoms, starts, ends, fits, sizes, self._groups())
        oversized = chunks.oversized
        if spec.is_imported and fits is not None:
            oversized = sum(1 for size in self.sizes(spec) if size > fits)
        return SplitSummary(spec, len(chunks), chunks.span_chars(), found.fit, found.every, oversized,
                            found.tally_fit, found.tally_all, found.groups_fit, found.groups_all)

    def measure_ahead(self, summaries=(), probes=(), headers=(), k: int = 5, golden=None, expand=(),
                      retriever=None) -> None:
        """Nothing to do: a workspace holding its corpus measures each configuration, and scores
        each ``golden`` set, when asked (``StreamWorkspace`` measures them all in one pass
        over its batches)."""

    def embed_ahead(self, retriever: Retriever, specs, texts: list[str], progress=None) -> None:
        """Embed now what ``retriever`` will rank (every chunk of ``specs``, and ``texts``), so
        that forked workers inherit the vectors and one progress bar shows the wait."""
        texts = list(texts)
        for spec in specs:
            texts += self.pool(spec).texts()
        retriever.prepare(texts, progress)

    def held(self) -> list[str]:
        """The specs whose chunks are held (``release`` lets them go)."""
        return list(dict.fromkeys([*self._splits, *self._chunk_arrays_cache]))

    def release(self, spec: SplitterSpec | str) -> None:
        """Forget ``spec``'s chunks (split again when asked): what a forked measuring worker
        does once it has measured a configuration, so that it holds one at a time."""
        spec = parse_spec(spec)
        self._splits.pop(str(spec), None)
        self._chunk_arrays_cache.pop(str(spec), None)
        for key in [key for key in self._probes if key[0] == str(spec)]:
            del self._probes[key]

    def header_carry(self, spec: SplitterSpec | str = "structured:800") -> HeaderCarry:
        """Rows that keep or lose their table header under ``spec``."""
        spec = parse_spec(spec)
        chunks = self._chunk_arrays(spec)
        stops = list(accumulate(chunks.counts.tolist()))
        starts, ends = chunks.starts.tolist(), chunks.ends.tolist()
        firsts = [0, *stops]
        return HeaderCarry.total(
            header_carry_spans(document.text, self.analysis(document), list(zip(starts[first:stop], ends[first:stop])),
                               chunks.prefixes[first:stop] if chunks.prefixes is not None else None)
            for document, first, stop in zip(self.documents, firsts, stops))









    # -- the measuring fast path: whole-corpus arrays instead of Chunk objects ---------------

    def _chunk_arrays(self, spec: SplitterSpec) -> ChunkArrays:
        """``spec``'s chunks over the corpus as arrays (cached for built-in splitters, which are
        split straight to spans; other chunks come from ``split``)."""
        ids = [d.id for d in self.documents]
        key = str(spec)
        if key in self._splits or not spec.is_built_in:
            per_doc = []
            for result in self.split(spec):
                prefixes = [c.prefix for c in result.chunks]
                per_doc.append((result.spans, prefixes if any(prefixes) else None, len(result.oversized)))
            return ChunkArrays.from_spans(ids, per_doc)
        if key not in self._chunk_arrays_cache:
            lengths: list = []  # built at the first document split here, not when every split is kept
            answers = self.cut_answers(spec)

            def split(d: Document) -> tuple:
                lengths or lengths.append(get_length(spec.unit))
                try:
                    return chunk_spans(d.text, spec, self.analysis(d), lengths[0], Address.of(d), answers)
                except SplitAnswersMissing as missing:  # named by the document's id, not its size
                    raise missing.of(d.id) from None

            kept = self.kept
            splits = (kept.splits(self.documents, spec, self.mode, split) if kept is not None and kept.keeps(spec)
                      else map(split, self.documents))
            self._chunk_arrays_cache[key] = ChunkArrays.from_spans(ids, splits)
        return self._chunk_arrays_cache[key]

    def _groups(self):
        """Each document's group (``summary.bucket_of``), in corpus order."""
        if self._groups_cache is None:
            self._groups_cache = document_groups([d.id for d in self.documents])
        return self._groups_cache

    def _atom_arrays(self) -> AtomArrays:
        """Every atom of the corpus as arrays, built once."""
        if self._atom_arrays_cache is None:
            bases = document_bases([len(d.text) for d in self.documents])
            self._atom_arrays_cache = AtomArrays(bases, self.analyses())
        return self._atom_arrays_cache
