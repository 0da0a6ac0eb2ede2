"""Golden sets: recall of located evidence at a context budget, and the field's span metrics.

The set is read and its quotes located by ``golden_files``. recall@B ranks the chunks for each
question with a retriever (BM25 by default: the probe's term table, k1 = 1.2, b = 0.75, ties
by corpus order), takes chunks in rank order while their cumulative embedded size (prefix +
span, o200k tokens by default) stays within B, and scores a quote retrieved when one of them
holds it whole. A question with several quotes is scored two ways: *every* quote retrieved
(the default, and the gate's) and *any* quote retrieved. A miss is a *cut* when a quote still
missing is held whole by no chunk but touched by one (the split broke it), a *rank-miss* when
the chunks holding it never came within budget, and *uncovered* when no chunk touches it (an
import with gaps). Beside recall@B, ``span_scores`` gives Chroma's recall, precision and IoU
for the top 5 and for each budget, and precision-Ω.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

from ..lengths import Length, get_length
from .expansion import Windows
from .golden_files import GoldenItem, GoldenSet
from .ranking import BM25Retriever, Pool, Question, Retriever
from .span_scores import SpanScores, best_copies, merged, precision_omega, question_scores, spread

DEFAULT_BUDGETS: tuple[int, ...] = (2000, 4000)
OUTCOMES: tuple[str, ...] = ("hit", "cut", "rank-miss", "uncovered")
#: How a question with several quotes counts as answered.
MODES: tuple[str, ...] = ("every", "any")
#: The ranking cut of the span metrics besides the budgets (table b's k).
TOP_K = 5


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """How one question fared."""

    item: GoldenItem
    """The question."""

    outcomes: tuple[str, ...]
    """Per budget, with every quote needed: one of ``OUTCOMES``."""

    rank: int | None
    """1-based rank of the chunk that completes the evidence (None: some quote is in no chunk whole)."""

    tokens_needed: int | None
    """Context tokens needed to reach that chunk (cumulative, itself included)."""

    outcomes_any: tuple[str, ...] = ()
    """Per budget, with any one quote enough (the same as ``outcomes`` for a single quote)."""

    tokens_needed_any: int | None = None
    """Context tokens needed to reach the first chunk holding some quote."""

    def outcome(self, column: int, mode: str = "every") -> str:
        return (self.outcomes if mode == "every" else self.outcomes_any)[column]


@dataclass(frozen=True, slots=True)
class GoldenResult:
    """recall@B of one chunking, per question, per budget and per folder."""

    label: str
    """What was measured (a spec, or an import's label)."""

    budgets: tuple[int, ...]
    """Context budgets, in ``unit``."""

    unit: str
    """The unit of the budgets (``o200k`` unless chosen otherwise)."""

    questions: tuple[QuestionResult, ...]
    """Every located question."""

    retriever: str = "bm25"
    """The retriever that ranked the chunks."""

    span_scores: tuple[SpanScores, ...] = ()
    """Span recall, precision and IoU for the top ``TOP_K`` and for each budget."""

    precision_omega: float = 0.0
    """Mean precision-Ω: the best precision any retriever could reach on this split."""

    precision_omega_chroma: float = 0.0
    """Mean precision-Ω by Chroma's rule (a chunk that only touches the evidence reaches it)."""

    omega_spread: tuple[float, ...] = ()
    """The standard deviation over questions of precision-Ω, then of Chroma's."""

    expand: int = 0
    """Neighbours read on each side of every ranked chunk (``expansion.Windows``)."""

    languages: tuple[str, ...] = ()
    """The language of each question's evidence document (``golden_recall`` tells it)."""

    def counts(self, budget: int, mode: str = "every") -> dict[str, int]:
        """Questions per outcome at ``budget``."""
        k = self.budgets.index(budget)
        out = dict.fromkeys(OUTCOMES, 0)
        for q in self.questions:
            out[q.outcome(k, mode)] += 1
        return out

    def recall(self, budget: int, mode: str = "every") -> float:
        """Fraction of questions answered within ``budget``."""
        return self.counts(budget, mode)["hit"] / len(self.questions) if self.questions else 0.0

    def hits(self, budget: int, mode: str = "every") -> list[int]:
        """1 for each question answered within ``budget``, 0 otherwise, in the set's order."""
        k = self.budgets.index(budget)
        return [int(q.outcome(k, mode) == "hit") for q in self.questions]

    def interval(self, budget: int, mode: str = "every"):
        """``recall`` with its 95% interval (``confidence.Interval``; questions are independent)."""
        from ..confidence import rate

        return rate(sum(self.hits(budget, mode)), len(self.questions))

    @property
    def quotes(self) -> int:
        """Quotes over every question."""
        return sum(len(q.item.quotes) for q in self.questions)

    def by_group(self, groups: Sequence[str], mode: str = "every") -> dict[str, dict[int, tuple[int, int]]]:
        """``group -> budget -> (hits, questions)``, groups sorted; ``groups[i]`` is question
        ``i``'s group (an empty one: left out)."""
        members: dict[str, list[QuestionResult]] = defaultdict(list)
        for q, group in zip(self.questions, groups):
            if group:
                members[group].append(q)
        return {group: {b: (sum(q.outcome(k, mode) == "hit" for q in qs), len(qs)) for k, b in enumerate(self.budgets)}
                for group, qs in sorted(members.items())}

    def by_folder(self, mode: str = "every") -> dict[str, dict[int, tuple[int, int]]]:
        """``folder -> budget -> (hits, questions)``, folders sorted."""
        return self.by_group([q.item.folder for q in self.questions], mode)

    def by_kind(self, mode: str = "every") -> dict[str, dict[int, tuple[int, int]]]:
        """``kind -> budget -> (hits, questions)`` over the labelled (boundary) questions,
        kinds sorted; empty when no question has a kind."""
        return self.by_group([q.item.kind for q in self.questions], mode)

    @property
    def several_languages(self) -> bool:
        """Whether the questions' evidence is in more than one language (a breakdown says something)."""
        return len(set(self.languages)) > 1

    def by_language(self, mode: str = "every") -> dict[str, dict[int, tuple[int, int]]]:
        """``language -> budget -> (hits, questions)``, a question counted in the language of
        its evidence's document; empty when the result was not told the languages."""
        return self.by_group(self.languages, mode)

    def as_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "label": self.label, "retriever": self.retriever, "unit": self.unit,
            **({"expand": self.expand} if self.expand else {}), "questions": len(self.questions),
            "quotes": self.quotes,
            "recall": {str(b): self.recall(b) for b in self.budgets},
            "recall_any": {str(b): self.recall(b, "any") for b in self.budgets},
            "intervals": {"recall": {str(b): self.interval(b).as_dict() for b in self.budgets},
                          "recall_any": {str(b): self.interval(b, "any").as_dict() for b in self.budgets},
                          **({"by_kind": _group_intervals(self.by_kind())}
                             if any(q.item.kind for q in self.questions) else {}),
                          **({"by_language": _group_intervals(self.by_language())} if self.several_languages else {})},
            "outcomes": {str(b): self.counts(b) for b in self.budgets},
            "by_folder": {f: {str(b): list(v) for b, v in row.items()} for f, row in self.by_folder().items()},
            **({"by_kind": {kind: {str(b): list(v) for b, v in row.items()} for kind, row in self.by_kind().items()}}
               if any(q.item.kind for q in self.questions) else {}),
            **({"by_language": {language: {str(b): list(v) for b, v in row.items()}
                                for language, row in self.by_language().items()}}
               if self.several_languages else {}),
            "span_scores": {s.cut: s.as_dict() for s in self.span_scores},
            "precision_omega": self.precision_omega,
            "precision_omega_chroma": self.precision_omega_chroma,
            **({"precision_omega_std": dict(zip(("precision_omega", "precision_omega_chroma"), self.omega_spread))}
               if self.omega_spread else {}),
            "misses": [{"line": q.item.line, "question": q.item.question,
                        "outcomes": dict(zip(map(str, self.budgets), q.outcomes)), "rank": q.rank,
                        "tokens_needed": q.tokens_needed}
                       for q in self.questions if any(o != "hit" for o in q.outcomes)],
        }


def _group_intervals(groups: dict[str, dict[int, tuple[int, int]]]) -> dict:
    """Wilson's interval of each group's ``(hits, questions)`` per budget (questions are
    independent items)."""
    from ..confidence import rate

    return {group: {str(b): rate(*counts).as_dict() for b, counts in row.items()} for group, row in groups.items()}


def rank_chunks(questions: list[str], chunks, table, retriever: Retriever | None = None) -> list[list[int]]:
    """Per question, the chunks ``retriever`` ranks (BM25: every chunk sharing a term with it),
    best first; the query terms are the question's distinct terms."""
    pool = chunks if isinstance(chunks, Pool) else Pool.of_chunks(chunks, table)
    return (retriever or BM25Retriever()).rank([Question.of(q, pool.table) for q in questions], pool, None)


def evaluate_golden(golden: GoldenSet, chunks, table, *, budgets: tuple[int, ...] = DEFAULT_BUDGETS,
                    length: Length | str = "o200k", label: str = "",
                    retriever: Retriever | None = None, expand: int = 0) -> GoldenResult:
    """recall@B for each budget over ``chunks`` (``Chunk`` objects in corpus order, or a
    ``Pool``) with ``table``'s texts, ranked by ``retriever`` (default BM25). With ``expand``,
    each ranked chunk brings that many neighbours either side: a quote is held by a chunk's
    window, and a chunk already read costs nothing again."""
    length = get_length(length)
    pool = chunks if isinstance(chunks, Pool) else Pool.of_chunks(chunks, table)
    retriever = retriever or BM25Retriever()
    sizes = length.count_many(pool.texts())
    spans = _Spans(pool, Windows.of_pool(pool, expand) if expand else None)
    rankings = retriever.rank([Question.of(item.question, pool.table) for item in golden.items], pool, None)
    scoring = Scoring(tuple(budgets), getattr(length, "name", str(length)))
    for item, ranking in zip(golden.items, rankings):
        scoring.add(item, ranking, spans, sizes, [spans.quote(q) for q in item.quotes])
    return scoring.result(label, str(retriever.spec), expand)


class Scoring:
    """recall@B and the span scores, question by question, from each question's ranking.

    ``spans`` (what a ranked chunk reads, where the quotes are) answers ``costs``, ``read``,
    ``places``, ``evidence`` and ``near`` as ``_Spans`` does; each quote comes as ``(holders,
    touching, held)``: the chunks holding it whole that the ranking may reach (all of them, or
    those a partial ranking holds), whether some chunk only touches it, and whether any chunk
    holds it. A ranking may stop
    once past the largest budget and the first ``TOP_K``: scores and outcomes are the same, and
    a question completed beyond that has no ``rank`` or ``tokens_needed``."""

    def __init__(self, budgets: tuple[int, ...], unit: str) -> None:
        self.budgets = budgets
        self.results: list[QuestionResult] = []
        self.cuts = _Cuts(budgets, unit)
        self.omegas: tuple[list[float], list[float]] = ([], [])

    def add(self, item: GoldenItem, ranking: Sequence[int], spans, sizes, quotes) -> None:
        holders, touched, held = zip(*quotes) if quotes else ((), (), ())
        reached = [None] * len(quotes)  # per quote: (rank, tokens) of its first holder
        used, remaining = 0, len(quotes)
        cost = spans.costs(sizes)
        for position, j in enumerate(ranking):
            used += cost(j)
            for number, found in enumerate(holders):
                if reached[number] is None and j in found:
                    reached[number] = (position + 1, used)
                    remaining -= 1
            if not remaining:
                break
        every = None if None in reached else max(reached, key=lambda r: r[0])
        found = [r for r in reached if r is not None]
        first = min(found, key=lambda r: r[0]) if found else None
        budgets = self.budgets
        self.results.append(QuestionResult(
            item, _outcomes(budgets, every, all(held), any(t and not h for h, t in zip(held, touched))),
            every[0] if every else None, every[1] if every else None,
            _outcomes(budgets, first, any(held), any(touched)), first[1] if first else None))
        self.cuts.add(spans, item, ranking, sizes)
        evidence, near = spans.evidence(item), spans.near(item)
        self.omegas[0].append(precision_omega(evidence, near))
        self.omegas[1].append(precision_omega(evidence, near, touching=True))

    def result(self, label: str, retriever: str, expand: int = 0) -> GoldenResult:
        count = len(self.results)
        strict, chroma = (sum(values) / count if count else 0.0 for values in self.omegas)
        return GoldenResult(label, self.budgets, self.cuts.unit, tuple(self.results), retriever,
                            self.cuts.scores(count), strict, chroma, tuple(spread(v) for v in self.omegas)
                            if count else (), expand)


def _outcomes(budgets, reached, holders_enough: bool, touched: bool) -> tuple[str, ...]:
    out = []
    for budget in budgets:
        if reached is not None and reached[1] <= budget:
            out.append("hit")
        elif holders_enough:
            out.append("rank-miss")
        else:
            out.append("cut" if touched else "uncovered")
    return tuple(out)


class _Spans:
    """A pool's chunks by document, in corpus positions (document base + offset); with
    ``windows``, what a ranked chunk brings is its window."""

    def __init__(self, pool: Pool, windows: Windows | None = None) -> None:
        self.windows = windows
        self.base = pool.table.base
        doc_ids = pool.doc_ids
        self.doc_of = pool.doc_of.tolist()
        self.starts, self.ends = pool.starts.tolist(), pool.ends.tolist()
        self.by_doc: dict[str, list[int]] = defaultdict(list)
        for j, d in enumerate(self.doc_of):
            self.by_doc[doc_ids[d]].append(j)
        self.doc_ids = doc_ids

    def span(self, j: int) -> tuple[int, int]:
        base = self.base[self.doc_ids[self.doc_of[j]]]
        return base + self.starts[j], base + self.ends[j]

    def read(self, chosen: list[int]) -> list[tuple[int, int]]:
        """The spans read for the chosen chunks: theirs, or with windows every chunk the
        windows take, each once."""
        return [self.span(j) for j in (self.windows.read(chosen) if self.windows else chosen)]

    def costs(self, sizes: list[int]):
        """A function from a ranked chunk to what reading it adds (for one question: with
        windows, a chunk read once is not paid again)."""
        return self.windows.costs(sizes) if self.windows else sizes.__getitem__

    def quote(self, quote) -> tuple[set[int], bool, bool]:
        """The chunks holding a quote whole (at any of its places; with windows, whose window
        holds it), whether one only touches it, and whether any holds it."""
        holders, touching = set(), False
        held = self.windows.holds if self.windows else (lambda j, a, b: self.starts[j] <= a and b <= self.ends[j])
        for doc_id, a, b in quote.locations:
            for j in self.by_doc.get(doc_id, ()):
                if held(j, a, b):
                    holders.add(j)
                elif self.starts[j] < b and a < self.ends[j]:
                    touching = True
        return holders, touching, bool(holders)

    def places(self, item: GoldenItem) -> list[list[tuple[int, int]]]:
        return [[(self.base[d] + a, self.base[d] + b) for d, a, b in q.locations] for q in item.quotes]

    def evidence(self, item: GoldenItem) -> list[tuple[int, int]]:
        """Each quote at its first place (pinned by offsets, or the first copy), merged."""
        return merged(places[0] for places in self.places(item))

    def near(self, item: GoldenItem) -> list[tuple[int, int]]:
        """The chunks of the documents holding the first places."""
        docs = dict.fromkeys(q.locations[0][0] for q in item.quotes)
        return [self.span(j) for d in docs for j in self.by_doc.get(d, ())]


class _Cuts:
    """Sums span scores for the top ``TOP_K`` and for each budget."""

    def __init__(self, budgets: tuple[int, ...], unit: str) -> None:
        self.budgets, self.unit = budgets, unit
        self.values: list[list[list[float]]] = [[[], [], []] for _ in range(1 + len(budgets))]

    def add(self, spans: _Spans, item: GoldenItem, ranking: list[int], sizes: list[int]) -> None:
        picks = [ranking[:TOP_K]]
        for budget in self.budgets:
            used, kept = 0, []
            cost = spans.costs(sizes)
            for j in ranking:
                used += cost(j)
                if used > budget:
                    break
                kept.append(j)
            picks.append(kept)
        places = spans.places(item)
        for found, chosen in zip(self.values, picks):
            retrieved = spans.read(chosen)
            for k, value in enumerate(question_scores(best_copies(places, retrieved), retrieved)):
                found[k].append(value)

    def scores(self, count: int) -> tuple[SpanScores, ...]:
        from ..confidence import mean

        names = [f"top {TOP_K}"] + [f"{b} {self.unit}" for b in self.budgets]
        out = []
        for name, found in zip(names, self.values):
            means = [mean(values) for values in found]
            out.append(SpanScores(name, *(sum(values) / count if count else 0.0 for values in found),
                                  tuple((m.low, m.high) for m in means) if count else (),
                                  tuple(spread(values) for values in found) if count else ()))
        return tuple(out)


def golden_recall(workspace, golden: GoldenSet, spec, *, budgets: tuple[int, ...] = DEFAULT_BUDGETS,
                  length: Length | str = "o200k", label: str | None = None, retriever=None,
                  expand: int = 0) -> GoldenResult:
    """``evaluate_golden`` for the chunks ``spec`` names in ``workspace`` (a built-in or
    library splitter, or imported chunks as ``imported:ID``), ranked by ``retriever`` (a
    retriever or its spec; default BM25); ``label`` names them (default the spec). Each engine
    scores it its own way (``Engine.scored_golden``): the reference with ``evaluate_golden``."""
    return workspace.scored_golden(golden, spec, budgets=tuple(budgets), length=length, label=label or str(spec),
                                   retriever=retriever, expand=expand)
