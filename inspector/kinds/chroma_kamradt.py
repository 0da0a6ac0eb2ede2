"""``chroma-kamradt``: Chroma's ``KamradtModifiedChunker`` (``split.chroma_meaning``): pieces of 50
tokens, each embedded with three on either side, cut where neighbours drift apart most, the
threshold chosen so chunks average the budget (a chunk may be larger: the budget is a mean)."""

from __future__ import annotations

from .base import Kind, Splitting
from .chroma_cluster import ChromaMeaningOptions
from .meaning import EMBED, REPEATS_NOTHING, piece_control


def split(job: Splitting) -> list:
    return job.placed(job.kamradt_groups())


def embedded(job: Splitting) -> list[str]:
    return job.kamradt_texts()


KIND = Kind("chroma-kamradt", "Chroma's KamradtModifiedChunker: chunks that average the budget", split=split,
            options=ChromaMeaningOptions, embedded=embedded, overlap_refusal=REPEATS_NOTHING, tiles=False,
            caps_chunks=False, controls=(EMBED, piece_control("the chunker cuts between")))
