"""Chunks made elsewhere, measured exactly as a built-in splitter's are.

An import or an adapter yields plain chunks per document; survival, the probe, header carry
and rendering all expect ``Workspace.split``'s shape. This adapter gives them that shape, so
no measure needs a second code path for foreign chunks.
"""

from __future__ import annotations

from .errors import ImportChunksError
from .lengths import get_length
from .measures import HeaderCarry, header_carry, survival_pair
from .model import ATOM_KINDS, Chunk, Document
from .probe import ProbeResult, run_probe
from .spec import MAX_BUDGET, SplitterSpec
from .splitters import SplitResult
from .workspace import SplitSummary


class ImportedSplits:
    """Chunks from elsewhere (an import, an adapter) presented like ``Workspace.split``'s, so
    survival, the probe, header carry and rendering treat them as any splitter's.

    Only documents that received chunks take part. ``budget`` (in ``unit``) is the size the
    producer aimed at: chunks over it are reported as oversized and ``summarize``'s fit
    survival counts atoms up to it; without one nothing is oversized and every atom counts.
    """

    def __init__(self, workspace, chunks_by_doc, *, label: str = "imported", budget: int | None = None,
                 unit: str = "chars") -> None:
        known = {d.id for d in workspace.documents}
        stray = sorted(set(chunks_by_doc) - known)
        if stray:
            raise ImportChunksError(f"chunks for documents the workspace lacks: {', '.join(stray[:5])}")
        self.workspace = workspace
        self.label = label
        self.budget = budget
        self.documents: list[Document] = [d for d in workspace.documents if chunks_by_doc.get(d.id)]
        self.chunks_by_doc: dict[str, tuple[Chunk, ...]] = {
            d.id: tuple(sorted(chunks_by_doc[d.id], key=lambda c: (c.start, c.end))) for d in self.documents}
        self.length = get_length(unit)
        texts = {d.id: d.text for d in self.documents}
        flat = self.chunks()
        self._sizes = self.length.count_many([c.prefix + texts[c.doc_id][c.start:c.end] for c in flat])
        largest = max(self._sizes, default=1)
        self.spec = SplitterSpec("ext-imported", min(MAX_BUDGET, max(1, budget or largest)), unit)

    def chunks(self) -> list[Chunk]:
        """Every chunk in corpus order (the order ``run_probe`` needs)."""
        return [c for chunks in self.chunks_by_doc.values() for c in chunks]

    def sizes(self) -> list[int]:
        """Embedded size (prefix + span) of every chunk, in ``unit``, in ``chunks()`` order."""
        return list(self._sizes)

    def split(self) -> list[SplitResult]:
        """One ``SplitResult`` per document that has chunks, in corpus order."""
        out, k = [], 0
        for document in self.documents:
            chunks = self.chunks_by_doc[document.id]
            sizes = self._sizes[k:k + len(chunks)]
            k += len(chunks)
            over = tuple(i for i, s in enumerate(sizes) if self.budget is not None and s > self.budget)
            out.append(SplitResult(document.id, self.spec, self.workspace.mode, chunks, over))
        return out

    def summarize(self, *, fits: int | None = None) -> SplitSummary:
        """Counts and survival, as ``Workspace.summarize`` gives them for a splitter."""
        fits = self.budget if fits is None else fits
        size = None
        if fits is not None and self.length.unit != "characters":
            length = self.length
            size = lambda text: (lambda a, b: length.count(text[a:b]))  # noqa: E731
        fit = {k: [0, 0] for k in ATOM_KINDS}
        every = {k: [0, 0] for k in ATOM_KINDS}
        chunks = chars = oversized = 0
        for document, result in zip(self.documents, self.split()):
            spans = result.spans
            chunks += len(spans)
            chars += sum(b - a for a, b in spans)
            oversized += len(result.oversized)
            atoms = self.workspace.analysis(document).atoms
            measure = size(document.text) if size else None
            for target, part in zip((fit, every), survival_pair(atoms, spans, fits, measure)):
                for kind, (intact, counted) in part.items():
                    target[kind][0] += intact
                    target[kind][1] += counted
        return SplitSummary(self.spec, chunks, chars, {k: tuple(v) for k, v in fit.items()},
                            {k: tuple(v) for k, v in every.items()}, oversized)

    def probe(self, *, k: int = 5) -> ProbeResult:
        """The lexical probe over these chunks; queries of documents without chunks are left out."""
        present = set(self.chunks_by_doc)
        queries = [q for q in self.workspace.queries() if q.doc_id in present]
        counter = None if self.workspace.mode == "seed" else get_length("o200k").count_many
        return run_probe(queries, self.chunks(), self.workspace.term_table(), k=k, token_count=counter)

    def header_carry(self) -> HeaderCarry:
        """Rows that keep or lose their table header."""
        total = HeaderCarry()
        for document in self.documents:
            total.add(header_carry(document.text, self.workspace.analysis(document),
                                   list(self.chunks_by_doc[document.id])))
        return total


def summarize_chunks(workspace, chunks_by_doc, **options) -> SplitSummary:
    """``Workspace.summarize`` for chunks from elsewhere (options as ``ImportedSplits``)."""
    return ImportedSplits(workspace, chunks_by_doc, **options).summarize()
