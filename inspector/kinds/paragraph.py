"""``paragraph``: whole paragraphs packed up to the budget."""

from __future__ import annotations

from .base import Kind, Span, Splitting


def article(job: Splitting) -> list[Span] | None:
    return None if job.spec.overlap else job.article("paragraph", lambda: job.paragraphs)


def split(job: Splitting) -> list:
    chunks = job.article_chunks(article)
    return chunks if chunks is not None else job.pack(job.tiled(job.paragraphs))


KIND = Kind("paragraph", "packs whole paragraphs", split=split, article=article,
            fast=lambda job: job.fast_units("paragraphs"))
