"""``tune``: which chunking should this corpus use? Every configuration of a ``Space`` measured
on the user's questions, ranked with intervals, the ties told apart only by a paired test.

The objective is golden recall at the context budget (the articles' measure: a question counts
when the chunks ranked above and including the one completing its evidence fit the budget);
without a golden set, answer@5 of the probe's queries, candidates whose five chunks exceed the
budget on average left out. Successive halving: with many questions, every candidate is first
scored on a seeded sample of a third of them, and only the best third (and any candidate the
paired test cannot tell from the sample's best) goes on to all of them. The winner is the best
row; where rows tie with it within noise, one that embeds a tenth fewer tokens or less is
recommended instead (the cheapest such), since the scores cannot tell them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from ..confidence import SEED, rate
from ..measure.cost import embedded_digests, splitter_tokens
from ..reports.decide import Decision, decide
from ..retrieval.ranking import Retriever
from ..spec import SplitterSpec, parse_spec
from .result import Candidate, EmbeddingShare, TuneResult
from .space import Space

#: Fewer questions than this are all asked of every candidate: a third of them would say little.
HALVING_FROM = 60
#: The sample rung's questions: a third of them, at least this many.
SAMPLE_LEAST = 20
#: Survivors of the sample rung: the best third, at least this many.
SURVIVORS_LEAST = 3
#: A row tied with the best is recommended instead when it embeds at most this share of its tokens.
CHEAPER = 0.9

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class Goal:
    """What a search asks of every configuration: the golden sets (none: the probe), the
    context budget, the embedder's cap, the most duplication allowed, and the sample's seed."""

    golden: tuple = ()
    context: int = 2000
    cap: tuple[int, str] | None = None
    """``(size, unit)``: the embedder's limit; tokens are counted in its unit (o200k without one)."""

    max_duplication: float | None = None
    seed: int = SEED
    asked: object = None
    """The user's own questions (a ``QuestionSet``, no evidence): what each candidate hands
    the model for them is shown beside the objective."""

    @property
    def objective(self) -> str:
        return f"recall@{self.context}" if self.golden else "answer@5"

    @property
    def unit(self) -> str:
        return self.cap[1] if self.cap else "o200k"

    def questions(self, workspace) -> int:
        """Questions (or probe queries) the full rung asks."""
        return sum(len(g.items) for g in self.golden) if self.golden else len(workspace.queries())

    def sample(self) -> tuple[tuple[int, ...], ...]:
        """Per golden set, the positions of its questions in the sample rung; empty: no halving."""
        count = sum(len(g.items) for g in self.golden)
        if not self.golden or count < HALVING_FROM:
            return ()
        import numpy as np

        rng = np.random.default_rng(self.seed)
        share = max(SAMPLE_LEAST, count // 3) / count
        drawn = (rng.choice(len(g.items), max(1, round(share * len(g.items))), replace=False) for g in self.golden)
        return tuple(tuple(sorted(positions.tolist())) for positions in drawn)


def tune(workspace, space: Space | Sequence[SplitterSpec | str], *, golden: Sequence = (), context: int = 2000,
         cap: tuple[int, str] | None = None, max_duplication: float | None = None, retriever=None,
         progress: Progress | None = None, seed: int = SEED, questions=None, jobs: int = 1) -> TuneResult:
    """Search ``space`` (or a list of specs) on ``workspace``'s corpus: ``golden`` sets give the
    objective recall@``context``; ``cap`` (``(size, unit)``) the embedder's limit and the unit
    tokens are counted in; ``max_duplication`` leaves out candidates repeating more text;
    ``questions`` (a ``QuestionSet``) are asked of every candidate scored on every question.
    ``jobs`` configurations are measured at once where the engine forks workers
    (``Engine.fan_out``); the result is the same."""
    specs = space.candidates() if isinstance(space, Space) else [parse_spec(s) for s in space]
    if not specs:
        raise ValueError("tune needs at least one configuration")
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    goal = Goal(tuple(golden), context, cap, max_duplication, seed, questions)
    workspace.measure_ahead([(s, None) for s in specs], [] if golden else specs, retriever=retriever)

    def rung(rung_specs: Sequence[SplitterSpec], sample: tuple) -> Iterator[tuple[int, Candidate]]:
        def measured(work, item: tuple[int, SplitterSpec]) -> tuple[int, Candidate]:
            found = measure_candidate(work, item[1], goal, retriever, sample)
            work.release(item[1])
            return item[0], found

        return workspace.fan_out(measured, list(enumerate(rung_specs)), jobs)

    return settled(measure_space(specs, goal, rung, progress), goal, workspace)


#: Measures a rung: every spec given on the sample given (``()``: every question), yielding each
#: spec's position among them with its candidate, in any order (a pool yields them as they finish).
Rung = Callable[[Sequence[SplitterSpec], tuple], Iterable[tuple[int, Candidate]]]


def one_by_one(measure: Callable[[SplitterSpec, tuple], Candidate]) -> Rung:
    """A rung measured by calling ``measure`` on each spec in turn, in this process."""
    def rung(specs: Sequence[SplitterSpec], sample: tuple) -> Iterator[tuple[int, Candidate]]:
        for position, spec in enumerate(specs):
            yield position, measure(spec, sample)

    return rung


def measure_space(specs: Sequence[SplitterSpec], goal: Goal, rung: Rung,
                  progress: Progress | None = None) -> list[Candidate]:
    """Every spec measured by ``rung`` (``one_by_one``, or a pool's): with a sample rung, all of
    them on it first, then the survivors on every question (the others marked as scored on the
    sample). The result is in ``specs``' order whatever order the rung finishes in."""
    sample = goal.sample()
    measured: list[Candidate | None] = [None] * len(specs)
    for done, (position, candidate) in enumerate(rung(specs, sample), 1):
        measured[position] = candidate
        if progress:
            progress(candidate.label, done, len(specs) * 2 if sample else len(specs))
    if not sample:
        return list(measured)
    going = survivors(measured, goal)
    again = [position for position, candidate in enumerate(measured) if str(candidate.spec) in going]
    for done, (position, candidate) in enumerate(rung([measured[p].spec for p in again], ()), len(specs) + 1):
        measured[again[position]] = candidate
        if progress:
            progress(candidate.label, done, len(specs) + len(again))
    return [replace(c, sampled=True) if str(c.spec) not in going and c.score is not None and not c.excluded else c
            for c in measured]


def measure_candidate(workspace, spec: SplitterSpec | str, goal: Goal, retriever=None,
                      sample: tuple[tuple[int, ...], ...] = ()) -> Candidate:
    """One configuration measured: its costs, then (unless left out) its objective over every
    question, or over the ``sample`` rung's."""
    spec = parse_spec(spec)
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    summary = workspace.summarize(spec, fits=None)
    sizes = workspace.sizes(spec, goal.unit)
    characters = workspace.characters
    duplication = summary.span_chars / characters if characters else 0.0
    over_cap = sum(1 for size in sizes if goal.cap and size > goal.cap[0])
    own = sum(workspace.per_part("count what the splitter embeds", splitter_tokens, str(spec), goal.unit))
    candidate = Candidate(spec, None, chunks=summary.chunks, embedded=sum(sizes) + own, splitter_embedded=own,
                          duplication=duplication, over_cap=over_cap)
    if goal.max_duplication is not None and duplication > goal.max_duplication + 1e-12:
        return replace(candidate, excluded=f"duplication {duplication:.2f} over {goal.max_duplication:g}")
    if retriever.spec.embeds_chunks:  # this candidate's index is built: what it embeds, by text
        candidate = replace(candidate, embedded_texts=b"".join(
            workspace.per_part("digest what the index embeds", embedded_digests, str(spec))))
    if goal.asked is not None and not sample:
        asked = workspace.ask(spec, goal.asked, retriever=retriever)
        served = asked.served_whole()
        candidate = replace(candidate, whole=rate(served, asked.questions), asked_tokens=asked.context_tokens)
    if goal.golden:
        hits = _golden_hits(workspace, spec, goal, retriever, sample)
        return replace(candidate, hits=hits, score=rate(sum(hits), len(hits)))
    probe = workspace.probe(spec, retriever=retriever)
    candidate = replace(candidate, ctx_tokens=probe.context_tokens)
    if probe.context_tokens > goal.context:
        return replace(candidate, excluded=f"its five chunks hold {probe.context_tokens:,.0f} tokens a query, "
                                           f"over the {goal.context:,} budget")
    hits = tuple(probe.hits())
    return replace(candidate, hits=hits, score=rate(sum(hits), len(hits)))


def _golden_hits(workspace, spec, goal: Goal, retriever, sample) -> tuple[int, ...]:
    from ..retrieval.golden import golden_recall

    found: list[int] = []
    for position, one in enumerate(goal.golden):
        asked = replace(one, items=tuple(one.items[i] for i in sample[position])) if sample else one
        if asked.items:
            result = golden_recall(workspace, asked, spec, budgets=(goal.context,), retriever=retriever)
            found += result.hits(goal.context)
    return tuple(found)


def survivors(measured: Sequence[Candidate], goal: Goal) -> set[str]:
    """The sample rung's survivors (specs): its best third, and any candidate the paired test
    cannot tell from its best."""
    scored = sorted((c for c in measured if c.score is not None and not c.excluded),
                    key=lambda c: (-c.score.value, c.embedded))
    keep = max(SURVIVORS_LEAST, -(-len(scored) // 3))
    decision = decide(goal.objective, [(c.label, c.hits) for c in scored], "questions" if goal.golden else "queries")
    near = {decision.best, *decision.tied} if decision else set()
    return {str(c.spec) for i, c in enumerate(scored) if i < keep or c.label in near}


def settled(measured: Sequence[Candidate], goal: Goal, workspace) -> TuneResult:
    """The result from every candidate measured on ``workspace``'s corpus: ranked (equal scores,
    the cheaper first), the verdict, the Pareto front and the recommendation."""
    scored = sorted((c for c in measured if c.score is not None and not c.sampled and not c.excluded),
                    key=lambda c: (-c.score.value, c.embedded))
    decision = decide(goal.objective, [(c.label, c.hits) for c in scored], "questions" if goal.golden else "queries")
    recommended = _recommended(scored, decision)
    rest = sorted((c for c in measured if c.sampled), key=lambda c: -c.score.value) + \
        [c for c in measured if c.excluded]
    ranked = [replace(c, embedded_texts=b"") for c in _fronted(scored) + rest]
    return TuneResult(goal.objective, goal.context, goal.unit, goal.questions(workspace), sum(map(len, goal.sample())),
                      tuple(ranked), decision, recommended.spec if recommended else None,
                      tuple(g.name for g in goal.golden), goal.asked.name if goal.asked is not None else "",
                      EmbeddingShare.of(measured))


def _recommended(scored: list[Candidate], decision: Decision | None) -> Candidate | None:
    """The best row, unless a row tied with it costs materially less to embed: then the
    cheapest such row. A few tokens either way decide nothing, and neither does a score within
    noise."""
    if not scored or decision is None:
        return None
    best = scored[0]
    tied = [c for c in scored[1:] if c.label in decision.tied and c.embedded <= CHEAPER * best.embedded]
    return min(tied, key=lambda c: (c.embedded, c.chunks)) if tied else best


def _fronted(scored: list[Candidate]) -> list[Candidate]:
    """Mark the Pareto front: no other candidate scores as well or better with fewer tokens
    embedded, or better with as few."""
    out = []
    for c in scored:
        beaten = any((o.score.value >= c.score.value and o.embedded < c.embedded)
                     or (o.score.value > c.score.value and o.embedded <= c.embedded) for o in scored)
        out.append(replace(c, front=not beaten))
    return out
