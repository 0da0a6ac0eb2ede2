"""The chunkers of the semantic-chunking debate, cutting where an embedder finds the meaning changes.

``semantic`` does what LangChain's SemanticChunker does: the text is cut into sentences at
``.``, ``?`` or ``!`` followed by whitespace; each sentence is embedded together with its two
neighbours (LangChain's ``buffer_size=1``); a break goes wherever the cosine distance between
neighbouring windows is above the spec's percentile of the document's distances (95 by
default, LangChain's). Unlike LangChain's it is capped: the sentences between two breaks are
packed under the budget, an over-budget sentence cut at separators.

``cluster`` does what Chroma's ClusterSemanticChunker does: the text is cut into pieces of
``piece_size`` (50 tokens by default) at Chroma's separators, each piece is embedded, and
dynamic programming picks the chunks that maximise the sum, over chunks, of their pieces'
pairwise similarities less the document's mean similarity, a chunk holding at most
``budget // piece_size`` pieces. Unlike Chroma's code a chunk never holds more (its programme
starts every best score at 0, so when every reward is negative a chunk runs back to the
document's start), and a chunk must also fit the budget.

Neither keeps code blocks or tables whole by itself: that is what the survival table should
show. With ``+atoms`` they are atomic pieces, as the structured splitter keeps them (an
over-budget one cut between rows or lines), and no break falls inside one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..model import Span
from ..retrieval.opening import embedder_of
from ..retrieval.retriever_spec import RetrieverSpec
from .packing import Piece, Sizer, pack
from .pieces import split_recursive, structured_pieces

if TYPE_CHECKING:
    import numpy as np

#: LangChain's sentence ends: ``.``, ``?`` or ``!``, then whitespace (which stays with the sentence).
SENTENCE_END = re.compile(r"[.?!]\s+")
#: Chroma's separators for the cluster chunker's pieces (its last, "", is a cut by size).
CLUSTER_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ".", "?", "!", " ")


@functools.cache
def similarity_embedder(model: str):
    """The embedder a similarity chunker uses, loaded once a process."""
    return embedder_of(RetrieverSpec("dense", model))


def sentences(text: str, start: int, end: int) -> list[Span]:
    """``text[start:end]`` cut after each sentence end, tiling it."""
    bounds = [m.end() for m in SENTENCE_END.finditer(text, start, end) if m.end() < end]
    return list(zip([start, *bounds], [*bounds, end]))


def semantic_pieces(text, spec, analysis, sizer, prefix_at) -> list[Piece]:
    """The semantic chunker's sentences, tiling the text; with ``+atoms`` fences and tables whole."""
    if spec.options.atoms:
        return structured_pieces(text, spec, analysis, sizer, prefix_at, units=sentences(text, 0, len(text)))
    return [Piece(a, b) for a, b in sentences(text, 0, len(text))]


def semantic_groups(text: str, pieces: list[Piece], percentile: int,
                    embed: Callable[[list[str]], np.ndarray]) -> list[list[Piece]]:
    """Consecutive pieces between the breaks: where neighbouring windows (a piece with the one
    before and after it) are further apart than ``percentile`` of the text's distances."""
    import numpy as np

    if len(pieces) < 3:
        return [pieces]
    vectors = unit_rows(embed(neighbourhoods(text, pieces)))
    distances = 1.0 - np.einsum("ij,ij->i", vectors[:-1], vectors[1:])
    threshold = np.percentile(distances, percentile)
    breaks = [i + 1 for i in np.flatnonzero(distances > threshold).tolist()]
    return [pieces[a:b] for a, b in zip([0, *breaks], [*breaks, len(pieces)])]


def neighbourhoods(text: str, pieces: list[Piece]) -> list[str]:
    """Each piece with the one before and the one after it (LangChain's ``buffer_size=1``)."""
    last = len(pieces) - 1
    return [text[pieces[max(0, i - 1)].start:pieces[min(last, i + 1)].end] for i in range(len(pieces))]


def cluster_pieces(text, spec, analysis, sizer, prefix_at) -> list[Piece]:
    """The cluster chunker's pieces: the text cut at Chroma's separators and merged up to the
    piece size; with ``+atoms`` a fence or table is never split between pieces."""
    n = len(text)
    size = spec.options.piece_size(spec)
    if spec.options.atoms:
        small = structured_pieces(text, spec, analysis, sizer, prefix_at,
                                  units=split_recursive(text, 0, n, CLUSTER_SEPARATORS, size, sizer))
    else:
        small = [Piece(a, b) for a, b in split_recursive(text, 0, n, CLUSTER_SEPARATORS, size, sizer)]
    merged = pack(small, size, sizer, separators=CLUSTER_SEPARATORS)
    atomic = [(p.start, p.end) for p in small if p.atomic]
    out = []
    k = 0
    for p in merged:
        while k < len(atomic) and atomic[k][1] <= p.start:
            k += 1
        out.append(Piece(p.start, p.end, atomic=k < len(atomic) and atomic[k][0] < p.end))
    return out


def cluster_ends(pieces: list[Piece], vectors: np.ndarray, budget: int, most: int, sizer: Sizer) -> list[int]:
    """Where the best clustering's chunks end (piece indexes, exclusive): each chunk ``most``
    pieces at most and within ``budget`` (one piece alone always allowed), the sum over chunks
    of their pieces' pairwise similarity less the mean similarity the largest."""
    import numpy as np

    n = len(pieces)
    most = max(1, min(most, n))
    if n < 2:
        return [n]
    total = vectors.sum(axis=0)
    pairs = n * (n - 1) / 2
    mean = (float(total @ total) - float(np.einsum("ij,ij->", vectors, vectors))) / 2 / pairs
    # near[e, d]: similarity of piece e with piece e - d, less the mean (d = 1 .. most - 1).
    near = np.zeros((n, most))
    for d in range(1, most):
        near[d:, d] = np.einsum("ij,ij->i", vectors[d:], vectors[:-d]) - mean
    reach = np.cumsum(near, axis=1)
    # reward[e, size]: the pairwise sum (both orders) of the chunk of ``size`` pieces ending at e.
    reward = np.zeros((n, most + 1))
    for size in range(2, most + 1):
        reward[size - 1:, size] = reward[size - 2:-1, size - 1] + 2 * reach[size - 1:, size - 1]
    best = [0.0] * (n + 1)
    start = [0] * (n + 1)
    for e in range(1, n + 1):
        best[e], start[e] = best[e - 1] + reward[e - 1, 1], e - 1
        for size in range(2, min(most, e) + 1):
            s = e - size
            if sizer.size(pieces[s].start, pieces[e - 1].end) > budget:
                break
            score = best[s] + reward[e - 1, size]
            if score > best[e]:
                best[e], start[e] = score, s
    ends = []
    e = n
    while e > 0:
        ends.append(e)
        e = start[e]
    return ends[::-1]


def unit_rows(vectors) -> np.ndarray:
    """Rows scaled to length 1 (a zero row, from a text with no known word, stays zero)."""
    import numpy as np

    rows = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


