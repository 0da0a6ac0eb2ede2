"""Golden sets over a streamed corpus (``StreamWorkspace``): every quote located and
recall@B scored batch by batch, as a workspace holding the corpus scores them (``retrieval.golden``).

Located first (``stream.quotes``).

Scoring (BM25 or a dense retriever, each chunk read alone): a measuring pass counts the
questions' words (and parks the chunks' vectors) and the statistics are summed; then each batch
ranks its chunks with the pool's statistics (or by their vectors) and sends back, per question,
its ranking as far as the largest budget (counted in its own chunks' tokens, so the corpus's
ranking within that budget is inside the batches' rankings within it) and at least ``TOP_K``
deep, each chunk with its span and o200k size; whether some chunk of a quote's document holds it
whole or only touches it; and the chunks of the documents holding the first places
(precision-Omega). Merged in the ranking's order, the rankings are the corpus's ranking up to
the largest budget, which is as far as ``golden.Scoring`` reads. A hybrid ranking is fused over
every batch first (``stream.fusion``), ``FIRST_DEPTH`` deep (deeper while a question's chunks
fall short of the largest budget), and each batch is given its share of it.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, replace
from itertools import accumulate

import numpy as np

from ...lengths import get_length
from ...model import every_script
from ...retrieval.bm25 import Statistics
from ...retrieval.expansion import Windows, paid_once
from ...retrieval.golden import TOP_K, GoldenResult, Scoring
from ...retrieval.golden_files import GoldenSet
from ...retrieval.ranking import Question
from ...retrieval.span_scores import merged
from ...retrieval.terms import TermTable
from .batches import Asked, Queries, measure_batch
from .fusion import Given, fused_over_batches

#: How deep a batch first ranks each golden question: past the largest budget for chunks of a
#: few tokens; a question whose chunks fall short is ranked deeper.
FIRST_DEPTH = 256

#: Documents are placed apart in one coordinate space (no document has 2**40 characters), as a
#: held corpus's term table places them; spans of different documents never meet.
_SPACING = 1 << 40


@dataclass(frozen=True, slots=True)
class BatchGolden:
    """What one batch sends back for a golden set's questions, each ranked chunk read with
    ``width`` neighbours either side."""

    rankings: list[tuple[np.ndarray, ...]]
    """Per question: scores, first words, chunks, o200k sizes, documents, starts, ends, and each
    chunk's window (its first and last chunk); chunks and documents as positions in the batch,
    best first, as deep as the batch's ranking needs."""

    quotes: dict[tuple[int, int], tuple[bool, bool]]
    """``(question, quote) -> (held whole by a chunk or its window, touched by one that does not
    hold it)``."""

    near: dict[int, tuple[list[tuple[int, int]], str]]
    """The chunks' spans of documents holding a first place, with the document's language."""

    read: dict[int, tuple[int, int, int, int]]
    """The ranked chunks' neighbours (with windows): chunk -> (document, start, end, o200k size)."""


def golden_batch(job) -> dict[tuple[str, int], BatchGolden]:
    """Rank one batch's chunks of each spec for every question, by BM25 with the pool's
    statistics or by their vectors (in a worker), for each neighbour width."""
    held, batch, mode, specs, queries, limit, places, near, widths, given = job
    part = held.partition(batch, mode)
    out = {}
    for spec, (name, pool) in specs.items():
        if spec in given:
            ranking = Given(given[spec])
        elif queries.hybrid:  # none of this batch's chunks is among any question's first
            ranking = Given([((), ())] * len(queries.words))
        else:
            ranking = queries.ranking(held, batch, name, pool)
        out.update(((spec, width), found) for width, found in
                   _ranked_here(part, spec, ranking, len(queries.words), limit, places, near, widths))
    # The command runs with the collector paused, and a worker lives for many batches: the batch
    # let go first, so the collection walks what outlives it (``batches.measure_batch``).
    del part
    gc.collect()
    return out


def _ranked_here(part, spec: str, ranking, questions: int, limit: int, places, near,
                 widths) -> list[tuple[int, BatchGolden]]:
    chunks = part.work.pool(spec)
    n = len(chunks)
    sizes = np.asarray(part.work.o200k_counter()(chunks.texts()) if n else [], dtype=np.int64)
    doc_of, starts, ends = chunks.doc_of, chunks.starts, chunks.ends
    found_all = _deep_enough(ranking, sizes, limit) if n else []
    spans = {doc: (list(zip(starts[doc_of == doc].tolist(), ends[doc_of == doc].tolist())),
                   part.analyses[part.documents[doc].id].language) for doc in near}
    out = []
    for width in widths:
        windows = Windows(doc_of, starts, ends, width)
        low, high = np.asarray(windows.low, dtype=np.int64), np.asarray(windows.high, dtype=np.int64)
        read_start, read_end = np.asarray(windows.read_start), np.asarray(windows.read_end)
        rankings, read = [], {}
        for found in found_all:
            order = found.chunks
            before = _paid_before(windows, order, sizes, limit)
            deep = max(TOP_K, int(np.searchsorted(before, limit, side="right")))
            at = order[:deep]
            rankings.append((found.scores[:deep], found.seen[:deep], at, sizes[at], doc_of[at], starts[at], ends[at],
                             low[at], high[at]))
            if width:
                for j in at.tolist():
                    for p in windows.window(j):
                        read[p] = (int(doc_of[p]), int(starts[p]), int(ends[p]), int(sizes[p]))
        quotes: dict[tuple[int, int], tuple[bool, bool]] = {}
        for question, quote, doc, a, b in places:
            mine = np.flatnonzero(doc_of == doc)
            holds = (read_start[mine] <= a) & (b <= read_end[mine])
            touches = ~holds & (starts[mine] < b) & (a < ends[mine])
            held, touched = quotes.get((question, quote), (False, False))
            quotes[question, quote] = (held or bool(holds.any()), touched or bool(touches.any()))
        out.append((width, BatchGolden(rankings if n else [()] * questions, quotes, spans, read)))
    part.release(spec)
    return out


def _deep_enough(ranking, sizes: np.ndarray, limit: int) -> list:
    """Each question's ranking of the batch's chunks as far as its chunks read alone pass
    ``limit`` tokens (or all it ranks): ``FIRST_DEPTH`` deep, deeper while one falls short. Read
    with neighbours a ranking passes the limit no later: the windows of its first hits hold those
    hits."""
    depth = FIRST_DEPTH
    while True:
        found = ranking.ranked(depth)
        if all(len(f.chunks) < depth or int(sizes[f.chunks[:-1]].sum()) > limit for f in found):
            return found
        depth *= 8


def _paid_before(windows: Windows, order: np.ndarray, sizes: np.ndarray, limit: int) -> np.ndarray:
    """What reading the ranked chunks before each one costs (each window's chunks paid once), as
    far as the first past ``limit``."""
    tokens = sizes[order]
    if not windows.width:
        return np.cumsum(tokens) - tokens
    cost, before, used = windows.costs(sizes), [], 0
    for j in order.tolist():
        before.append(used)
        if used > limit:
            break
        used += int(cost(j))
    return np.asarray(before, dtype=np.int64)


def golden_over_batches(work, golden: GoldenSet, specs: list[str], budgets: tuple[int, ...],
                        retriever, widths: tuple[int, ...] = (0,)) -> dict[tuple[str, int], GoldenResult]:
    """``golden.golden_recall`` of built-in ``specs`` ranked by ``retriever`` (BM25 or dense), in
    o200k tokens, each ranked chunk read with each of ``widths`` neighbours either side, over
    the batches: one measuring pass and one ranking pass for all of them."""
    budgets, name = tuple(budgets), str(retriever.spec)
    if not golden.items:
        return {(spec, width): Scoring(budgets, "o200k").result(spec, name, width)
                for spec in specs for width in widths}
    table = TermTable((), scripts=every_script(work.mode))  # terms found by the mode's rules alone
    words = [Question.of(item.question, table).words for item in golden.items]
    asked = Asked(probes=tuple(specs), wanted=frozenset(w for found in words for w in found), tag=len(work.passes),
                  embedding=work.embedding(retriever))
    queries = Queries.of([item.question for item in golden.items], words, retriever)
    jobs = [(work.batches, batch, work.mode, asked) for batch in range(len(work.batches))]
    statistics = {spec: [] for spec in specs}
    for measures in work.crossed("measure", measure_batch, jobs):
        for spec in specs:
            statistics[spec].append(measures.statistics[spec])
    where = _positions(work, golden)
    places: dict[int, list] = {}
    near: dict[int, set[int]] = {}
    for question, item in enumerate(golden.items):
        for number, quote in enumerate(item.quotes):
            for doc_id, a, b in quote.locations:
                batch, doc = work.batches.batch_of(where[doc_id])
                places.setdefault(batch, []).append((question, number, doc, a, b))
            batch, doc = work.batches.batch_of(where[quote.locations[0][0]])
            near.setdefault(batch, set()).add(doc)
    get_length("o200k")  # built once here, before the workers fork
    pools = {spec: (asked.counts(spec), Statistics.total(parts)) for spec, parts in statistics.items()}
    offsets = {spec: [0, *accumulate(p.chunks for p in parts)] for spec, parts in statistics.items()}
    depth = FIRST_DEPTH
    try:
        while True:
            given = _fused(work, asked, statistics, queries, depth, offsets) if queries.hybrid else {}
            jobs = [(work.batches, batch, work.mode, pools, queries, max(budgets), places.get(batch, []),
                     sorted(near.get(batch, ())), widths, given.get(batch, {})) for batch in range(len(work.batches))]
            found = list(work.crossed("golden", golden_batch, jobs))
            known = {(spec, width): _Known([mine[spec, width] for mine in found], work.batches.bounds, offsets[spec],
                                           where, width) for spec in statistics for width in widths}
            # A fused ranking is given ``depth`` deep: deeper while a question's falls short of the budgets.
            if not given or all(k.passes(q, max(budgets)) or k.ranked(q) < depth
                                for k in known.values() for q in range(len(golden.items))):
                break
            depth *= 8
    finally:
        work.batches.drop("counted")
    return {key: _scored(golden, found, budgets, key[0], name) for key, found in known.items()}


def _fused(work, asked: Asked, statistics, queries: Queries, depth: int, offsets) -> dict[int, dict]:
    """Each question's first ``depth`` chunks by the fused ranking, per batch and spec: each
    chunk's position in the batch and its rank over every batch."""
    given: dict[int, dict] = {}
    for spec, (tops, _) in fused_over_batches(work, asked, statistics, queries, depth).items():
        bounds = offsets[spec]
        for question, top in enumerate(tops):
            chunks = np.asarray(top, dtype=np.int64)
            batches = np.searchsorted(bounds, chunks, side="right") - 1
            for batch in np.unique(batches).tolist():
                mine = np.flatnonzero(batches == batch)
                per_question = given.setdefault(batch, {}).setdefault(spec, [((), ())] * len(tops))
                per_question[question] = (chunks[mine] - bounds[batch], mine)
    return given


def _scored(golden: GoldenSet, known: "_Known", budgets: tuple[int, ...], label: str, retriever: str) -> GoldenResult:
    scoring = Scoring(budgets, "o200k")
    for question, item in enumerate(golden.items):
        ranking, sizes = known.ranking(question, max(budgets))
        quotes = []
        for number, quote in enumerate(item.quotes):
            held, touched = known.quote(question, number)
            quotes.append(({j for j in ranking if known.holds(j, quote.locations)}, touched, held))
        scoring.add(item, ranking, known, sizes, quotes)
    result = scoring.result(label, retriever, known.width)
    return replace(result, languages=tuple(known.language(q.item.locations[0][0]) if q.item.locations else ""
                                           for q in result.questions))


def _positions(work, golden: GoldenSet) -> dict[str, int]:
    """Where each document a quote is in stands in the corpus."""
    wanted = {doc_id for item in golden.items for quote in item.quotes for doc_id, _, _ in quote.locations}
    return {doc_id: k for k, doc_id in enumerate(work.ids) if doc_id in wanted}


class _Known:
    """What the batches sent back, as ``golden.Scoring`` reads a corpus's chunks: chunks as
    positions over every batch, documents placed ``_SPACING`` apart."""

    def __init__(self, found: list[BatchGolden], bounds: list[int], offsets: list[int], where: dict[str, int],
                 width: int = 0):
        self.found, self.bounds, self.offsets, self.where, self.width = found, bounds, offsets, where, width
        self.spans: dict[int, tuple[int, int, int]] = {}  # chunk -> (document, start, end)
        self.windows: dict[int, tuple[int, int]] = {}  # ranked chunk -> its window's first and last chunk
        self.sizes: dict[int, int] = {}  # the ranked chunks and their windows' -> o200k size
        self.documents: dict[int, tuple[list[tuple[int, int]], str]] = {}  # near a first place: chunks, language
        for batch, mine in enumerate(found):
            self.documents.update((bounds[batch] + doc, value) for doc, value in mine.near.items())
            for p, (doc, start, end, size) in mine.read.items():
                self.spans[offsets[batch] + p] = (bounds[batch] + doc, start, end)
                self.sizes[offsets[batch] + p] = size

    def ranking(self, question: int, limit: int) -> tuple[list[int], dict[int, int]]:
        """The corpus's ranking for a question as far as ``limit`` tokens and ``TOP_K`` deep
        (the chunk that passes the limit included), and the sizes of every chunk known so far."""
        parts = [(batch, mine.rankings[question]) for batch, mine in enumerate(self.found) if mine.rankings[question]]
        if not parts:
            return [], {}
        scores, seen, chunks, tokens, docs, starts, ends, low, high = (np.concatenate(column) for column in zip(*(
            (r[0], r[1], r[2] + self.offsets[batch], r[3], r[4] + self.bounds[batch], r[5], r[6],
             r[7] + self.offsets[batch], r[8] + self.offsets[batch])
            for batch, r in parts)))
        order = np.lexsort((chunks, seen, -scores))
        ranked = chunks[order].tolist()
        self.windows.update(zip(ranked, zip(low[order].tolist(), high[order].tolist())))
        self.sizes.update(zip(ranked, tokens[order].tolist()))
        if self.width:
            cost, before, used = self.costs(self.sizes), [], 0
            for j in ranked:
                before.append(used)
                if used > limit:
                    break
                used += cost(j)
            before = np.asarray(before, dtype=np.int64)
        else:
            before = np.cumsum(tokens[order]) - tokens[order]
        order = order[:max(TOP_K, int(np.searchsorted(before, limit, side="right")))]
        ranking = chunks[order].tolist()
        self.spans.update(zip(ranking, zip(docs[order].tolist(), starts[order].tolist(), ends[order].tolist())))
        return ranking, self.sizes

    def ranked(self, question: int) -> int:
        """How many chunks the batches sent for a question."""
        return sum(len(mine.rankings[question][2]) for mine in self.found if mine.rankings[question])

    def passes(self, question: int, limit: int) -> bool:
        """Whether reading the chunks the batches sent for a question costs more than ``limit``."""
        ranking, sizes = self.ranking(question, limit)
        cost = self.costs(sizes)
        return sum(cost(j) for j in ranking) > limit

    def quote(self, question: int, number: int) -> tuple[bool, bool]:
        """Whether some chunk holds the quote whole, and whether one only touches it."""
        held = touched = False
        for mine in self.found:
            h, t = mine.quotes.get((question, number), (False, False))
            held, touched = held or h, touched or t
        return held, touched

    def holds(self, j: int, locations) -> bool:
        doc, start, end = self.spans[j]
        if self.width:
            window = self._window(j)
            start, end = self.spans[window[0]][1], max(self.spans[p][2] for p in window)
        return any(self.where[d] == doc and start <= a and b <= end for d, a, b in locations)

    def _window(self, j: int) -> range:
        low, high = self.windows[j]
        return range(low, high + 1)

    def language(self, doc_id: str) -> str:
        return self.documents[self.where[doc_id]][1] if self.where.get(doc_id) in self.documents else "und"

    # -- what golden.Scoring reads of the chunks ------------------------------------------------

    def costs(self, sizes: dict[int, int]):
        return paid_once(self._window, sizes) if self.width else sizes.__getitem__

    def span(self, j: int) -> tuple[int, int]:
        doc, start, end = self.spans[j]
        return doc * _SPACING + start, doc * _SPACING + end

    def read(self, chosen: list[int]) -> list[tuple[int, int]]:
        if self.width:
            chosen = sorted({p for j in chosen for p in self._window(j)})
        return [self.span(j) for j in chosen]

    def places(self, item) -> list[list[tuple[int, int]]]:
        return [[(self.where[d] * _SPACING + a, self.where[d] * _SPACING + b) for d, a, b in q.locations]
                for q in item.quotes]

    def evidence(self, item) -> list[tuple[int, int]]:
        return merged(places[0] for places in self.places(item))

    def near(self, item) -> list[tuple[int, int]]:
        docs = dict.fromkeys(self.where[q.locations[0][0]] for q in item.quotes)
        return [(doc * _SPACING + a, doc * _SPACING + b) for doc in docs for a, b in self.documents[doc][0]]
