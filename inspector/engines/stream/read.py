"""The streamed engine's read pass: a listing's files read a batch at a time by forked workers,
analysed and parked on disk, this process keeping each document's id, query candidates and the
corpus's facts (``StreamWorkspace``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ...corpus.listing import Listing, SkippedFile
from ...corpus.load import Reading
from ...errors import EngineError
from ...measure.services import Services
from .batches import read_batch
from .spill import Spill, batch_runs
from .workspace import StreamWorkspace

Progress = Callable[[str, int, int], None]


def read_streamed(listing: Listing, reading: Reading, store: str | None = None, *, jobs: int = 1,
                  progress: Progress | None = None, services: Services | None = None) -> "StreamWorkspace":
    """A listing's files read in batches by ``jobs`` workers, analysed (analyses kept in the data
    folder ``store``) and parked on disk, this process keeping only what ``StreamWorkspace`` lists;
    the engine built with ``services``."""
    sizes = listing.sizes()
    runs = batch_runs(sizes, jobs)
    try:
        # The data folder: where the analyses are kept, and what the batches derive from them too.
        spill = Spill(data=store)
    except OSError as exc:
        raise EngineError(f"cannot make a folder to park the corpus's batches in ({exc.strerror or exc}); "
                          "TMPDIR names where it goes") from None
    work = StreamWorkspace(spill, reading.mode, jobs, progress, services)
    reading = replace(reading, progress=None)  # a worker reports nothing; this process counts files
    batches = [(spill, b, reading, store, listing.entries[a:z]) for b, (a, z) in enumerate(zip(runs, runs[1:]))]
    skipped = list(listing.skipped)
    try:
        work.skipped = _read_into(work, batches, runs, skipped)
    except BaseException:
        work.close()  # now, not when the traceback lets go of the workspace
        raise
    return work


def _read_into(work: "StreamWorkspace", batches: list, runs: list[int], skipped: list[SkippedFile]
               ) -> tuple[SkippedFile, ...]:
    """The read pass: each batch's facts into ``work``; every file skipped, sorted."""
    for batch, found in enumerate(work.crossed("read", read_batch, batches)):
        held = 0
        for item in found:
            if isinstance(item, SkippedFile):
                skipped.append(item)
                continue
            doc_id, characters, language, lengths, candidates = item
            work.ids.append(doc_id)
            work.facts.add(characters, language, lengths)
            work.candidates.append(candidates)
            held += 1
        work.batches.add(held)
        if work.progress is not None:
            work.progress("files read", runs[batch + 1], runs[-1])
    return tuple(sorted(skipped, key=lambda s: (s.path, s.reason)))
