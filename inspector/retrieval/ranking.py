"""Retrievers: rank a pool of chunks for a batch of questions, by BM25, by dense vectors, or both.

Every retriever answers ``rank(asks, pool, k)``: per question, the positions (into the pool)
of its ``k`` best chunks, best first (``k=None``: every chunk it ranks). A question carries
its text (what a dense retriever embeds) and its terms (what BM25 scores).

- ``BM25Retriever``: the article's BM25 (``bm25.BM25``), bit-identical to it in seed mode;
  it ranks only chunks sharing a term with the question.
- ``DenseRetriever``: cosine similarity of unit vectors (``vectors.Vectors``), each vector put
  on a grid of 2**-24 first (``on_grid``) so that every score is a whole number computed exactly:
  a pool ranked whole and one ranked in parts (the streamed engine's batches) score each chunk
  alike; every chunk is ranked; ties go to the earlier chunk.
- ``HybridRetriever``: reciprocal rank fusion of the two full rankings,
  ``score = 1/(RRF_K + rank_bm25) + 1/(RRF_K + rank_dense)`` with ranks from 1 and
  ``RRF_K = 60`` (Cormack, Clarke and Büttcher, 2009); a chunk BM25 does not rank gets only
  the dense term; ties go to the earlier chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..errors import RetrieverError
from .bm25 import Ranked
from .embedders import TokenEmbedder
from .retriever_spec import RetrieverSpec
from .terms import terms_of

if TYPE_CHECKING:
    from .terms import TermTable
    from .vectors import Vectors

RRF_K = 60
#: Scores computed at once by a dense ranking (questions × chunks), to bound its memory.
_SCORE_CELLS = 1 << 22
#: Dense vectors' components are whole multiples of 1/GRID (``on_grid``).
GRID = 1 << 24


class Ask(Protocol):
    """A question as retrievers see it (``probe.Query`` is one too)."""

    @property
    def text(self) -> str: ...

    @property
    def words(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, slots=True)
class Question:
    """A question written by a person: its text and, for BM25, its distinct terms in order."""

    text: str
    words: tuple[str, ...]

    @classmethod
    def of(cls, text: str, table: "TermTable | None" = None) -> "Question":
        """A question with its terms as ``table`` finds them (the article's terms without one)."""
        return cls(text, tuple(dict.fromkeys(table.terms_of(text) if table is not None else terms_of(text))))


@dataclass(frozen=True, slots=True, eq=False)
class Pool:
    """The chunks to rank: chunk ``j`` is ``[starts[j], ends[j])`` of document
    ``doc_ids[doc_of[j]]`` (text in ``table.texts``), embedded with ``prefixes[j]``."""

    table: TermTable
    doc_ids: Sequence[str]
    doc_of: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    prefixes: Sequence[str] | None = None

    @classmethod
    def of_chunks(cls, chunks, table: TermTable) -> "Pool":
        """A pool of ``Chunk`` objects (in corpus order)."""
        positions: dict[str, int] = {}
        doc_of = np.fromiter((positions.setdefault(c.doc_id, len(positions)) for c in chunks), np.int64, len(chunks))
        starts = np.fromiter((c.start for c in chunks), np.int64, len(chunks))
        ends = np.fromiter((c.end for c in chunks), np.int64, len(chunks))
        prefixes = [c.prefix for c in chunks]
        return cls(table, list(positions), doc_of, starts, ends, prefixes if any(prefixes) else None)

    def __len__(self) -> int:
        return len(self.starts)

    def texts(self) -> list[str]:
        """What each chunk embeds: its prefix and its span's text."""
        texts, ids = self.table.texts, self.doc_ids
        spans = zip(self.doc_of.tolist(), self.starts.tolist(), self.ends.tolist())
        plain = [texts[ids[d]][a:b] for d, a, b in spans]
        return plain if self.prefixes is None else [p + t for p, t in zip(self.prefixes, plain)]

    def postings(self, wanted: frozenset[str]):
        """BM25's statistics over the pool for the ``wanted`` terms (``TermTable.span_postings``)."""
        bases = np.array([self.table.base[d] for d in self.doc_ids], dtype=np.int64)[self.doc_of]
        return self.table.span_postings(bases + self.starts, bases + self.ends, self.prefixes, wanted)


class Retriever:
    """Ranks a pool's chunks for questions; ``spec`` names it."""

    spec: RetrieverSpec = RetrieverSpec()
    warning: str = ""
    """What the user should know about this run (an embedding cache that could not be used)."""

    runtime: str = ""
    """What computes its vectors (its embedder's ``runtime``; "": nothing to say)."""

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        raise NotImplementedError

    def scored(self, ask: Ask, pool: Pool, k: int) -> list[tuple[int, float | None]]:
        """``ask``'s best ``k`` chunks as ``rank`` orders them, each with the score that placed it
        (None where the retriever keeps no score it can show: a store's own search)."""
        return [(j, None) for j in self.rank([ask], pool, k)[0]]

    def prepare(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> None:
        """Do now what ranking these texts (chunks, questions) will need: a dense retriever embeds
        them, so that forked workers inherit the vectors and one progress bar shows the wait."""

    def cap(self) -> tuple[str, int]:
        """The model whose input cap cuts texts, and the cap in tokens (``("", 0)``: nothing is cut)."""
        return "", 0

    def over_cap(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` the model reads only the start of (cut at ``cap``)."""
        return 0


class BM25Retriever(Retriever):
    """The article's BM25 (k1 = 1.2, b = 0.75) over the question's terms."""

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        from .bm25 import BM25

        n = len(pool)
        if not asks or not n:
            return [[] for _ in asks]
        lens, postings = pool.postings(frozenset(w for a in asks for w in a.words))
        return BM25(lens, postings).top_many([tuple(a.words) for a in asks], n if k is None else k)

    def scored(self, ask: Ask, pool: Pool, k: int) -> list[tuple[int, float | None]]:
        from .bm25 import BM25

        if not len(pool):
            return []
        lens, postings = pool.postings(frozenset(ask.words))
        ranked = BM25(lens, postings).ranked([tuple(ask.words)], k)[0]
        return [(int(j), float(score)) for j, score in zip(ranked.chunks, ranked.scores)]


class DenseRetriever(Retriever):
    """Cosine similarity between the question's vector and each chunk's."""

    def __init__(self, spec: RetrieverSpec, vectors: Vectors) -> None:
        self.spec, self.vectors = spec, vectors
        self.progress: Callable[[int, int], None] | None = None
        """Called as ``(done, total)`` while chunks are embedded (the CLI's progress bar)."""

    @property
    def warning(self) -> str:  # type: ignore[override]
        return self.vectors.warning

    @property
    def runtime(self) -> str:  # type: ignore[override]
        return self.vectors.embedder.runtime

    def prepare(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> None:
        if not self.spec.late:  # late chunking embeds documents, when a pool is ranked
            self.vectors.of(list(dict.fromkeys(texts)), progress)

    def cap(self) -> tuple[str, int]:
        embedder = self.vectors.embedder
        return (embedder.model_id, embedder.cap) if embedder.cap and not self.spec.late else ("", 0)

    def over_cap(self, texts: Sequence[str]) -> int:
        return sum(self.vectors.embedder.over_cap(list(texts))) if self.cap()[1] else 0

    def pool_grid(self, pool: Pool, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """The pool's chunks' unit vectors on the grid: each chunk's text embedded, or, chunking
        late, pooled from its document's token vectors (nothing cut at the cap: documents are
        read in windows)."""
        if not self.spec.late:
            return self.grid(pool.texts(), progress)
        from .late import late_vectors

        embedder = self.vectors.embedder
        if not isinstance(embedder, TokenEmbedder):
            raise RetrieverError(f"{self.spec}: {embedder.model_id or 'this model'} gives no token vectors")
        return on_grid(late_vectors(embedder, pool))

    def grid(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """The texts' unit vectors on the grid (``on_grid``)."""
        return on_grid(self.vectors.of(list(texts), progress))

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        if not asks or not len(pool):
            return [[] for _ in asks]
        questions, chunks = self.grid([a.text for a in asks]), self.pool_grid(pool, self.progress)
        return [ranked.chunks.tolist() for ranked in dense_ranked(questions, chunks, k)]

    def scored(self, ask: Ask, pool: Pool, k: int) -> list[tuple[int, float | None]]:
        if not len(pool):
            return []
        ranked = dense_ranked(self.grid([ask.text]), self.pool_grid(pool, self.progress), k)[0]
        # Grid vectors are unit vectors scaled by GRID: their dot product over GRID² is the cosine.
        return [(int(j), float(score) / GRID ** 2) for j, score in zip(ranked.chunks, ranked.scores)]


def on_grid(unit: np.ndarray) -> np.ndarray:
    """Unit vectors with each component rounded to a whole multiple of ``1 / GRID``, scaled by
    ``GRID``, in float64. A dot product of two is then a whole number of magnitude at most about
    2**48 (Cauchy-Schwarz bounds every partial sum too), which float64 holds exactly: any
    summation order, any BLAS kernel and any split of the chunks give the same score."""
    return np.rint(np.asarray(unit, dtype=np.float64) * GRID)


def dense_ranked(questions: np.ndarray, chunks: np.ndarray, k: int | None) -> list[Ranked]:
    """Each question's best ``k`` chunks (None: all) by the dot product of grid vectors, best
    first, ties to the earlier chunk; with their scores (``seen`` is zero: nothing else orders them)."""
    n = len(chunks)
    depth = n if k is None else min(k, n)
    out: list[Ranked] = []
    step = max(1, _SCORE_CELLS // max(n, 1))
    zeros = np.zeros(depth, dtype=np.int64)
    for first in range(0, len(questions), step):
        scores = questions[first:first + step] @ chunks.T
        order = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
        out += [Ranked(row[top], zeros, top) for row, top in zip(scores, order)]
    return out


class HybridRetriever(Retriever):
    """Reciprocal rank fusion of BM25 (``bm25``: the article's, ranked here by default) and a
    dense retriever."""

    def __init__(self, spec: RetrieverSpec, dense: DenseRetriever, bm25: BM25Retriever | None = None) -> None:
        self.spec, self.dense, self.bm25 = spec, dense, bm25 or BM25Retriever()

    @property
    def warning(self) -> str:  # type: ignore[override]
        return self.dense.warning

    @property
    def runtime(self) -> str:  # type: ignore[override]
        return self.dense.runtime

    def prepare(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> None:
        self.dense.prepare(texts, progress)

    def cap(self) -> tuple[str, int]:
        return self.dense.cap()

    def over_cap(self, texts: Sequence[str]) -> int:
        return self.dense.over_cap(texts)

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        n = len(pool)
        if not asks or not n:
            return [[] for _ in asks]
        depth = n if k is None else min(k, n)
        return [np.argsort(-score, kind="stable")[:depth].tolist() for score in self._fused(asks, pool)]

    def scored(self, ask: Ask, pool: Pool, k: int) -> list[tuple[int, float | None]]:
        if not len(pool):
            return []
        score = self._fused([ask], pool)[0]
        return [(int(j), float(score[j])) for j in np.argsort(-score, kind="stable")[:k]]

    def _fused(self, asks: Sequence[Ask], pool: Pool) -> list[np.ndarray]:
        """Per ask, every chunk's fused score."""
        n = len(pool)
        out = []
        for by_terms, by_vectors in zip(self.bm25.rank(asks, pool, None), self.dense.rank(asks, pool, None)):
            ranks = np.zeros((2, n), dtype=np.int64)
            for row, ranking in zip(ranks, (by_terms, by_vectors)):
                row[np.asarray(ranking, dtype=np.int64)] = np.arange(1, len(ranking) + 1)
            out.append(fused(*ranks))
        return out


def fused(lexical: np.ndarray, dense: np.ndarray) -> np.ndarray:
    """Reciprocal rank fusion of chunks' ranks (from 1; 0: BM25 does not rank the chunk), in
    float64, the dense term first."""
    return 1.0 / (RRF_K + dense.astype(np.float64)) + np.where(
        lexical > 0, 1.0 / (RRF_K + lexical.astype(np.float64)), 0.0)
