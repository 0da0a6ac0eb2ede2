"""``cluster``: small pieces grouped where their embeddings are alike (Chroma's
ClusterSemanticChunker), each group within the budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from .base import Kind, KindOptions, Splitting, whole_number
from .meaning import ATOMS, EMBED, REPEATS_NOTHING, SIMILARITY_MODELS, embed_problem, piece_control, piece_problem
from .meaning import piece_size as sized


@dataclass(frozen=True, slots=True)
class ClusterOptions(KindOptions):
    FLAGS: ClassVar[tuple[str, ...]] = ("atoms",)
    KEYS: ClassVar[tuple[str, ...]] = ("embed", "piece")

    atoms: bool = False
    """Never split a code block or table between pieces (``+atoms``)."""
    embed: str = ""
    """The model that embeds the pieces, one of ``SIMILARITY_MODELS``; empty: the first."""
    piece: int = 0
    """The size of the pieces it groups, in the spec's unit; 0: Chroma's."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> "ClusterOptions":
        return cls("atoms" in flags, values.get("embed", ""), whole_number(values.get("piece", "0"), "piece"))

    def flags(self) -> str:
        return "+atoms" * self.atoms

    def text(self) -> str:
        return f";embed={self.embed}" * bool(self.embed) + f";piece={self.piece}" * bool(self.piece)

    def problem(self, spec) -> str | None:
        return embed_problem("cluster", self.embed) or piece_problem("cluster", self.piece, spec)

    @property
    def embedder(self) -> str:
        return self.embed or SIMILARITY_MODELS[0]

    def piece_size(self, spec) -> int:
        return sized(self.piece, spec)


def split(job: Splitting) -> list:
    if not job.text:
        return []
    return job.pack_groups(job.cluster_groups(job.cluster()))


def embedded(job: Splitting) -> list[str]:
    return job.texts(job.cluster()) if job.text else []


KIND = Kind("cluster", "groups small pieces whose embeddings are alike (Chroma's)", split=split,
            options=ClusterOptions, embedded=embedded, overlap_refusal=REPEATS_NOTHING,
            controls=(ATOMS, EMBED, piece_control("the chunker groups")))
