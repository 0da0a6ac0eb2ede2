"""The held workspace's probe: the corpus's terms found once, the article's lexical queries chosen
once, and a configuration's chunks ranked and judged by any retriever (``probe``).

``Workspace`` takes these methods from ``Probing``, which reads and writes what the workspace
holds: ``documents``, ``mode``, ``kept``, ``fingerprint``, ``analysis`` and the chunks as arrays.
"""

from __future__ import annotations

from functools import partial

from ..lengths import get_length
from ..model import Document, Span, every_script
from ..retrieval.opening import shared_retriever
from ..retrieval.probe import ProbeResult, Query, choose_queries, probe_pool, query_candidates
from ..retrieval.ranking import Pool, Retriever
from ..retrieval.retriever_spec import RetrieverSpec
from ..retrieval.terms import TermTable
from ..spec import SplitterSpec, parse_spec


class Probing:
    """How a held workspace asks the article's queries of a configuration's chunks."""

    def prepare_probe(self) -> None:
        """Build everything the probe shares across configurations (before forking workers)."""
        candidates, self._query_candidates = self._query_candidates, None
        if self._queries is None and candidates is not None:
            found = [candidates[d.id] for d in self.documents]
            if self.kept is not None:  # the workers found them: the next run reads them
                self.kept.keep(self.kept.keys("candidates", self.documents, self.mode), found)
            self._queries = choose_queries(self.documents, found, scripts=every_script(self.mode))
        self.queries()
        self.find_words(frozenset(w for q in self.queries() for w in q.words))
        self._atom_arrays()
        if self.mode != "seed" and self.kept is None:
            get_length("o200k")  # kept counts build it only when a chunk was never counted

    def term_table(self) -> TermTable:
        """Every term of the corpus, found once, for BM25: the article's terms in seed mode, the
        terms of every script otherwise."""
        if self._terms is None:
            scripts = every_script(self.mode)
            kept = (partial(self.kept.term_runs, self.documents, self.mode, TermTable.runs_of)
                    if scripts and self.kept is not None else None)  # every script's terms are kept
            self._terms = (self._whole.term_table() if self._whole is not None else
                           TermTable(((d.id, d.text) for d in self.documents), scripts=scripts, runs=kept))
        return self._terms

    def find_words(self, words: frozenset[str]) -> None:
        """Find where ``words`` occur among the corpus's terms (``TermTable.select``), or read it
        from ``derived``; BM25 over any of this corpus's chunks then counts them without looking."""
        if words not in self._selections:
            self._selections.add(words)
            if self.kept is None:
                self.term_table().select(words)
            else:
                self.kept.select(self.term_table(), words, self.fingerprint, self.mode)

    def queries(self) -> list[Query]:
        """The article's 200 lexical queries for this corpus and mode."""
        if self._queries is None and self._whole is not None:
            mine = {d.id for d in self.documents}
            self._queries = [q for q in self._whole.queries() if q.doc_id in mine]
        if self._queries is None:
            scripts = every_script(self.mode)

            def candidates(document: Document) -> list[Span]:
                return query_candidates(document, self.analysis(document).atoms["num"], scripts)

            kept = self.kept
            found = (map(candidates, self.documents) if kept is None else
                     kept.each(kept.keys("candidates", self.documents, self.mode), self.documents, candidates))
            self._queries = choose_queries(self.documents, list(found), scripts=scripts)
        return self._queries

    def retriever(self, spec: RetrieverSpec | str | None = None) -> Retriever:
        """The retriever ``spec`` names (default BM25), shared by every workspace of this
        process with the same vector folder and server."""
        return shared_retriever(spec, base_url=self.embeddings_url, cache_folder=self.vector_folder,
                                rerank_url=self.rerank_url)

    def pool(self, spec: SplitterSpec | str) -> Pool:
        """``spec``'s chunks as retrievers rank them."""
        chunks = self._chunk_arrays(parse_spec(spec))
        return Pool(self.term_table(), list(chunks.doc_ids), chunks.doc_of, chunks.starts, chunks.ends,
                    chunks.prefixes)

    def probe(self, spec: SplitterSpec | str, *, k: int = 5,
              retriever: Retriever | RetrieverSpec | str | None = None, expand: int = 0) -> ProbeResult:
        """answer@k, cut and context for one configuration, ranked by ``retriever`` (default
        BM25; context tokens: characters / 4 in seed mode, real o200k tokens otherwise), each
        top-k chunk read with ``expand`` neighbours either side."""
        if not isinstance(retriever, Retriever):
            retriever = self.retriever(retriever)
        spec = parse_spec(spec)
        key = (str(spec), retriever, k, expand)  # a report's compare and sweep tables share a splitter
        found = self._probes.get(key)
        if found is None:
            found = self._probes[key] = self.measure_probe(spec, k, retriever, expand)
        return found

    def o200k_counter(self):
        """``count_many`` of o200k tokens: the kept counts where ``derived`` has them (the encoding is
        then built only for a text never counted)."""
        return self.kept.counter("o200k") if self.kept is not None else get_length("o200k").count_many

    def measure_probe(self, spec: SplitterSpec, k: int, retriever: Retriever, expand: int) -> ProbeResult:
        """``probe`` measured, not looked up (what ``probe`` keeps; an engine measuring
        elsewhere answers it there)."""
        counter = self.o200k_counter() if self.mode != "seed" else None
        if retriever.spec.kind != "dense":  # the lexical ones look the query words up among the terms
            self.find_words(frozenset(w for q in self.queries() for w in q.words))
        return probe_pool(self.queries(), self.pool(spec), k=k, token_count=counter, retriever=retriever,
                          expand=expand)
