"""What the review store hands back, and the CSV form answers leave the app in.

Kept apart from the store (``inspector.review.store``) so the agreement maths and the exports can
work on answers without opening, or even importing, SQLite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from ..csv_cells import csv_text
from .rounds import QUESTIONS, ReviewRound


@dataclass(frozen=True, slots=True)
class Answer:
    """One reviewer's answers for one chunk of a round (``None``: not answered yet)."""

    round_id: str
    """The round's id."""

    chunk_id: str
    """``Chunk.id`` of the chunk judged."""

    position: int
    """1-based place of the chunk in the round."""

    reviewer: str
    """Who answered (trimmed)."""

    address: bool | None
    """Can you tell the document, product and version?"""

    references: bool | None
    """Does every it / this / the above resolve inside the chunk?"""

    completeness: bool | None
    """Does every rule, number or table row carry its condition, subject and headers?"""

    note: str
    """Free text, possibly empty. Untrusted: escape it before rendering."""

    updated: str
    """When the row last changed, ISO 8601 in UTC."""

    @property
    def complete(self) -> bool:
        """All three questions answered."""
        return None not in (self.address, self.references, self.completeness)

    @property
    def orphan(self) -> bool | None:
        """True on any "no", False on three "yes", None while undecided."""
        values = (self.address, self.references, self.completeness)
        if False in values:
            return True
        return False if self.complete else None

    def to_dict(self) -> dict:
        """JSON-ready values, with the orphan verdict."""
        return {**asdict(self), "orphan": self.orphan}


def is_orphan(ticks: Mapping[str, bool]) -> bool:
    """The Orphan Test's rule: one "no" to any of the three questions makes an orphan."""
    return not all(ticks[q.key] for q in QUESTIONS)


def saved_message(stored: Answer) -> str:
    """What a reviewer reads after saving: the answer the store now holds, and its verdict."""
    ticks = {q.key: bool(getattr(stored, q.key)) for q in QUESTIONS}
    words = ", ".join(f"{q.title} {'yes' if ticks[q.key] else 'no'}" for q in QUESTIONS)
    verdict = "an orphan" if is_orphan(ticks) else "not an orphan"
    return f"Saved chunk {stored.position}; the store now holds: {words}, so {verdict}."


@dataclass(frozen=True, slots=True)
class Progress:
    """Where one reviewer stands in a round of ``total`` chunks."""

    answers: Mapping[int, Answer]
    """The reviewer's answers by position (1-based)."""

    total: int
    """Chunks in the round."""

    @property
    def done(self) -> int:
        """Chunks with all three questions answered."""
        return sum(a.complete for a in self.answers.values())

    @property
    def open_positions(self) -> list[int]:
        """Positions not fully answered, in order."""
        return [p for p in range(1, self.total + 1) if not (p in self.answers and self.answers[p].complete)]

    @property
    def resume_at(self) -> int:
        """Where a returning reviewer starts: the first chunk not answered, else the last."""
        return next(iter(self.open_positions), self.total)

    def next_open(self, after: int) -> int:
        """The first open position after ``after``, else the first open one, else ``after``."""
        waiting = self.open_positions
        return next((p for p in waiting if p > after), (waiting or [after])[0])

    def after_saving(self, position: int) -> int:
        """Where a reviewer goes once ``position`` is saved: the next chunk still open after it,
        else the first open one before it, else ``position`` itself (every chunk answered)."""
        waiting = [p for p in self.open_positions if p != position]
        return next((p for p in waiting if p > position), (waiting or [position])[0])

    def open_ranges(self) -> str:
        """The open positions as runs, e.g. ``3, 5, 8–20`` (empty when every chunk is answered)."""
        runs: list[list[int]] = []
        for p in self.open_positions:
            if runs and p == runs[-1][1] + 1:
                runs[-1][1] = p
            else:
                runs.append([p, p])
        return ", ".join(str(a) if a == b else f"{a}\u2013{b}" for a, b in runs)


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round as the store keeps it."""

    round: ReviewRound
    """The definition."""

    chunk_ids: tuple[str, ...]
    """The chunk ids shown, in order (empty when saved without them)."""

    created: str
    """When it was first saved, ISO 8601 in UTC."""

    @property
    def id(self) -> str:
        """The round's id."""
        return self.round.id

    @property
    def total(self) -> int:
        """Chunks in the round: the saved list's length, else the definition's size."""
        return len(self.chunk_ids) or self.round.size


ANSWER_FIELDS: tuple[str, ...] = ("round_id", "position", "chunk_id", "reviewer",
                                  *(q.key for q in QUESTIONS), "orphan", "note", "updated")


def answers_csv(answers: Sequence[Answer]) -> str:
    """Answers as CSV text; yes/no/blank cells, spreadsheet formulas neutralised."""
    return csv_text(ANSWER_FIELDS, ([yes_no(a.to_dict()[f]) for f in ANSWER_FIELDS] for a in answers))


def yes_no(value: object) -> object:
    """A review's boolean as the word a reviewer reads (yes or no); anything else as it is."""
    return ("yes" if value else "no") if isinstance(value, bool) else value
