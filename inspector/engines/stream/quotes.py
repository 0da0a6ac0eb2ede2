"""A golden set's quotes located in a streamed corpus (``StreamWorkspace``), as
``golden_files.load_golden`` locates them in a held one.

One pass over the batches finds which documents hold a quote verbatim (a second, for quotes
held nowhere, looks with whitespace normalised); those come back with their text, every other
document as its id and path only (a record may name it), and ``load_golden`` locates the
quotes as it does in a held corpus.
"""

from __future__ import annotations

from ...chunks.matching import NormalisedText
from ...model import Document
from ...retrieval.golden_files import GoldenSet, load_golden, quote_texts
from .batches import Held


def located_over_batches(work, source, name: str | None = None) -> GoldenSet:
    """``load_golden`` of ``source`` in the streamed corpus ``work``."""
    quotes = sorted(quote_texts(source, name))
    jobs = [(work.batches, batch, quotes, ()) for batch in range(len(work.batches))]
    found = list(work.crossed("quotes", holding_batch, jobs))
    anywhere = set().union(*(held for batch in found for held, _ in batch[1].values()))
    nowhere = tuple(i for i in range(len(quotes)) if i not in anywhere)
    if nowhere:  # looked for again with whitespace normalised, as ``locate`` does
        jobs = [(work.batches, batch, quotes, nowhere) for batch in range(len(work.batches))]
        for mine, again in zip(found, work.crossed("quotes", holding_batch, jobs)):
            mine[1].update(again[1])
    documents, searched = [], []
    for (sources, holding), first in zip(found, work.batches.bounds):
        for k, source_path in enumerate(sources):
            text = holding[k][1] if k in holding else ""
            documents.append(Document(work.ids[first + k], text, source=source_path))
            if k in holding:
                searched.append(documents[-1])
    return load_golden(source, documents, name=name, searched=searched)


def holding_batch(job: tuple[Held, int, list[str], tuple[int, ...]]) -> tuple[list[str], dict]:
    """One batch's documents' paths, and the documents holding some of ``quotes`` (those
    numbered ``normalised``, with whitespace normalised; else verbatim) with their text: ``{place
    in the batch: (numbers of the quotes held, text)}``."""
    held, batch, quotes, normalised = job
    documents = held.documents_of(batch)
    holding = {}
    for k, document in enumerate(documents):
        text = document.text
        if normalised:
            twin = NormalisedText(text)
            held = {i for i in normalised if twin.find_all(quotes[i])}
        else:
            held = {i for i, quote in enumerate(quotes) if quote in text}
        if held:
            holding[k] = (held, text)
    return [d.source for d in documents], holding
