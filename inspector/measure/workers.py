"""Analysing a corpus's documents in forked worker processes, started as early as possible.

The ``report`` command forks its analysis workers right after reading the corpus, before
the rest of the engine (numpy included) is imported, so the workers parse while this process
imports and builds the probe's term table; ``Workspace.analyses(jobs)`` uses the same workers
later. This module therefore imports nothing heavy. Workers send each analysis back as plain
tuples (``Analysis.to_plain``), which pickle several times faster than the dataclasses, with
the document's query candidates, picked where the figure sentences are at hand.
"""

from __future__ import annotations

from collections.abc import Callable

from ..atoms.analysis import Analysis
from ..atoms.detect import analyze
from ..corpus.convert import kind_of
from ..corpus.read import read_file
from ..errors import UnreadableFile
from ..forking import can_fork, forked, forked_pool
from ..limits import MAX_CONVERTED_BYTES
from ..model import Document, Span, every_script
from ..retrieval.probe import query_candidates

# What this process does besides analysing, as a share of the work of analysing the whole
# corpus (measured on the bundled corpus on two cores): building the term table, and also
# importing the engine when the workers start before it is imported. The share is smaller
# for markdown, whose parser is several times slower than the article's regexes. In a
# report, markdown's share also holds building the o200k encoding (0.3 to 0.5 s here): at
# 0.15 this process finished its documents 0.7 s after the worker on the bench's distinct
# corpus (3.5 MB), at 0.45 within 0.05 s of it.
# Plain text goes through the same parser with fewer rules: markdown's shares, not measured apart.
TABLE_SHARE = {"seed": 0.2, "markdown": 0.05, "plain": 0.05}
IMPORTS_AND_TABLE_SHARE = {"seed": 0.75, "markdown": 0.45, "plain": 0.45}
# While other files are converted, this process converts them (MarkItDown's import alone costs
# about what parsing a megabyte of markdown does): the workers take every text file. When the
# conversions can be kept on disk, a process forked as soon as the files are listed converts
# them instead, and this process builds the o200k encoding meanwhile and parses its share of
# the text files after.
CONVERTING_SHARE = 1.0
#: Conversions the forked process asks for at once (each runs in a process of its own).
CONVERTING_AT_ONCE = 2

_FORKED: tuple[str, list[list[Document]]] | None = None  # what the workers inherit
#: About how many characters of documents one worker task analyses and sends back.
SLICE_CHARS = 1_000_000


def shares(sizes: list[int], jobs: int, head: float) -> list[int]:
    """Where to cut documents of these sizes among this process (first; ``head`` is its other
    work as a share of analysing them all) and ``jobs - 1`` workers, for about equal work
    each: positions from 0 to the number of documents. Every worker gets a document."""
    n = len(sizes)
    workers = min(jobs - 1, n)
    total = sum(sizes) or 1
    other = total * head
    each = (total + other) / jobs
    targets = [max(0.0, each - other) + k * each for k in range(workers)]
    cuts, done, position = [], 0, 0
    for target in targets:
        while position < n and done + sizes[position] / 2 <= target:
            done += sizes[position]
            position += 1
        cuts.append(position)
    for k in range(workers - 1, -1, -1):
        cuts[k] = min(cuts[k], n - (workers - k))
    for k in range(1, workers):
        cuts[k] = max(cuts[k], cuts[k - 1] + 1)
    return [0, *cuts, n]


class Workers:
    """Forked processes analysing the later documents of a corpus; this process is left the
    first ``own`` ones. Collect the results once, or close to stop the workers."""

    def __init__(self, documents: list[Document], mode: str, jobs: int, head: float) -> None:
        global _FORKED
        load_detector(mode)  # once, before forking, rather than in every process
        # An analysis depends on the text alone: a text that several files hold (a page kept in
        # every version of the docs) is analysed once, for the first of them.
        first: dict[str, Document] = {}
        self.twins: list[tuple[Document, Document]] = []
        """Each document whose text an earlier one has, with that earlier document."""
        self.documents = []
        for document in documents:
            earlier = first.setdefault(document.text, document)
            if earlier is document:
                self.documents.append(document)
            else:
                self.twins.append((document, earlier))
        self.mode = mode
        bounds = shares([len(d.text) for d in self.documents], jobs, head)
        self.own: list[Document] = self.documents[:bounds[1]]
        """The documents left to this process."""
        # The workers' documents go out in slices of about SLICE_CHARS characters and come back
        # the same way, so no one message holds a whole share of the corpus's analyses.
        self._batches = _slices(self.documents[bounds[1]:])
        _FORKED = (mode, self._batches)
        self._pool = None
        try:
            self._pool = forked_pool(len(bounds) - 2)
            self._pending = [self._pool.apply_async(_analyze_batch, (k,)) for k in range(len(self._batches))]
        finally:
            _FORKED = None

    @classmethod
    def start(cls, documents: list[Document], mode: str, jobs: int, head: float) -> "Workers | None":
        """Workers for ``documents``, or None when there is nothing to share or no fork."""
        if jobs < 2 or len(documents) < 2 or not can_fork():
            return None
        return cls(documents, mode, jobs, head)

    def collect(self) -> list[tuple[Document, Analysis, list[Span]]]:
        """Every worker's documents with their analyses and query candidates, in order."""
        try:
            out = []
            for batch, pending in zip(self._batches, self._pending):
                for document, (plain, candidates) in zip(batch, pending.get()):
                    out.append((document, Analysis.from_plain(plain), candidates))
            return out
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers (after ``collect``, they have finished); closing twice is fine."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


class EarlyAnalysis:
    """What ``report`` starts while its corpus is read (``corpus.load.Ahead``): with the
    conversions kept on disk, a forked process converting the files not kept yet, from the
    moment they are listed; then ``Workers`` on the text files as soon as they are read, so
    they parse while this process builds the o200k encoding (or converts the other files) and
    imports the engine. The analyses ``store`` (an ``AnalysisStore``) keeps are not made again."""

    def __init__(self, store, mode: str, jobs: int, reading=None) -> None:
        self.store, self.mode, self.jobs = store, mode, jobs
        self.reading = reading
        """How the files are read (``corpus.Reading``): with its ``conversions`` kept on disk, a
        forked process converts the files ahead."""
        self.workers: Workers | None = None
        self._converting = False  # files are to be converted, here or ahead
        self._converter = None  # the process converting them ahead
        self.kept: dict[str, Analysis] = {}
        """The kept analyses, by document id."""
        self.analysed: dict[str, Analysis] = {}
        """The analyses this process made of its own documents while the files converted, by id."""

    def files_listed(self, converting: list[tuple[str, str]]) -> None:
        self._converting = bool(converting)
        kept = self.reading.conversions if self.reading is not None else None
        left = self._unconverted(converting) if converting and kept else converting  # all kept: read here quickly
        if left:
            from ..corpus.convert import start_converting

            start_converting(self.reading.converter if self.reading is not None else "markitdown")
        if left and kept and self.jobs > 1 and can_fork():
            self._converter = forked(_convert_ahead, self.reading, left)

    def texts_read(self, documents: list[Document]) -> Callable[[], None] | None:
        kept = self.store.load([d.text for d in documents], self.mode)
        self.kept = {d.id: found for d, found in zip(documents, kept) if found is not None}
        missing = [d for d, found in zip(documents, kept) if found is None]
        ahead = self._converter is not None
        head = IMPORTS_AND_TABLE_SHARE.get(self.mode, 1.0) if ahead or not self._converting else CONVERTING_SHARE
        self.workers = Workers.start(missing, self.mode, self.jobs, head)
        return self._converted if ahead else None

    def _unconverted(self, converting: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The files whose conversions are not kept yet (one that cannot be read is among them)."""
        cache = self.reading.conversions
        left = []
        for doc_id, path in converting:
            try:
                if cache.holds(read_file(path, MAX_CONVERTED_BYTES), kind_of(doc_id)):
                    continue
            except UnreadableFile:
                pass
            left.append((doc_id, path))
        return left

    def _converted(self) -> None:
        """While the files convert: build the o200k encoding the report counts with and analyse
        this process's own documents, then wait (what was not converted is converted here)."""
        if self.mode != "seed":
            from ..lengths import get_length

            get_length("o200k")
        if self.workers is not None:
            self.analysed = {d.id: analyze(d.text, self.mode) for d in self.workers.own}
        self._converter.join()
        self._converter = None

    def close(self) -> None:
        if self.workers is not None:
            self.workers.close()
        if self._converter is not None:
            self._converter.terminate()
            self._converter.join()
            self._converter = None


def _slices(documents: list[Document]) -> list[list[Document]]:
    """``documents`` in order, cut into runs of about ``SLICE_CHARS`` characters."""
    out: list[list[Document]] = []
    size = SLICE_CHARS
    for document in documents:
        if size >= SLICE_CHARS:
            out.append([])
            size = 0
        out[-1].append(document)
        size += len(document.text)
    return out


def _analyze_batch(batch: int) -> list[tuple]:
    """In a worker: each document of an inherited batch, analysed, with its query candidates."""
    assert _FORKED is not None
    mode, batches = _FORKED
    out = []
    for document in batches[batch]:
        analysis = analyze(document.text, mode)
        out.append((analysis.to_plain(), query_candidates(document, analysis.atoms["num"], every_script(mode))))
    return out


def _convert_ahead(reading, files: list[tuple[str, str]]) -> None:
    """In a forked process: each file read through the reading's conversions, which keep it on
    disk for the process that reads the corpus. Conversions run in the box's processes, so two
    at a time here keep both cores busy."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(CONVERTING_AT_ONCE) as pool:
        list(pool.map(lambda file: reading.read(*file), files))


def load_detector(mode: str) -> None:
    """Import the atom detector ``analyze`` loads on first use."""
    if mode == "seed":
        from ..atoms import seed  # noqa: F401
    else:  # markdown and plain
        from ..atoms import markdown  # noqa: F401
