"""What ``tune`` finds: each configuration as it was measured (``Candidate``), how many chunk
texts their indexes share (``EmbeddingShare``), and the ranked result with its verdict and
recommendation (``TuneResult``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..confidence import Interval
from ..reports.decide import Decision
from ..retrieval.vectors import DIGEST_SIZE
from ..spec import SplitterSpec


@dataclass(frozen=True, slots=True)
class Candidate:
    """One configuration as ``tune`` measured it."""

    spec: SplitterSpec
    score: Interval | None
    """The objective with its interval (None when the candidate was left out before scoring)."""

    hits: tuple[int, ...] = ()
    """Per question (or query) asked: 1 answered, 0 not."""

    sampled: bool = False
    """Scored on the sample of questions only (below the best third there)."""

    chunks: int = 0
    embedded: int = 0
    """Tokens embedded to build the index, in the cap's unit (o200k without one): every chunk with
    its prefix, and what the splitter itself embeds (``splitter_embedded``)."""

    splitter_embedded: int = 0
    """The part of ``embedded`` the semantic and cluster chunkers embed to choose their cuts."""

    duplication: float = 0.0
    """Characters in chunks over characters in the corpus (overlap repeats text)."""

    ctx_tokens: float = 0.0
    """Mean context of the probe's five chunks per query (the no-golden objective's cost)."""

    over_cap: int = 0
    """Chunks longer than the embedder's cap (it would cut them)."""

    excluded: str = ""
    """Why the candidate was left out of the ranking, or empty."""

    front: bool = False
    """On the Pareto front of the objective against tokens embedded."""

    whole: Interval | None = None
    """With the user's own questions: the share of them whose five chunks hand the model no
    fragment of an atom (a table, a code block, a figure's sentence cut in two)."""

    asked_tokens: float = 0.0
    """With the user's own questions: the mean context of their five chunks."""

    embedded_texts: bytes = field(default=b"", compare=False, repr=False)
    """With a retriever that embeds chunks: the key each chunk's vector is kept by (``embedded_digests``),
    for ``EmbeddingShare``; let go once the search has settled."""

    @property
    def label(self) -> str:
        return self.spec.label

    def as_dict(self) -> dict:
        return {"spec": str(self.spec), "splitter": self.label,
                "score": self.score.as_dict() if self.score else None, "sampled": self.sampled,
                "chunks": self.chunks, "embedded": self.embedded, "splitter_embedded": self.splitter_embedded,
                "duplication": self.duplication,
                "ctx_tokens": self.ctx_tokens, "over_cap": self.over_cap, "excluded": self.excluded,
                "front": self.front, "answered": "".join(map(str, self.hits)),
                **({"whole": self.whole.as_dict(), "asked_tokens": self.asked_tokens} if self.whole else {})}


@dataclass(frozen=True, slots=True)
class EmbeddingShare:
    """What the candidates' indexes embed, counted by text: vectors are kept by text, so a chunk
    text two candidates share (a chunk that neither budget nor overlap moved) is embedded once."""

    indexes: int
    """Candidates whose index was built (not left out for their duplication)."""

    texts: int
    """Chunk texts over every candidate's index, each index counted apart."""

    distinct: int
    """Of them, different texts: what is embedded, at most."""

    @property
    def shared(self) -> int:
        """Texts an index found embedded for another candidate's."""
        return self.texts - self.distinct

    @classmethod
    def of(cls, candidates: Iterable[Candidate]) -> "EmbeddingShare | None":
        """The share among ``candidates`` (None when none embeds its chunks)."""
        import numpy as np

        built = [c.embedded_texts for c in candidates if c.embedded_texts]
        if not built:
            return None
        found = np.frombuffer(b"".join(built), dtype=f"V{DIGEST_SIZE}")
        return cls(len(built), len(found), len(np.unique(found)))

    def as_dict(self) -> dict:
        return {"indexes": self.indexes, "texts": self.texts, "distinct": self.distinct, "shared": self.shared}


@dataclass(frozen=True, slots=True)
class TuneResult:
    """The ranked candidates, the verdict and the recommendation."""

    objective: str
    """``recall@B`` or ``answer@5``."""

    context: int
    unit: str
    """What ``embedded`` counts."""

    questions: int
    """Questions (or probe queries) the full rung asks."""

    sample: int
    """Questions of the sample rung (0: every candidate was asked every question)."""

    candidates: tuple[Candidate, ...]
    """Ranked: scored on every question (best first), then the sampled, then the left out."""

    decision: Decision | None
    recommended: SplitterSpec | None
    sources: tuple[str, ...] = field(default=())
    """The golden sets asked (names), or empty for the probe."""

    asked: str = ""
    """The user's own questions (their file's name), or empty."""

    embedding: EmbeddingShare | None = None
    """With a retriever that embeds chunks: how many chunk texts the candidates share."""

    @property
    def ranked(self) -> tuple[Candidate, ...]:
        """The candidates scored on every question, best first."""
        return tuple(c for c in self.candidates if c.score is not None and not c.sampled and not c.excluded)

    @property
    def winners(self) -> tuple[str, ...]:
        """The best row and those tied with it (labels)."""
        return (self.decision.best, *self.decision.tied) if self.decision else ()

    def as_dict(self) -> dict:
        return {"objective": self.objective, "context": self.context, "unit": self.unit,
                "questions": self.questions, "sample": self.sample, "sources": list(self.sources),
                **({"asked": self.asked} if self.asked else {}),
                "recommended": str(self.recommended) if self.recommended else None,
                "winners": list(self.winners), "decision": self.decision.as_dict() if self.decision else None,
                "candidates": [c.as_dict() for c in self.candidates],
                **({"embedding": self.embedding.as_dict()} if self.embedding else {})}
