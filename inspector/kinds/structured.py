"""``structured``: code blocks and tables kept whole (an over-budget one cut between rows, its
header repeated), sentences packed between them."""

from __future__ import annotations

from .base import Kind, Span, Splitting


def article(job: Splitting) -> list[Span] | None:
    return None if job.spec.overlap else job.article("structured", job.article_structured)


def split(job: Splitting) -> list:
    chunks = job.article_chunks(article)
    return chunks if chunks is not None else job.pack(job.structured())


KIND = Kind("structured", "keeps code blocks and tables whole", split=split, article=article,
            fast=lambda job: job.fast_structured(), header_default=True, follows_structure=True)
