"""Late chunking (Günther et al.): each chunk's vector is the mean of its document's token
vectors over the chunk's span, the document read whole by the model first, so a chunk's vector
knows the text around it.

A document longer than the model's cap is read in overlapping windows
(``embedders.windowed``). A token belongs to the chunk its first character falls in; the
chunk's prefix (heading path, address, context line) is not read, since the vector comes from
the document's own tokens. Per document, the running sums of its token vectors are kept (a
bounded number of bytes a process), so any chunking of it costs one read of the document and
then two subtractions a chunk.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from ..data_folder import document_hash
from .embedders import TokenEmbedder

if TYPE_CHECKING:
    import numpy as np

#: Bytes of running sums kept a process (the least recently used document goes first).
KEPT_BYTES = 512 * 1024 * 1024


class _Sums:
    """Documents' running sums of token vectors and their tokens' first characters, by model and text."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def of(self, embedder: TokenEmbedder, text: str) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np

        key = (embedder.model_id, document_hash(text))
        with self.lock:
            found = self.kept.get(key)
            if found is not None:
                self.kept.move_to_end(key)
                return found
        vectors, offsets = embedder.token_vectors(text)
        sums = np.zeros((len(vectors) + 1, vectors.shape[1] if vectors.size else 1), dtype=np.float64)
        if len(vectors):
            np.cumsum(vectors, axis=0, dtype=np.float64, out=sums[1:])
        found = (sums, offsets[:, 0].copy())
        with self.lock:
            self.kept[key] = found
            self.size += sums.nbytes + found[1].nbytes
            while self.size > KEPT_BYTES and len(self.kept) > 1:
                _, (old, starts) = self.kept.popitem(last=False)
                self.size -= old.nbytes + starts.nbytes
        return found


_SUMS = _Sums()


def late_vectors(embedder: TokenEmbedder, pool) -> np.ndarray:
    """Each of ``pool``'s (a ``ranking.Pool``) chunks' late-chunked vector: the mean of its span's token vectors in
    its document read whole, scaled to length 1 when the model's text vectors are (a span with
    no token start in it gets a zero vector)."""
    import numpy as np

    texts = pool.table.texts
    out: np.ndarray | None = None
    doc_of, starts, ends = pool.doc_of, pool.starts, pool.ends
    for position, doc_id in enumerate(pool.doc_ids):
        chunks = np.flatnonzero(doc_of == position)
        if not len(chunks):
            continue
        sums, first_chars = _SUMS.of(embedder, texts[doc_id])
        if out is None:
            out = np.zeros((len(pool), sums.shape[1]))
        low = np.searchsorted(first_chars, starts[chunks], side="left")
        high = np.searchsorted(first_chars, ends[chunks], side="left")
        out[chunks] = (sums[high] - sums[low]) / np.maximum(high - low, 1)[:, None]
    if out is None:
        out = np.zeros((len(pool), 1))
    if embedder.normalise:
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return out.astype(np.float32)
