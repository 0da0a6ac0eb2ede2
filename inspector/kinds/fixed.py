"""``fixed``: windows of the budget, each starting ``budget - overlap`` after the one before."""

from __future__ import annotations

from .base import Kind, Span, Splitting


def article(job: Splitting) -> list[Span]:
    spec = job.spec
    step = max(1, spec.budget - spec.overlap)
    n = len(job.text)
    return [(i, min(i + spec.budget, n)) for i in range(0, n, step)]


KIND = Kind("fixed", "every N units", split=lambda job: job.windows(), article=article, tune_overlaps=True,
            tune_prefixes=False)
