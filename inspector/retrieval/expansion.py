"""Retrieve small, read big: each retrieved chunk read together with its ±w neighbours.

A retriever ranks precise chunks; what the model then reads is each hit's *window*, the hit
and up to ``width`` chunks either side of it in its own document. Evidence counts as read
when one window holds it whole, and the context is paid once per chunk read however many
windows take it, so the measures say what the wider reading buys and what it costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import numpy as np


class Windows:
    """The windows of a pool's chunks (``doc_of``, ``starts``, ``ends`` in corpus order)."""

    def __init__(self, doc_of: Sequence[int], starts: Sequence[int], ends: Sequence[int], width: int) -> None:
        if width < 0:
            raise ValueError(f"a neighbour window is zero or more chunks wide, got {width}")
        self.width = width
        doc_of, ends = np.asarray(doc_of), np.asarray(ends)
        n = len(doc_of)
        positions = np.arange(n)
        opens = np.ones(n, dtype=bool)  # a chunk whose document's run starts with it
        opens[1:] = doc_of[1:] != doc_of[:-1]
        closes = np.ones(n, dtype=bool)  # ... or ends with it
        closes[:-1] = doc_of[:-1] != doc_of[1:]
        first = np.maximum.accumulate(np.where(opens, positions, 0))
        last = np.minimum.accumulate(np.where(closes, positions, n)[::-1])[::-1]
        low, high = np.maximum(first, positions - width), np.minimum(last, positions + width)
        self.low, self.high = low.tolist(), high.tolist()
        self.read_start = np.asarray(starts)[low].tolist()
        self.read_end = ([int(ends[a:b + 1].max()) for a, b in zip(self.low, self.high)] if width
                         else ends.tolist())

    @classmethod
    def of_pool(cls, pool, width: int) -> "Windows":
        """The windows of a ``ranking.Pool``."""
        return cls(pool.doc_of, pool.starts, pool.ends, width)

    def window(self, j: int) -> range:
        """The chunks read for hit ``j``, itself included, in document order."""
        return range(self.low[j], self.high[j] + 1)

    def holds(self, j: int, start: int, end: int) -> bool:
        """Whether hit ``j``'s window holds ``[start, end)`` of its document whole."""
        return self.read_start[j] <= start and end <= self.read_end[j]

    def read(self, hits: Iterable[int]) -> list[int]:
        """Every chunk the hits' windows read, each once, in corpus order."""
        return sorted({p for j in hits for p in self.window(j)})

    def costs(self, sizes) -> Callable[[int], int]:
        """``paid_once`` of these windows."""
        return paid_once(self.window, sizes)


def paid_once(window: Callable[[int], Iterable[int]], sizes) -> Callable[[int], int]:
    """A function from the next hit read for one question to what it adds: the sizes of the
    chunks of its ``window`` not read before (a chunk that two windows take is paid once)."""
    paid: set[int] = set()

    def cost(j: int) -> int:
        fresh = [p for p in window(j) if p not in paid]
        paid.update(fresh)
        return sum(sizes[p] for p in fresh)

    return cost
