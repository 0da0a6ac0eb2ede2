"""``recursive``: cut after each separator in turn, recursing into pieces still over budget."""

from __future__ import annotations

from .base import Kind, Span, Splitting


def article(job: Splitting) -> list[Span] | None:
    # Its pieces depend on the budget, so they are cut anew for each split.
    return None if job.spec.overlap else job.article_pack(job.recursive(0, len(job.text)))


def split(job: Splitting) -> list:
    chunks = job.article_chunks(article)
    return chunks if chunks is not None else job.pack(job.recursive(0, len(job.text)))


def fast(job: Splitting) -> object:
    return job.fast([0, *(end for _, end in job.recursive(0, len(job.text)))])


KIND = Kind("recursive", "tries separators in turn", split=split, article=article, fast=fast, tune_overlaps=True)
