"""``chroma-cluster``: Chroma's ``ClusterSemanticChunker`` as its code runs (``split.chroma_meaning``):
pieces of 50 tokens grouped by their embeddings, at most ``budget // 50`` pieces a chunk except
where Chroma's programme lets a group run back further. ``cluster`` is the project's capped
version of it. Write it in Chroma's unit, e.g. ``chroma-cluster:250t:cl100k;embed=minilm``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from .base import Kind, KindOptions, Splitting, whole_number
from .meaning import DEFAULT_PIECE, EMBED, REPEATS_NOTHING, SIMILARITY_MODELS, embed_problem, piece_control


@dataclass(frozen=True, slots=True)
class ChromaMeaningOptions(KindOptions):
    """The embedder of Chroma's chunkers by meaning, and the size of the pieces they group."""

    KEYS: ClassVar[tuple[str, ...]] = ("embed", "piece")

    embed: str = ""
    """The model that embeds the pieces, one of ``SIMILARITY_MODELS``; empty: the first."""
    piece: int = 0
    """The size of the pieces, in the spec's unit; 0: Chroma's 50 tokens (200 characters), or the
    budget when it is smaller."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> "ChromaMeaningOptions":
        return cls(values.get("embed", ""), whole_number(values.get("piece", "0"), "piece"))

    def text(self) -> str:
        return f";embed={self.embed}" * bool(self.embed) + f";piece={self.piece}" * bool(self.piece)

    def problem(self, spec) -> str | None:
        if spec.names_separators:
            return f"the {spec.kind} chunker cuts its pieces at Chroma's own separators: it takes no ;seps="
        if self.piece > spec.budget:
            return f"piece is the {spec.kind} chunker's piece size, at most the budget ({spec.budget})"
        return embed_problem(spec.kind, self.embed)

    @property
    def embedder(self) -> str:
        return self.embed or SIMILARITY_MODELS[0]

    def piece_size(self, spec) -> int:
        # Under a budget smaller than Chroma's pieces, Chroma's programme would make the whole
        # document one chunk: the pieces shrink to the budget instead.
        return self.piece or min(DEFAULT_PIECE[spec.in_tokens], spec.budget)


def split(job: Splitting) -> list:
    return job.placed(job.chroma_clusters())


def embedded(job: Splitting) -> list[str]:
    return [job.text[a:b] for a, b in job.chroma_pieces()]


KIND = Kind("chroma-cluster", "Chroma's ClusterSemanticChunker, as its code runs", split=split,
            options=ChromaMeaningOptions, embedded=embedded, overlap_refusal=REPEATS_NOTHING, tiles=False,
            caps_chunks=False, controls=(EMBED, piece_control("the chunker groups")))
