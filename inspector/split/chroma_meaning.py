"""Chroma's chunkers by meaning, ``ClusterSemanticChunker`` and ``KamradtModifiedChunker``, as
Chroma's code runs them, on spans.

Both cut the text into ``RecursiveTokenChunker``'s pieces of 50 units (``chroma.recursive_spans``),
embed them and group consecutive pieces; a chunk runs from its first piece's start to its last
piece's end. Chroma joins a group's pieces with one space and its evaluation finds that text back
in the document whatever the whitespace between words, so the span is where it lands.

- ``cluster_ends``: the pieces' similarity matrix (the embedder's vectors as they come, dot
  products) less the mean of its upper triangle, the diagonal zeroed; dynamic programming picks
  groups of at most ``most`` pieces maximising the sum of their submatrices. Chroma's programme
  starts every best score at 0, so where every reward is negative a group runs back to the
  document's first piece, past ``most``: kept, as Chroma's chunks are.
- ``kamradt_ends``: each piece embedded with the three before and after it (joined by spaces),
  cosine distances between neighbours; a threshold bisected until at most (the pieces' summed
  size) // ``average`` distances lie above it; a cut after each.

The sums and comparisons are Chroma's own numpy calls in its order, so the same vectors give the
same groups to the last tie.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

#: Both chunkers cut their pieces at 50 units (Chroma's ``min_chunk_size``).
PIECE = 50
#: ``KamradtModifiedChunker`` embeds each piece with this many pieces on each side.
KAMRADT_BUFFER = 3


def cluster_ends(vectors: np.ndarray, most: int) -> list[int]:
    """Where ``ClusterSemanticChunker``'s groups end (piece indexes, exclusive)."""
    import numpy as np

    n = len(vectors)
    if n == 0:
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    matrix = np.dot(matrix, matrix.T)
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # one piece: the mean of nothing
        mean = np.mean(matrix[np.triu_indices(n, k=1)])
    matrix = matrix - mean
    np.fill_diagonal(matrix, 0)
    best = np.zeros(n)
    first = np.zeros(n, dtype=int)
    for i in range(n):
        for size in range(1, most + 1):
            if i - size + 1 >= 0:
                reward = np.sum(matrix[i - size + 1:i + 1, i - size + 1:i + 1])
                if i - size >= 0:
                    reward += best[i - size]
                if reward > best[i]:
                    best[i] = reward
                    first[i] = i - size + 1
    ends = []
    i = n - 1
    while i >= 0:
        ends.append(i + 1)
        i = int(first[i]) - 1
    return ends[::-1]


def kamradt_windows(texts: Sequence[str]) -> list[str]:
    """Each piece's text with the ``KAMRADT_BUFFER`` pieces before and after it, as Chroma joins them."""
    out = []
    for i, text in enumerate(texts):
        before = "".join(texts[j] + " " for j in range(i - KAMRADT_BUFFER, i) if j >= 0)
        after = "".join(" " + texts[j] for j in range(i + 1, i + 1 + KAMRADT_BUFFER) if j < len(texts))
        out.append(before + text + after)
    return out


def kamradt_ends(vectors: np.ndarray, total: int, average: int) -> list[int]:
    """Where ``KamradtModifiedChunker``'s groups end (piece indexes, exclusive), from the
    vectors of ``kamradt_windows`` and the pieces' summed size."""
    import numpy as np

    n = len(vectors)
    if n == 0:
        return []
    matrix = np.asarray(vectors, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    similarity = np.dot(matrix, matrix.T)
    distances = [1 - similarity[i, i + 1] for i in range(n - 1)]
    cuts = total // average
    low, high = 0.0, 1.0
    threshold = 0.5
    array = np.array(distances)
    while high - low > 1e-6:
        threshold = (high + low) / 2.0
        if np.sum(array > threshold) > cuts:
            low = threshold
        else:
            high = threshold
    ends = [i + 1 for i, distance in enumerate(distances) if distance > threshold]
    if not ends or ends[-1] < n:
        ends.append(n)
    return ends
