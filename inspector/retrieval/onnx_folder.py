"""``OnnxFolder``: any sentence-transformers model folder exported to ONNX, run by onnxruntime.

What ``dense:onnx:PATH`` reads, so a team runs the bge, e5 or gte folder it already has: the
graph (``model.onnx``, or ``onnx/model.onnx`` as sentence-transformers exports it), its
``tokenizer.json``, the pooling its ``1_Pooling/config.json`` names (mean, CLS or max), the
normalisation its ``modules.json`` lists, and the input cap of ``sentence_bert_config.json``
(``max_seq_length``; else the tokenizer's own, else 512). An input longer than the cap is cut by
the tokenizer (its closing special token kept) and counted (``truncated``), never silently.
Nothing is fetched: every file is read from the folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RetrieverError
from ..extras import install_hint
from .embedders import TokenEmbedder, content_tokens, special_tokens, windowed

if TYPE_CHECKING:
    import numpy as np

#: Where an exported graph sits in a model folder, in the order looked for.
GRAPHS: tuple[str, ...] = ("model.onnx", "onnx/model.onnx")
POOLINGS: tuple[str, ...] = ("mean", "cls", "max")
#: The cap when the folder names none.
DEFAULT_CAP = 512
#: Texts per run of the graph.
BATCH = 32


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError) as exc:
        raise RetrieverError(f"{path.name} in the model folder cannot be read: {exc}") from exc


def _pooling(folder: Path) -> str:
    config = _json(folder / "1_Pooling" / "config.json")
    named = [mode for mode in POOLINGS if config.get(f"pooling_mode_{mode}_token" if mode == "cls"
                                                     else f"pooling_mode_{mode}_tokens")]
    if not config:
        return "mean"  # sentence-transformers' default for a folder without a pooling module
    if len(named) != 1:
        raise RetrieverError(f"the model folder's pooling is not one of {', '.join(POOLINGS)}: {config}")
    return named[0]


class OnnxFolder(TokenEmbedder):
    """A sentence-transformers folder with an ONNX graph."""

    def __init__(self, folder: str | Path) -> None:
        path = Path(folder)
        if "\x00" in str(folder) or not path.is_dir():
            raise RetrieverError(f"no model folder at {folder}")
        graph = next((path / name for name in GRAPHS if (path / name).is_file()), None)
        if graph is None or not (path / "tokenizer.json").is_file():
            raise RetrieverError(f"{folder} is not an ONNX model folder: it needs tokenizer.json and one of "
                                 f"{', '.join(GRAPHS)}")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise RetrieverError(f"dense:onnx needs onnxruntime ({install_hint('onnx')})") from exc
        self.pooling = _pooling(path)
        modules = _json(path / "modules.json")
        self.normalise = any(str(m.get("type", "")).endswith("Normalize") for m in modules) if modules else True
        try:
            tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
            self._session = onnxruntime.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime and tokenizers raise their own kinds
            raise RetrieverError(f"the ONNX model in {folder} could not be loaded: {exc}") from exc
        self.cap = int(_json(path / "sentence_bert_config.json").get("max_seq_length")
                       or _json(path / "tokenizer_config.json").get("model_max_length", DEFAULT_CAP))
        self.cap = min(self.cap, 100_000)
        tokenizer.no_padding()
        self._whole = Tokenizer.from_str(tokenizer.to_str())  # late chunking reads whole documents
        self._whole.no_truncation()
        tokenizer.enable_truncation(self.cap)
        self._tokenizer = tokenizer
        self._inputs = [i.name for i in self._session.get_inputs()]
        digest = hashlib.sha256()
        for file in (graph, path / "tokenizer.json"):
            digest.update(hashlib.sha256(file.read_bytes()).digest())
        self.model_id = f"onnx/{self.pooling}/{'norm' if self.normalise else 'raw'}/{digest.hexdigest()[:32]}"
        self.truncated = 0
        """Texts cut at ``cap`` tokens so far."""

    def over_cap(self, texts: list[str]) -> list[bool]:
        return [bool(e.overflowing) for e in self._tokenizer.encode_batch(list(texts))]

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        encodings = self._tokenizer.encode_batch(list(texts))
        self.truncated += sum(bool(e.overflowing) for e in encodings)
        ids = [e.ids for e in encodings]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        out: np.ndarray | None = None
        for first in range(0, len(order), BATCH):
            batch = order[first:first + BATCH]
            vectors = self._run([ids[i] for i in batch])
            if out is None:
                out = np.zeros((len(ids), vectors.shape[1]), dtype=np.float32)
            out[batch] = vectors
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)

    def token_vectors(self, text: str):
        ids, offsets = content_tokens(self._whole, text)
        around = special_tokens(self._whole)
        return windowed(ids, around, self.cap, self._token_states), offsets

    def _token_states(self, batch: list[list[int]]):
        hidden = self._outputs(batch)[1]
        if hidden is None:
            raise RetrieverError("this ONNX model gives one vector a text (sentence_embedding) and no token "
                                 "vectors (last_hidden_state): late chunking needs them")
        return hidden

    def _outputs(self, batch: list[list[int]]):
        """The graph's outputs for a batch of id lists: the text vectors it gives (None when it
        gives token vectors only), the token vectors (None when it gives text vectors only), and
        the mask of real tokens."""
        import numpy as np

        width = max(1, max(len(one) for one in batch))
        tokens = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(tokens)
        for row, one in enumerate(batch):
            tokens[row, :len(one)], mask[row, :len(one)] = one, 1
        given = {"input_ids": tokens, "attention_mask": mask, "token_type_ids": np.zeros_like(tokens)}
        try:
            outputs = self._session.run(None, {name: given[name] for name in self._inputs})
        except KeyError as exc:
            raise RetrieverError(f"the ONNX model asks for an input this embedder cannot give: {exc}") from exc
        names = [o.name for o in self._session.get_outputs()]
        pooled = outputs[names.index("sentence_embedding")].astype(np.float32) \
            if "sentence_embedding" in names else None
        hidden = None
        if "last_hidden_state" in names or pooled is None:
            hidden = outputs[names.index("last_hidden_state") if "last_hidden_state" in names else 0]
            if hidden.ndim != 3:
                raise RetrieverError(f"the ONNX model's output has {hidden.ndim} dimensions, not token vectors")
            hidden = hidden.astype(np.float32)
        return pooled, hidden, mask

    def _run(self, batch: list[list[int]]):
        import numpy as np

        pooled, hidden, mask = self._outputs(batch)
        vectors = pooled if pooled is not None else pool(hidden, mask, self.pooling)
        if self.normalise:
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors


def pool(hidden, mask, mode: str):
    """One vector per text from its token vectors ``hidden`` (batch × tokens × width), the
    padding (``mask`` 0) left out: their mean, the first token's, or each dimension's largest."""
    import numpy as np

    mask = mask.astype(np.float32)[:, :, None]
    if mode == "cls":
        return hidden[:, 0]
    if mode == "max":
        return np.where(mask > 0, hidden, -np.inf).max(1)
    return (hidden * mask).sum(1) / np.maximum(mask.sum(1), 1.0)
