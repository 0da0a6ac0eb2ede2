"""A configuration's corpus-wide counts, and the counts of a corpus measured in parts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..model import ATOM_KINDS
from ..spec import SplitterSpec


@dataclass(frozen=True, slots=True)
class SplitSummary:
    """A configuration's corpus-wide counts (survival as ``kind -> (intact, counted)``)."""

    spec: SplitterSpec
    """The configuration."""

    chunks: int
    """Number of chunks over the corpus."""

    span_chars: int
    """Characters inside chunk spans, repeats counted (prefixes not included)."""

    survival_fit: dict[str, tuple[int, int]]
    """Survival over atoms no larger than the budget."""

    survival_all: dict[str, tuple[int, int]]
    """Survival over every atom."""

    oversized: int
    """Chunks over budget because one indivisible piece is."""

    def kept(self, kind: str, *, every: bool = False) -> float | None:
        """Share of ``kind``'s atoms kept whole: of those that fit the budget, or of ``every``
        one; None when there is no such atom."""
        intact, counted = (self.survival_all if every else self.survival_fit)[kind]
        return intact / counted if counted else None

    @classmethod
    def total(cls, spec: SplitterSpec, parts: Iterable["SplitSummary"]) -> "SplitSummary":
        """The summary of a corpus from those of its parts (runs of its documents, measured apart):
        every count is a sum over documents."""
        chunks = span_chars = oversized = 0
        fit = dict.fromkeys(ATOM_KINDS, (0, 0))
        every = dict(fit)
        for part in parts:
            chunks, span_chars = chunks + part.chunks, span_chars + part.span_chars
            oversized += part.oversized
            for mine, theirs in ((fit, part.survival_fit), (every, part.survival_all)):
                for kind, (intact, counted) in theirs.items():
                    mine[kind] = (mine[kind][0] + intact, mine[kind][1] + counted)
        return cls(spec, chunks, span_chars, fit, every, oversized)
