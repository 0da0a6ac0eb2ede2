"""Chunk sizes as an embedder sees them (prefix and span): percentiles, the runt ratio, and the
chunks a token cap would truncate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


def percentile(values, q: float) -> float:
    """Linear-interpolated percentile, as the article computes it (0 for no values)."""
    return percentiles(values, (q,))[0]


def percentiles(values, qs: Sequence[float]) -> tuple[float, ...]:
    """``percentile`` of ``values`` (a list or an integer ``array``) at each of ``qs``, sorting
    once: a corpus's atom lengths run to millions, and a report asks three of each kind."""
    if not len(values):
        return tuple(0.0 for _ in qs)
    v = np.sort(np.asarray(values))
    found = []
    for q in qs:
        k = (len(v) - 1) * q / 100
        lo = int(k)
        hi = min(lo + 1, len(v) - 1)
        low, high = v[lo].item(), v[hi].item()  # Python numbers: the article's arithmetic, digit for digit
        found.append(low + (high - low) * (k - lo))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class SizeStats:
    """Distribution of chunk sizes in one unit."""

    count: int
    """Number of chunks."""

    mean: float
    """Mean size."""

    p50: float
    """Median size."""

    p90: float
    """90th percentile."""

    p99: float
    """99th percentile."""

    max: int
    """Largest size."""

    @classmethod
    def of(cls, sizes: list[int]) -> "SizeStats":
        """Summarise a list of sizes."""
        if not sizes:
            return cls(0, 0.0, 0.0, 0.0, 0.0, 0)
        return cls(len(sizes), sum(sizes) / len(sizes), *percentiles(sizes, (50, 90, 99)), max(sizes))


@dataclass(frozen=True, slots=True)
class CapReport:
    """How chunk token counts sit against an embedder's input cap."""

    cap: int
    """The embedder's limit in tokens (special tokens included)."""

    runt_tokens: int
    """Chunks under this many tokens are runts."""

    runt_ratio: float
    """Fraction of chunks that are runts."""

    over_cap: tuple[int, ...] = field(default=())
    """Positions (in the list given) of chunks an embedder would truncate."""


def cap_report(token_counts: list[int], cap: int, *, runt_tokens: int = 32, overhead: int = 0) -> CapReport:
    """Runts and over-cap chunks from token counts (``overhead``: special tokens per input)."""
    n = len(token_counts)
    runts = sum(1 for t in token_counts if t < runt_tokens)
    over = tuple(i for i, t in enumerate(token_counts) if t + overhead > cap)
    return CapReport(cap, runt_tokens, runts / n if n else 0.0, over)
