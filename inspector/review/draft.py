"""The answer a reviewer is giving on one chunk before it is saved.

Each question starts at *yes*, so a chunk that is fine is one key (save). A question is flipped
by its number, or the three are answered in turn (``y`` / ``n``): the turn moves to the next
question and stops after the third, so a fourth key cannot silently overwrite the first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .answers import Answer
from .rounds import QUESTIONS, Question


@dataclass
class Draft:
    """The three answers (question key to yes/no), the note, and the question answered next in turn."""

    said: dict[str, bool] = field(default_factory=lambda: {q.key: True for q in QUESTIONS})
    note: str = ""
    turn: int = 0
    """Index into ``QUESTIONS`` of the question ``y`` / ``n`` answer next; ``len(QUESTIONS)``
    once all three are given in turn."""

    @classmethod
    def of(cls, saved: Answer | None) -> Draft:
        """The draft that starts from a saved answer (a question left open counts as yes), or a fresh one."""
        if saved is None:
            return cls()
        return cls({q.key: getattr(saved, q.key) is not False for q in QUESTIONS}, saved.note)

    def flip(self, key: str, value: bool) -> None:
        """Set one question (its Yes or No button, or its number key); the turn stays where it is."""
        self.said[key] = value

    @property
    def in_turn(self) -> Question | None:
        """The question ``y`` / ``n`` answer next, None once all three are given in turn."""
        return QUESTIONS[self.turn] if self.turn < len(QUESTIONS) else None

    def answer_in_turn(self, value: bool) -> None:
        """Answer the question in turn and move the turn on; nothing once all three are given."""
        question = self.in_turn
        if question is not None:
            self.said[question.key] = value
            self.turn += 1

    @property
    def marks(self) -> str:
        """The three answers in question order, e.g. ``yes · no · yes``."""
        return " \u00b7 ".join("yes" if self.said[q.key] else "no" for q in QUESTIONS)

    def differs_from(self, saved: Answer) -> bool:
        """Whether saving this draft would change ``saved`` (an answer or the note)."""
        return self.note != saved.note or any(self.said[q.key] != getattr(saved, q.key) for q in QUESTIONS)
