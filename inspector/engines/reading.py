"""A run of a listing's files read and analysed where they are measured: on a Ray worker
(``ray.session``) or in a forked reader of the local engine (``stream``).

Both read with the same ``corpus.Reading``, take each analysis from the data folder's store
when it has one and keep the new ones there, and note each document's facts and query
candidates, so the two engines measure the same documents the same way."""

from __future__ import annotations

from collections.abc import Sequence

from ..atoms.analysis import Analysis
from ..atoms.detect import analyze
from ..corpus.listing import SkippedFile
from ..measure.summary import CorpusFacts
from ..model import Document, Span, every_script
from ..retrieval.probe import query_candidates

#: What a document is known by before its text is needed: id, characters, language, its atoms'
#: lengths by kind and its query candidates (``marshal``-able, as a Ray row carries it).
Facts = tuple[str, int, str, dict[str, list[int]], list[Span]]


def read_analysed(reading, store: str | None,
                  entries: Sequence[tuple[str, str]]) -> list[tuple[Document, Analysis] | SkippedFile]:
    """Each ``(id, path)`` read by ``reading`` (a ``corpus.Reading``): the document with its
    analysis (from the store in the data folder ``store``, else computed and kept there), or
    the file skipped with its reason; in the order given."""
    from ..atoms.store import AnalysisStore

    found = [reading.read(doc_id, path) for doc_id, path in entries]
    documents = [f for f in found if isinstance(f, Document)]
    kept = AnalysisStore(store) if store else None
    texts = [d.text for d in documents]
    analyses = kept.load(texts, reading.mode) if kept else [None] * len(documents)
    new = [i for i, a in enumerate(analyses) if a is None]
    computed: dict[str, Analysis] = {}  # files with the same text share one analysis
    for i in new:
        if texts[i] not in computed:
            computed[texts[i]] = analyze(texts[i], reading.mode)
        analyses[i] = computed[texts[i]]
    if kept:
        kept.save(computed.items())
    analysed = iter(zip(documents, analyses))
    return [next(analysed) if isinstance(item, Document) else item for item in found]


def facts_of(document: Document, analysis: Analysis, mode: str) -> Facts:
    """What the driver keeps of a document it does not hold."""
    candidates = query_candidates(document, analysis.atoms["num"], every_script(mode))
    return (document.id, len(document.text), analysis.language, CorpusFacts.lengths_of(analysis.atoms),
            list(candidates))
