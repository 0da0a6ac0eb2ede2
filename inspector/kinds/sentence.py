"""``sentence``: whole sentences packed up to the budget (a block without prose as one)."""

from __future__ import annotations

from .base import Kind, Span, Splitting


def article(job: Splitting) -> list[Span] | None:
    return None if job.spec.overlap else job.article("sentence", lambda: job.sentences)


def split(job: Splitting) -> list:
    chunks = job.article_chunks(article)
    return chunks if chunks is not None else job.pack(job.tiled(job.units()))


KIND = Kind("sentence", "packs whole sentences", split=split, article=article,
            fast=lambda job: job.fast_units("units"))
