"""A splitter kind written the way a newcomer adds one (docs/architecture.md, "How to add a
splitter kind"): this module and one ``register`` call. ``lines`` packs whole lines, ``;lines=N``
of them to a piece; nothing else in the library names it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from inspector.kinds import Control, Kind, KindOptions, Splitting
from inspector.kinds.base import whole_number


@dataclass(frozen=True, slots=True)
class LinesOptions(KindOptions):
    KEYS: ClassVar[tuple[str, ...]] = ("lines",)

    lines: int = 1
    """How many lines make one piece."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> LinesOptions:
        return cls(whole_number(values.get("lines", "1"), "lines"))

    def text(self) -> str:
        return f";lines={self.lines}" if self.lines != 1 else ""

    def problem(self, spec) -> str | None:
        return None if 1 <= self.lines <= 100 else "lines is how many lines make a piece, from 1 to 100"


def split(job: Splitting) -> list:
    text, every = job.text, job.spec.options.lines
    ends = [i + 1 for i, character in enumerate(text) if character == "\n"][every - 1::every]
    bounds = [0, *(end for end in ends if end < len(text)), len(text)]
    return job.pack([(a, b) for a, b in zip(bounds, bounds[1:]) if b > a])


KIND = Kind("lines", "packs whole lines", split=split, options=LinesOptions,
            controls=(Control("lines", "Lines a piece", "number", "How many lines make one piece.", low=1, high=100),))
