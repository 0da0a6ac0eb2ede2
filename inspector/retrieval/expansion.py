"""Retrieve small, read big: each retrieved chunk read together with its ±w neighbours.

A retriever ranks precise chunks; what the model then reads is each hit's *window*, the hit
and up to ``width`` chunks either side of it in its own document. Evidence counts as read
when one window holds it whole, and the context is paid once per chunk read however many
windows take it, so the measures say what the wider reading buys and what it costs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


class Windows:
    """The windows of a pool's chunks (``doc_of``, ``starts``, ``ends`` in corpus order)."""

    def __init__(self, doc_of: Sequence[int], starts: Sequence[int], ends: Sequence[int], width: int) -> None:
        if width < 0:
            raise ValueError(f"a neighbour window is zero or more chunks wide, got {width}")
        self.width = width
        n = len(doc_of)
        first = [0] * n
        last = [0] * n
        for j in range(n):
            first[j] = j if j == 0 or doc_of[j - 1] != doc_of[j] else first[j - 1]
        for j in range(n - 1, -1, -1):
            last[j] = j if j == n - 1 or doc_of[j + 1] != doc_of[j] else last[j + 1]
        self.low = [max(first[j], j - width) for j in range(n)]
        self.high = [min(last[j], j + width) for j in range(n)]
        self.read_start = [starts[self.low[j]] for j in range(n)]
        self.read_end = [max(ends[self.low[j]:self.high[j] + 1]) for j in range(n)]

    @classmethod
    def of_pool(cls, pool, width: int) -> "Windows":
        """The windows of a ``ranking.Pool``."""
        return cls(pool.doc_of.tolist(), pool.starts.tolist(), pool.ends.tolist(), width)

    def window(self, j: int) -> range:
        """The chunks read for hit ``j``, itself included, in document order."""
        return range(self.low[j], self.high[j] + 1)

    def holds(self, j: int, start: int, end: int) -> bool:
        """Whether hit ``j``'s window holds ``[start, end)`` of its document whole."""
        return self.read_start[j] <= start and end <= self.read_end[j]

    def read(self, hits: Iterable[int]) -> list[int]:
        """Every chunk the hits' windows read, each once, in corpus order."""
        return sorted({p for j in hits for p in self.window(j)})
