"""``chroma-recursive``: Chroma's ``RecursiveTokenChunker``, the one its evaluation measures
(``split.chroma``). Write it in Chroma's unit, e.g. ``chroma-recursive:200t:cl100k``; a prefix
(``+path``, ``+header``, ``+address``, ``+context``) is added to a chunk without counting in its size, as
Chroma has none."""

from __future__ import annotations

from dataclasses import dataclass

from .base import Kind, KindOptions, Splitting


@dataclass(frozen=True, slots=True)
class ChromaOptions(KindOptions):
    """Chroma's chunkers take nothing but a size and an overlap."""

    def problem(self, spec) -> str | None:
        if spec.names_separators:
            return f"the {spec.kind} splitter cuts at Chroma's own separators: it takes no ;seps="
        return None


def split(job: Splitting) -> list:
    return job.placed(job.chroma_recursive())


KIND = Kind("chroma-recursive", "Chroma's RecursiveTokenChunker, exactly", split=split, options=ChromaOptions,
            tune_overlaps=True, tiles=False)
