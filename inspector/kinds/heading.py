"""``heading``: one section per chunk where it fits, each section cut recursively where it does not."""

from __future__ import annotations

from .base import Kind, Splitting


def split(job: Splitting) -> list:
    chunks: list = []
    for start, end in job.sections():
        chunks += job.pack(job.recursive(start, end))
    return chunks


KIND = Kind("heading", "one section per chunk", split=split, fast=lambda job: job.fast_sections(),
            path_default=True, follows_structure=True, tune_prefixes=False)
