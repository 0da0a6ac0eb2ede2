"""What a team's Orphan Test answers add up to: tallies, consensus, agreement and trends.

Only *complete* answers count (all three questions answered): a half-answered chunk is
work in progress, not a verdict. Agreement is Fleiss' kappa, computed over the chunks every
reviewer of the round answered (how many that left out is reported). Pure Python; every
result is a frozen dataclass with ``to_dict()``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..csv_cells import csv_text
from .answers import Answer, StoredRound, answers_csv, yes_no
from .rounds import QUESTIONS

__all__ = ["ChunkVerdict", "Kappa", "ReviewerTally", "RoundSummary", "TrendPoint", "answer_marks", "answers_csv",
           "fleiss_kappa", "kappa_reading", "reviewers_csv", "summarize", "summary_csv", "to_json", "trend",
           "trend_csv", "verdict_rows"]

_KEYS = tuple(q.key for q in QUESTIONS)


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of a subjects x categories table of rating counts.

    Every row must sum to the same number of raters (two or more). None when kappa is
    undefined: no subjects, or every rating in one category (chance agreement is then 1).
    """
    rows = [list(map(int, row)) for row in counts]
    if not rows:
        return None
    raters = sum(rows[0])
    if raters < 2 or any(sum(row) != raters for row in rows) or any(v < 0 for row in rows for v in row):
        raise ValueError("every subject needs the same number of ratings (two or more), none negative")
    subjects = len(rows)
    categories = len(rows[0])
    if any(len(row) != categories for row in rows):
        raise ValueError("every subject needs a count for every category")
    shares = [sum(row[j] for row in rows) / (subjects * raters) for j in range(categories)]
    chance = sum(p * p for p in shares)
    observed = sum((sum(v * v for v in row) - raters) / (raters * (raters - 1)) for row in rows) / subjects
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def kappa_reading(value: float | None) -> str:
    """Kappa in words, on Landis and Koch's (1977) customary scale, for readers new to kappa."""
    if value is None:
        return "not defined"
    if value < 0:
        return "less agreement than chance"
    for limit, words in ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial")):
        if value <= limit:
            return f"{words} agreement"
    return "almost perfect agreement"


@dataclass(frozen=True, slots=True)
class ReviewerTally:
    """One reviewer's verdicts in a round."""

    reviewer: str
    """Who."""

    judged: int
    """Chunks fully answered."""

    orphans: int
    """Of those, chunks with at least one "no"."""

    noes: dict[str, int]
    """"No" answers per question key (``address``, ``references``, ``completeness``)."""

    @property
    def orphan_rate(self) -> float | None:
        """orphans / judged, None before any verdict."""
        return self.orphans / self.judged if self.judged else None

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"reviewer": self.reviewer, "judged": self.judged, "orphans": self.orphans,
                "orphan_rate": self.orphan_rate, "noes": dict(self.noes)}


@dataclass(frozen=True, slots=True)
class ChunkVerdict:
    """The reviewers' majority on one chunk."""

    chunk_id: str
    """The chunk."""

    position: int
    """Its 1-based place in the round."""

    orphan_votes: int
    """Reviewers who answered "no" at least once."""

    fine_votes: int
    """Reviewers who answered "yes" three times."""

    noes: dict[str, int]
    """"No" answers per question key."""

    @property
    def verdict(self) -> str:
        """``orphan`` or ``fine`` by majority, ``tie`` when the votes are even."""
        if self.orphan_votes == self.fine_votes:
            return "tie"
        return "orphan" if self.orphan_votes > self.fine_votes else "fine"

    @property
    def disagreement(self) -> bool:
        """Some reviewers call it an orphan and others do not."""
        return self.orphan_votes > 0 and self.fine_votes > 0

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"chunk_id": self.chunk_id, "position": self.position, "orphan_votes": self.orphan_votes,
                "fine_votes": self.fine_votes, "verdict": self.verdict, "disagreement": self.disagreement,
                "noes": dict(self.noes)}


@dataclass(frozen=True, slots=True)
class Kappa:
    """Fleiss' kappa on one yes/no judgement, with what it was computed from."""

    value: float | None
    """Kappa, or None when undefined (see ``note``)."""

    raters: int
    """Reviewers with at least one complete answer in the round."""

    chunks: int
    """Chunks every one of them answered: the only ones kappa uses."""

    left_out: int
    """Chunks answered by some reviewers but not all, so not used."""

    note: str = ""
    """Why ``value`` is None, in words; empty otherwise."""

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"value": self.value, "raters": self.raters, "chunks": self.chunks,
                "left_out": self.left_out, "note": self.note}


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """Everything the results view shows for one round."""

    round_id: str
    """The round."""

    label: str
    """Its short name (the spec string)."""

    reviewers: tuple[ReviewerTally, ...]
    """Per reviewer, sorted by name."""

    chunks: tuple[ChunkVerdict, ...]
    """Per chunk with at least one complete answer, by position."""

    kappa: Kappa
    """Agreement on the orphan verdict (any "no")."""

    kappa_by_question: dict[str, Kappa]
    """Agreement per question key."""

    @property
    def disagreements(self) -> tuple[ChunkVerdict, ...]:
        """Chunks the reviewers split on, worth discussing first."""
        return tuple(c for c in self.chunks if c.disagreement)

    @property
    def ties(self) -> tuple[ChunkVerdict, ...]:
        """Chunks with as many orphan votes as fine votes."""
        return tuple(c for c in self.chunks if c.verdict == "tie")

    @property
    def consensus_orphans(self) -> int:
        """Chunks the majority calls orphans."""
        return sum(c.verdict == "orphan" for c in self.chunks)

    @property
    def answers(self) -> int:
        """Complete answers, every reviewer's pooled (a chunk read by two counts twice): the trend's unit."""
        return sum(t.judged for t in self.reviewers)

    @property
    def orphan_answers(self) -> int:
        """Of ``answers``, those with at least one "no"."""
        return sum(t.orphans for t in self.reviewers)

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"round_id": self.round_id, "label": self.label,
                "reviewers": [r.to_dict() for r in self.reviewers],
                "chunks": [c.to_dict() for c in self.chunks],
                "consensus_orphans": self.consensus_orphans,
                "disagreements": [c.chunk_id for c in self.disagreements],
                "ties": [c.chunk_id for c in self.ties],
                "kappa": self.kappa.to_dict(),
                "kappa_by_question": {k: v.to_dict() for k, v in self.kappa_by_question.items()}}


def summarize(answers: Sequence[Answer], *, round_id: str = "", label: str = "") -> RoundSummary:
    """Tallies, consensus and agreement from one round's answers (``ReviewStore.answers``)."""
    complete = [a for a in answers if a.complete]
    if round_id == "" and complete:
        round_id = complete[0].round_id
    by_reviewer: dict[str, list[Answer]] = {}
    by_chunk: dict[str, list[Answer]] = {}
    for a in complete:
        by_reviewer.setdefault(a.reviewer, []).append(a)
        by_chunk.setdefault(a.chunk_id, []).append(a)
    tallies = tuple(ReviewerTally(name, len(rows), sum(bool(a.orphan) for a in rows), _noes(rows))
                    for name, rows in sorted(by_reviewer.items()))
    verdicts = sorted((ChunkVerdict(chunk_id, min(a.position for a in rows),
                                    sum(bool(a.orphan) for a in rows), sum(not a.orphan for a in rows), _noes(rows))
                       for chunk_id, rows in by_chunk.items()), key=lambda v: (v.position, v.chunk_id))
    raters = sorted(by_reviewer)
    shared = [rows for rows in by_chunk.values() if len({a.reviewer for a in rows}) == len(raters)]
    left_out = len(by_chunk) - len(shared)

    def agreement(judge) -> Kappa:
        if len(raters) < 2:
            return Kappa(None, len(raters), len(shared), left_out, "needs answers from two or more reviewers")
        if not shared:
            return Kappa(None, len(raters), 0, left_out, "no chunk has been answered by every reviewer yet")
        table = [[sum(judge(a) for a in rows), sum(not judge(a) for a in rows)] for rows in shared]
        value = fleiss_kappa(table)
        note = "" if value is not None else "every answer is the same, so chance agreement is total"
        return Kappa(value, len(raters), len(shared), left_out, note)

    return RoundSummary(round_id, label, tallies, tuple(verdicts), agreement(lambda a: bool(a.orphan)),
                        {key: agreement(lambda a, key=key: getattr(a, key) is False) for key in _KEYS})


def _noes(rows: Sequence[Answer]) -> dict[str, int]:
    return {key: sum(getattr(a, key) is False for a in rows) for key in _KEYS}


@dataclass(frozen=True, slots=True)
class TrendPoint:
    """One round's orphan rate, for the trend across rounds on one corpus."""

    round_id: str
    """The round."""

    label: str
    """Its short name, e.g. ``structured:800`` or ``structured:800+path``."""

    created: str
    """When the round was created (ISO 8601, UTC): the trend's order."""

    judged: int
    """Complete answers, over every reviewer."""

    orphans: int
    """Of those, answers with at least one "no"."""

    reviewers: int
    """Reviewers with at least one complete answer."""

    @property
    def orphan_rate(self) -> float | None:
        """orphans / judged, pooled over reviewers; None before any verdict."""
        return self.orphans / self.judged if self.judged else None

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"round_id": self.round_id, "label": self.label, "created": self.created, "judged": self.judged,
                "orphans": self.orphans, "orphan_rate": self.orphan_rate, "reviewers": self.reviewers}


def trend(rounds: Sequence[StoredRound], answers: Mapping[str, Sequence[Answer]]) -> list[TrendPoint]:
    """Orphan rate per round in time order; ``answers`` maps round id to its answers.

    Pass rounds over one corpus (``ReviewStore.rounds(corpus_fingerprint)``): rates over
    different corpora do not compare.
    """
    points = []
    for stored in sorted(rounds, key=lambda r: r.created):
        complete = [a for a in answers.get(stored.id, ()) if a.complete]
        points.append(TrendPoint(stored.id, stored.round.label, stored.created, len(complete),
                                 sum(bool(a.orphan) for a in complete), len({a.reviewer for a in complete})))
    return points



# -- side by side ------------------------------------------------------------------------------

VERDICT_COLUMNS: tuple[str, ...] = ("Chunk", "Verdict", "Orphan votes", "Fine votes", "Chunk id")


@dataclass(frozen=True, slots=True)
class AnswerChange:
    """A reviewer saving another answer for a chunk than the one they had saved: a change of mind."""

    before: Answer
    after: Answer

    def to_dict(self) -> dict:
        return {"reviewer": self.after.reviewer, "position": self.after.position, "chunk_id": self.after.chunk_id,
                "before": answer_marks(self.before), "after": answer_marks(self.after),
                "before_at": self.before.updated, "after_at": self.after.updated}


@dataclass(frozen=True, slots=True)
class AnswerHistory:
    """What a round's saves say beyond its answers: every change of mind, and how many saves
    repeated the answer already saved (a double click, not a change)."""

    changes: tuple[AnswerChange, ...]
    repeated: int


def answer_history(events: Sequence[Answer]) -> AnswerHistory:
    """``events`` (every save, oldest first, ``ReviewQueries.history``) read per chunk and reviewer."""
    last: dict[tuple[str, str], Answer] = {}
    changes, repeated = [], 0
    for event in events:
        key = (event.chunk_id, event.reviewer)
        before = last.get(key)
        if before is not None:
            if _said(before) == _said(event):
                repeated += 1
            else:
                changes.append(AnswerChange(before, event))
        last[key] = event
    return AnswerHistory(tuple(changes), repeated)


def _said(answer: Answer) -> tuple:
    return answer.address, answer.references, answer.completeness, answer.note


def answer_marks(answer: Answer | None) -> str:
    """One reviewer's three answers in question order, e.g. ``yes · no · yes``; ``–`` for a
    question not answered yet, an empty string for no answer at all."""
    if answer is None:
        return ""
    words = {True: "yes", False: "no", None: "\u2013"}
    return " \u00b7 ".join(words[getattr(answer, key)] for key in _KEYS)


def verdict_rows(summary: RoundSummary, answers: Sequence[Answer], *,
                 disagreements_only: bool = False) -> list[dict[str, object]]:
    """One row per judged chunk of ``summary`` (by position): ``VERDICT_COLUMNS``, then one
    column per reviewer (sorted) holding ``answer_marks`` of their answer, so a table shows
    who said what. A reviewer named like a fixed column gets `` (reviewer)`` appended."""
    chunks = summary.disagreements if disagreements_only else summary.chunks
    names = sorted({a.reviewer for a in answers})
    columns = {name: name if name not in VERDICT_COLUMNS else f"{name} (reviewer)" for name in names}
    given = {(a.chunk_id, a.reviewer): a for a in answers}
    rows = []
    for verdict in chunks:
        row: dict[str, object] = dict(zip(VERDICT_COLUMNS, (verdict.position, verdict.verdict, verdict.orphan_votes,
                                                            verdict.fine_votes, verdict.chunk_id)))
        for name in names:
            row[columns[name]] = answer_marks(given.get((verdict.chunk_id, name)))
        rows.append(row)
    return rows

# -- export ------------------------------------------------------------------------------------

def to_json(value) -> str:
    """JSON text of a result, or of a list of results (anything with ``to_dict``)."""
    if isinstance(value, (list, tuple)):
        return json.dumps([v.to_dict() for v in value], indent=2, ensure_ascii=False)
    return json.dumps(value.to_dict(), indent=2, ensure_ascii=False)


def _csv(header: Sequence[str], rows: Sequence[Sequence]) -> str:
    return csv_text(header, ([yes_no(v) for v in row] for row in rows))


def summary_csv(summary: RoundSummary) -> str:
    """The per-chunk consensus as CSV."""
    return _csv(["position", "chunk_id", "orphan_votes", "fine_votes", "verdict", "disagreement",
                 *(f"{k}_no" for k in _KEYS)],
                [[c.position, c.chunk_id, c.orphan_votes, c.fine_votes, c.verdict, c.disagreement,
                  *(c.noes[k] for k in _KEYS)] for c in summary.chunks])


def reviewers_csv(summary: RoundSummary) -> str:
    """The per-reviewer tallies as CSV."""
    return _csv(["reviewer", "judged", "orphans", "orphan_rate", *(f"{k}_no" for k in _KEYS)],
                [[r.reviewer, r.judged, r.orphans, "" if r.orphan_rate is None else f"{r.orphan_rate:.4f}",
                  *(r.noes[k] for k in _KEYS)] for r in summary.reviewers])


def trend_csv(points: Sequence[TrendPoint]) -> str:
    """The trend as CSV."""
    return _csv(["created", "round_id", "label", "judged", "orphans", "orphan_rate", "reviewers"],
                [[p.created, p.round_id, p.label, p.judged, p.orphans,
                  "" if p.orphan_rate is None else f"{p.orphan_rate:.4f}", p.reviewers] for p in points])
