"""``chroma-fixed``: Chroma's ``FixedTokenChunker`` (``split.chroma``), windows over the whole
text's tokens, e.g. ``chroma-fixed:250t/125:cl100k``. Unlike ``fixed``, which sizes each window
by counting its own text, a window here is N tokens of the document's one tokenization."""

from __future__ import annotations

from .base import Kind, Splitting
from .chroma_recursive import ChromaOptions


def split(job: Splitting) -> list:
    return job.placed(job.token_windows())


KIND = Kind("chroma-fixed", "Chroma's FixedTokenChunker, exactly", split=split, options=ChromaOptions,
            tune_overlaps=True, tune_prefixes=False, tiles=False)
