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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..confidence import SEED, Interval, rate
from ..reports.decide import Decision, decide
from ..retrieval.ranking import Retriever
from ..spec import SplitterSpec, parse_spec
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
class Candidate:
    """One configuration as ``tune`` measured it."""

    spec: SplitterSpec
    score: Interval | None
    """The objective with its interval (None when the candidate was left out before scoring)."""

    hits: tuple[int, ...] = ()
    """Per question (or query) asked: 1 answered, 0 not."""

    sampled: bool = False
    """Scored on the sample of questions only (below the best third there)."""

    chunks: int = 0
    embedded: int = 0
    """Tokens embedded over the corpus, prefixes included, in the cap's unit (o200k without one)."""

    duplication: float = 0.0
    """Characters in chunks over characters in the corpus (overlap repeats text)."""

    ctx_tokens: float = 0.0
    """Mean context of the probe's five chunks per query (the no-golden objective's cost)."""

    over_cap: int = 0
    """Chunks longer than the embedder's cap (it would cut them)."""

    excluded: str = ""
    """Why the candidate was left out of the ranking, or empty."""

    front: bool = False
    """On the Pareto front of the objective against tokens embedded."""

    @property
    def label(self) -> str:
        return self.spec.label

    def as_dict(self) -> dict:
        return {"spec": str(self.spec), "splitter": self.label,
                "score": self.score.as_dict() if self.score else None, "sampled": self.sampled,
                "chunks": self.chunks, "embedded": self.embedded, "duplication": self.duplication,
                "ctx_tokens": self.ctx_tokens, "over_cap": self.over_cap, "excluded": self.excluded,
                "front": self.front, "answered": "".join(map(str, self.hits))}


@dataclass(frozen=True, slots=True)
class TuneResult:
    """The ranked candidates, the verdict and the recommendation."""

    objective: str
    """``recall@B`` or ``answer@5``."""

    context: int
    unit: str
    """What ``embedded`` counts."""

    questions: int
    """Questions (or probe queries) the full rung asks."""

    sample: int
    """Questions of the sample rung (0: every candidate was asked every question)."""

    candidates: tuple[Candidate, ...]
    """Ranked: scored on every question (best first), then the sampled, then the left out."""

    decision: Decision | None
    recommended: SplitterSpec | None
    sources: tuple[str, ...] = field(default=())
    """The golden sets asked (names), or empty for the probe."""

    @property
    def ranked(self) -> tuple[Candidate, ...]:
        """The candidates scored on every question, best first."""
        return tuple(c for c in self.candidates if c.score is not None and not c.sampled and not c.excluded)

    @property
    def winners(self) -> tuple[str, ...]:
        """The best row and those tied with it (labels)."""
        return (self.decision.best, *self.decision.tied) if self.decision else ()

    def as_dict(self) -> dict:
        return {"objective": self.objective, "context": self.context, "unit": self.unit,
                "questions": self.questions, "sample": self.sample, "sources": list(self.sources),
                "recommended": str(self.recommended) if self.recommended else None,
                "winners": list(self.winners), "decision": self.decision.as_dict() if self.decision else None,
                "candidates": [c.as_dict() for c in self.candidates]}


def tune(workspace, space: Space | Sequence[SplitterSpec | str], *, golden: Sequence = (), context: int = 2000,
         cap: tuple[int, str] | None = None, max_duplication: float | None = None, retriever=None,
         progress: Progress | None = None, seed: int = SEED) -> TuneResult:
    """Search ``space`` (or a list of specs) on ``workspace``'s corpus: ``golden`` sets give the
    objective recall@``context``; ``cap`` (``(size, unit)``) the embedder's limit and the unit
    tokens are counted in; ``max_duplication`` leaves out candidates repeating more text."""
    specs = space.candidates() if isinstance(space, Space) else [parse_spec(s) for s in space]
    if not specs:
        raise ValueError("tune needs at least one configuration")
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    unit = cap[1] if cap else "o200k"
    asking = _Asking(workspace, tuple(golden), context, retriever)
    total = len(specs) * 2 if asking.sample(seed) else len(specs)
    done = 0

    def step(what: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(what, done, total)

    workspace.measure_ahead([(s, None) for s in specs], [] if golden else specs, retriever=retriever)
    measured: list[Candidate] = []
    sample = asking.sample(seed)
    for spec in specs:
        measured.append(_measured(workspace, spec, unit, cap, max_duplication, context, golden, retriever, asking,
                                  sample))
        workspace.release(spec)
        step(spec.label)
    if sample:
        going = _going(measured, asking)
        total = len(specs) + len(going)
        measured = _halved(measured, going, asking, workspace, step)
    # Equal scores: the cheaper first, so that the best row is the cheapest of the top score.
    scored = sorted((c for c in measured if c.score is not None and not c.sampled and not c.excluded),
                    key=lambda c: (-c.score.value, c.embedded))
    decision = decide(asking.objective, [(c.label, c.hits) for c in scored])
    recommended = _recommended(scored, decision)
    scored = _fronted(scored)
    rest = sorted((c for c in measured if c.sampled), key=lambda c: -c.score.value) + \
        [c for c in measured if c.excluded]
    return TuneResult(asking.objective, context, unit, asking.count, sum(map(len, sample)), tuple(scored + rest),
                      decision,
                      recommended.spec if recommended else None, tuple(g.name for g in golden))


class _Asking:
    """The objective: golden recall at the budget over every set's questions, or the probe."""

    def __init__(self, workspace, golden: tuple, context: int, retriever) -> None:
        self.workspace, self.golden, self.context, self.retriever = workspace, golden, context, retriever
        self.objective = f"recall@{context}" if golden else "answer@5"
        self.count = sum(len(g.items) for g in golden) if golden else len(workspace.queries())

    def sample(self, seed: int) -> tuple[tuple[int, ...], ...]:
        """Per golden set, the positions of its questions in the sample rung; empty: no halving."""
        if not self.golden or self.count < HALVING_FROM:
            return ()
        import numpy as np

        rng = np.random.default_rng(seed)
        share = max(SAMPLE_LEAST, self.count // 3) / self.count
        drawn = (rng.choice(len(g.items), max(1, round(share * len(g.items))), replace=False) for g in self.golden)
        return tuple(tuple(sorted(positions.tolist())) for positions in drawn)

    def hits(self, spec: SplitterSpec, sample: tuple[tuple[int, ...], ...] = ()) -> tuple[int, ...]:
        from ..retrieval.golden import golden_recall

        found: list[int] = []
        for position, one in enumerate(self.golden):
            asked = replace(one, items=tuple(one.items[i] for i in sample[position])) if sample else one
            if not asked.items:
                continue
            result = golden_recall(self.workspace, asked, spec, budgets=(self.context,), retriever=self.retriever)
            found += result.hits(self.context)
        return tuple(found)


def _measured(workspace, spec, unit, cap, max_duplication, context, golden, retriever, asking, sample) -> Candidate:
    summary = workspace.summarize(spec, fits=None)
    sizes = workspace.sizes(spec, unit)
    characters = workspace.characters
    duplication = summary.span_chars / characters if characters else 0.0
    over_cap = sum(1 for size in sizes if cap and size > cap[0])
    candidate = Candidate(spec, None, chunks=summary.chunks, embedded=sum(sizes), duplication=duplication,
                          over_cap=over_cap)
    if max_duplication is not None and duplication > max_duplication + 1e-12:
        return replace(candidate, excluded=f"duplication {duplication:.2f} over {max_duplication:g}")
    if golden:
        hits = asking.hits(spec, sample)
        return replace(candidate, hits=hits, score=rate(sum(hits), len(hits)))
    probe = workspace.probe(spec, retriever=retriever)
    candidate = replace(candidate, ctx_tokens=probe.context_tokens)
    if probe.context_tokens > context:
        return replace(candidate, excluded=f"its five chunks hold {probe.context_tokens:,.0f} tokens a query, "
                                           f"over the {context:,} budget")
    hits = tuple(probe.hits())
    return replace(candidate, hits=hits, score=rate(sum(hits), len(hits)))


def _going(measured: list[Candidate], asking: _Asking) -> set[str]:
    """The sample rung's survivors: its best third, and any candidate the paired test cannot tell
    from its best."""
    scored = sorted((c for c in measured if c.score is not None and not c.excluded),
                    key=lambda c: (-c.score.value, c.embedded))
    keep = max(SURVIVORS_LEAST, -(-len(scored) // 3))
    decision = decide(asking.objective, [(c.label, c.hits) for c in scored])
    near = {decision.best, *decision.tied} if decision else set()
    return {str(c.spec) for i, c in enumerate(scored) if i < keep or c.label in near}


def _halved(measured: list[Candidate], going: set[str], asking: _Asking, workspace, step) -> list[Candidate]:
    """The survivors asked every question; the others keep their sample score, marked so."""
    out = []
    for candidate in measured:
        if str(candidate.spec) in going:
            hits = asking.hits(candidate.spec)
            workspace.release(candidate.spec)
            out.append(replace(candidate, hits=hits, score=rate(sum(hits), len(hits))))
            step(candidate.label)
        elif candidate.score is not None and not candidate.excluded:
            out.append(replace(candidate, sampled=True))
        else:
            out.append(candidate)
    return out


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
