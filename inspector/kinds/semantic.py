"""``semantic``: breaks where neighbouring sentences' embeddings drift apart (LangChain's
SemanticChunker), each run of sentences packed under the budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from .base import Control, Kind, KindOptions, Splitting, whole_number
from .meaning import ATOMS, EMBED, REPEATS_NOTHING, SIMILARITY_MODELS, embed_problem

#: LangChain's SemanticChunker breaks where a gap is above this percentile of the document's gaps.
DEFAULT_THRESHOLD = 95


@dataclass(frozen=True, slots=True)
class SemanticOptions(KindOptions):
    FLAGS: ClassVar[tuple[str, ...]] = ("atoms",)
    KEYS: ClassVar[tuple[str, ...]] = ("embed", "threshold")

    atoms: bool = False
    """Keep code blocks and tables whole (``+atoms``)."""
    embed: str = ""
    """The model that embeds the sentences, one of ``SIMILARITY_MODELS``; empty: the first."""
    threshold: int = 0
    """Break where a gap is above this percentile of the document's gaps (1-99); 0: the default."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> "SemanticOptions":
        return cls("atoms" in flags, values.get("embed", ""), whole_number(values.get("threshold", "0"), "threshold"))

    def flags(self) -> str:
        return "+atoms" * self.atoms

    def text(self) -> str:
        return f";embed={self.embed}" * bool(self.embed) + f";threshold={self.threshold}" * bool(self.threshold)

    def problem(self, spec) -> str | None:
        if not 0 <= self.threshold <= 99:
            return "threshold is the semantic chunker's percentile, a whole number from 1 to 99"
        return embed_problem("semantic", self.embed)

    @property
    def embedder(self) -> str:
        return self.embed or SIMILARITY_MODELS[0]

    @property
    def percentile(self) -> int:
        return self.threshold or DEFAULT_THRESHOLD


def split(job: Splitting) -> list:
    if not job.text:
        return []
    return job.pack_groups(job.semantic_groups(job.semantic_pieces()))


def embedded(job: Splitting) -> list[str]:
    pieces = job.semantic_pieces() if job.text else []
    return job.texts(pieces, neighbours=True) if len(pieces) >= 3 else []


KIND = Kind("semantic", "breaks where neighbouring sentences' embeddings drift apart", split=split,
            options=SemanticOptions, embedded=embedded, overlap_refusal=REPEATS_NOTHING,
            controls=(ATOMS, EMBED, Control("threshold", "Break above percentile", "number",
                                            "A break goes where neighbouring sentences are further apart than this "
                                            "percentile of the document's gaps.", low=1, high=99,
                                            default=DEFAULT_THRESHOLD)))
