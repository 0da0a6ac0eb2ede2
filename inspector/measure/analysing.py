"""The held workspace's analyses: each document's atoms, paragraphs, sentences, tables and
headings found once (in forked workers when asked), kept in an ``AnalysisStore`` between runs,
and the facts read from them (languages, atom counts).

``Workspace`` takes these methods from ``Analysing``, which reads and writes what the workspace
holds: ``documents``, ``mode``, ``analysis_store``, ``kept`` and the caches its ``__init__`` sets.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..atoms.analysis import Analysis, HeadingIndex
from ..atoms.detect import analyze
from ..lengths import get_length
from ..model import ATOM_KINDS, Document, every_script
from ..retrieval.probe import query_candidates
from .summary import CorpusFacts, most_first
from .workers import TABLE_SHARE, Workers


class Analysing:
    """What a held workspace knows of each document's structure, found once."""

    def analysis(self, document: Document) -> Analysis:
        """The document's structure: kept in ``analysis_store`` (every document's is read at
        the first miss), else computed on first use."""
        found = self._analyses.get(document.id)
        if found is None and self.analysis_store is not None and not self._store_read:
            self.read_analyses()
            found = self._analyses.get(document.id)
        if found is None:
            found = self._computed.get(document.text)  # another file with the same text
            if found is None:
                found = self._computed[document.text] = analyze(document.text, self.mode)
                self._unsaved.append(document.id)
            self._analyses[document.id] = found
        return found

    def has_analysis(self, document: Document) -> bool:
        """Whether the document's analysis is at hand (computed, added or read)."""
        return document.id in self._analyses

    def read_analyses(self) -> int:
        """Take every missing analysis ``analysis_store`` keeps; how many it had."""
        self._store_read = True
        return self.analysis_store.fill(self.documents, self._analyses, self.mode) if self.analysis_store else 0

    def save_analyses(self) -> int:
        """Keep the analyses computed here in ``analysis_store``; how many were written."""
        unsaved, self._unsaved = self._unsaved, []
        return self.analysis_store.keep(self.documents, self._analyses, unsaved) if self.analysis_store else 0

    def add_analyses(self, analyses: Mapping[str, Analysis], *, new: bool = False) -> None:
        """Use analyses made elsewhere (by document id: another workspace of the same documents
        and mode, a worker, a store, a cluster), so they are not computed again; ``new`` ones
        are kept in ``analysis_store`` with those computed here."""
        self._analyses.update(analyses)
        if new:
            self._unsaved += list(analyses)

    def headings(self, document: Document) -> HeadingIndex:
        """The document's heading paths by offset (what imported chunks are labelled with)."""
        return self.analysis(document).heading_index

    def analyses(self, jobs: int = 1, workers=None) -> list[Analysis]:
        """Every document's structure, in corpus order. With ``jobs`` > 1, forked workers
        analyse the later documents (and pick their query candidates) while this process
        builds the probe's term table and does the same for the first ones. ``workers``
        (``workers.Workers`` over this corpus's documents) are ones started earlier."""
        if self.analysis_store is not None and not self._store_read:
            self.read_analyses()
        missing = [d for d in self.documents if d.id not in self._analyses]
        if workers is None and jobs > 1:
            head = TABLE_SHARE.get(self.mode, 0.2) if self._terms is None else 0.0
            workers = Workers.start(missing, self.mode, jobs, head)
        if workers is not None:
            candidates: dict[str, list] = {}
            try:
                self.term_table().index()  # independent of atoms: overlaps the workers' parsing
                if self.mode != "seed":  # new documents have chunks never counted: built while they parse
                    get_length("o200k")
                for document in workers.own:
                    candidates[document.id] = query_candidates(document, self.analysis(document).atoms["num"],
                                                               every_script(self.mode))
                for document, analysis, found in workers.collect():
                    self._analyses[document.id] = analysis
                    self._unsaved.append(document.id)
                    candidates[document.id] = found
                for document, earlier in workers.twins:  # same text: same analysis, same candidates
                    self._analyses[document.id] = self._analyses[earlier.id]
                    candidates[document.id] = candidates[earlier.id]
            finally:
                workers.close()
            if all(d.id in candidates for d in self.documents):
                self._query_candidates = candidates
        analyses = [self.analysis(d) for d in self.documents]
        self.save_analyses()
        return analyses

    def languages(self) -> dict[str, str]:
        """Each document's language (``Analysis.language``), by document id, in corpus order."""
        return {d.id: a.language for d, a in zip(self.documents, self.analyses())}

    def language_counts(self) -> dict[str, int]:
        """Documents per language, the most written first."""
        counts: dict[str, int] = {}
        for language in self.languages().values():
            counts[language] = counts.get(language, 0) + 1
        return most_first(counts)

    def corpus_facts(self) -> CorpusFacts:
        """Documents, characters, languages and atoms of the corpus."""
        facts = CorpusFacts()
        for document, analysis in zip(self.documents, self.analyses()):
            facts.add(len(document.text), analysis.language, CorpusFacts.lengths_of(analysis.atoms))
        return facts

    def atom_counts(self) -> dict[str, int]:
        """Atoms per kind over the corpus."""
        counts = dict.fromkeys(ATOM_KINDS, 0)
        for analysis in self.analyses():
            for kind in ATOM_KINDS:
                counts[kind] += analysis.count(kind)
        return counts
