"""``llm``: a chat model names where the topic changes among numbered pieces; its answers are
written beforehand (``chunk-inspector context``) and kept, and the split replays them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import quote

from .base import Control, Kind, KindOptions, Splitting, whole_number
from .meaning import ATOMS, REPEATS_NOTHING, piece_control, piece_problem
from .meaning import piece_size as sized


@dataclass(frozen=True, slots=True)
class LlmOptions(KindOptions):
    FLAGS: ClassVar[tuple[str, ...]] = ("atoms",)
    KEYS: ClassVar[tuple[str, ...]] = ("llm", "piece")

    atoms: bool = False
    """Never split a code block or table between pieces (``+atoms``)."""
    model: str = ""
    """The chat model whose kept answers place the cuts (``;llm=MODEL``)."""
    piece: int = 0
    """The size of the pieces it reads, in the spec's unit; 0: Chroma's."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> "LlmOptions":
        return cls("atoms" in flags, values.get("llm", ""), whole_number(values.get("piece", "0"), "piece"))

    def flags(self) -> str:
        return "+atoms" * self.atoms

    def text(self) -> str:
        return f";llm={quote(self.model, safe='/._-:')}" * bool(self.model) + f";piece={self.piece}" * bool(self.piece)

    def problem(self, spec) -> str | None:
        if not self.model:
            return "the llm chunker needs the chat model that places its cuts: e.g. llm:800;llm=MODEL"
        if any(c in self.model for c in ";+ \n"):
            return f"a model's name holds no ';', '+' or spaces, got {self.model[:60]!r}"
        if spec.context_model and spec.context_model != self.model:
            return "an llm chunker's context lines are written by the model that places its cuts (one ;llm=MODEL)"
        return piece_problem("llm", self.piece, spec)

    @property
    def answered_by(self) -> str:
        return self.model

    def piece_size(self, spec) -> int:
        return sized(self.piece, spec)


def split(job: Splitting) -> list:
    return job.by_answers(job.cluster())


KIND = Kind("llm", "a chat model names where topics change (its answers written beforehand by "
                   "`chunk-inspector context`)", split=split, options=LlmOptions, offered=False, needs_answers=True,
            overlap_refusal=REPEATS_NOTHING,
            controls=(ATOMS, Control("model", "Chat model", "text",
                                     "The model whose answers place the cuts, as `chunk-inspector context --spec "
                                     "'llm:800;llm=MODEL'` kept them. Nothing is sent from here.", high=200),
                      piece_control("it reads")))
