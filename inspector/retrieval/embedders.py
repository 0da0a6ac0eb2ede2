"""Embedders: texts in, one vector per text out, offline unless a server is named.

- ``WordLlama``: the model inside the wordllama wheel (256 dimensions), loaded from the
  package folder with downloads disabled, so a fresh machine with no network embeds.
- ``Model2Vec``: a model2vec / potion model folder on disk (``config.json``,
  ``tokenizer.json``, ``model.safetensors``); checked to be a folder before model2vec sees it,
  since model2vec takes any other name for a model hub id and downloads it.
- ``OpenAIEmbeddings`` (``inspector.retrieval.remote``): an OpenAI-compatible server.

Each has a ``model_id``: what the vector cache keys vectors by, so the same text embedded by
another model (or another version of the same model file) is never mistaken for this one's.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RetrieverError
from ..extras import install_hint

if TYPE_CHECKING:
    import numpy as np

#: The files a model2vec folder must hold.
MODEL2VEC_FILES: tuple[str, ...] = ("config.json", "tokenizer.json", "model.safetensors")
#: Texts per call to a local model (bounds the memory of one batch).
LOCAL_BATCH = 256


class Embedder:
    """Something that turns texts into vectors (rows of a float32 array, any length)."""

    model_id: str = ""
    """Names the model and its weights, for the vector cache."""

    cap: int = 0
    """The most tokens of an input the model reads (0: it reports no cap)."""

    runtime: str = ""
    """What computes the vectors and on how many cores, said when a command ranks with it ("": nothing to say)."""

    def embed(self, texts: list[str]) -> np.ndarray:
        """One vector per text, in order."""
        raise NotImplementedError

    def over_cap(self, texts: list[str]) -> list[bool]:
        """Whether the model cuts each text at ``cap`` (what it embeds is then the text's start)."""
        return [False] * len(texts)


class TokenEmbedder(Embedder):
    """An embedder whose model gives a vector per token before pooling them (a transformer):
    what late chunking pools per chunk. ``normalise``: whether its text vectors are scaled to
    length 1."""

    normalise: bool = True

    def token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The vector of each of ``text``'s tokens (special tokens left out) read in context, and
        each token's ``(start, end)`` in the text. A text longer than ``cap`` is read in windows
        that overlap by ``cap // 8`` tokens, each token's vector taken from the window where it
        has the most text before it."""
        raise NotImplementedError


def windowed(ids: list[int], around: tuple[list[int], list[int]], cap: int, run) -> np.ndarray:
    """Token vectors of ``ids`` (without special tokens) read in windows of at most ``cap``
    tokens, each between the special tokens ``around`` (``[CLS]`` and ``[SEP]``: what the
    tokenizer puts around any text); ``run(batch)`` gives a batch of id lists' hidden states
    (batch × tokens × width). Windows overlap by ``cap // 8`` tokens; each token's vector comes
    from the last window that reads it with at least half the overlap before it."""
    import numpy as np

    head, tail = around
    room = max(1, cap - len(head) - len(tail))
    overlap = min(room - 1, cap // 8)
    step = room - overlap
    starts = list(range(0, len(ids) - overlap, step)) if len(ids) > room else [0]
    out = None
    for first in range(0, len(starts), 8):
        chosen = starts[first:first + 8]
        hidden = run([[*head, *ids[a:a + room], *tail] for a in chosen])
        if out is None:
            out = np.zeros((len(ids), hidden.shape[-1]), dtype=np.float32)
        for row, a in enumerate(chosen):
            keep, end = a + (overlap // 2 if a else 0), min(len(ids), a + room)
            out[keep:end] = hidden[row, len(head) + keep - a:len(head) + end - a]
    return out


def special_tokens(tokenizer) -> tuple[list[int], list[int]]:
    """The ids a ``tokenizers.Tokenizer`` puts before and after any text (``[CLS]``, ``[SEP]``)."""
    encoding = tokenizer.encode("x")
    mask, ids = encoding.special_tokens_mask, encoding.ids
    first = next((i for i, special in enumerate(mask) if not special), len(ids))
    last = max((i for i, special in enumerate(mask) if not special), default=len(ids) - 1)
    return list(ids[:first]), list(ids[last + 1:])


def content_tokens(tokenizer, text: str) -> tuple[list[int], np.ndarray]:
    """``text``'s token ids without special tokens, uncut, and each one's ``(start, end)``."""
    import numpy as np

    encoding = tokenizer.encode(text)
    ids, offsets = encoding.ids, encoding.offsets  # each read builds a list: read once
    content = [i for i, special in enumerate(encoding.special_tokens_mask) if not special]
    return [ids[i] for i in content], np.array([offsets[i] for i in content], dtype=np.int64).reshape(-1, 2)


class WordLlama(Embedder):
    """The 256-dimension model shipped inside the ``wordllama`` wheel."""

    def __init__(self) -> None:
        import wordllama

        self.model_id = f"wordllama-{wordllama.__version__}/l2_supercat_256"

    def embed(self, texts: list[str]) -> np.ndarray:
        return _wordllama().embed(texts, norm=True, batch_size=LOCAL_BATCH)


@functools.cache
def _wordllama():
    # One load per process (0.2 s): its weights and tokenizer are files of the package itself.
    # It looks for the tokenizer in tokenizer/ and ships it in tokenizers/; with the package
    # folder as cache and downloads off, it finds both and never reaches for the network.
    try:
        import wordllama
        from wordllama import WordLlama as Loader
    except ImportError as exc:
        raise RetrieverError(f"the bundled dense model needs the wordllama package ({exc})") from exc
    try:
        return Loader.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    except Exception as exc:  # its loader raises whatever its files or pydantic raise
        raise RetrieverError(f"the bundled wordllama model could not be loaded: {exc}") from exc


class Model2Vec(Embedder):
    """A model2vec (potion) model from a folder on disk."""

    def __init__(self, folder: str | Path) -> None:
        path = Path(folder)
        if "\x00" in str(folder):
            raise RetrieverError("a model folder cannot hold a NUL character")
        if not path.is_dir():
            raise RetrieverError(f"no model2vec model folder at {folder} (it is not a folder); "
                                 f"a model2vec folder holds {', '.join(MODEL2VEC_FILES)}")
        missing = [name for name in MODEL2VEC_FILES if not (path / name).is_file()]
        if missing:
            raise RetrieverError(f"{folder} is not a model2vec model: {', '.join(missing)} missing")
        try:
            from model2vec import StaticModel
        except ImportError as exc:
            raise RetrieverError("dense:model2vec needs the model2vec package "
                                 f"({install_hint('model2vec')})") from exc
        digest = hashlib.sha256()
        for name in MODEL2VEC_FILES:
            digest.update(_file_digest(path / name))
        self.model_id = f"model2vec/{digest.hexdigest()[:32]}"
        try:
            self._model = StaticModel.from_pretrained(path, normalize=True)
        except Exception as exc:  # safetensors, tokenizers and json all raise their own
            raise RetrieverError(f"the model2vec model in {folder} could not be loaded: {exc}") from exc

    def embed(self, texts: list[str]) -> np.ndarray:
        # One process: the app's and the CLI's workers are processes already.
        return self._model.encode(texts, batch_size=LOCAL_BATCH, show_progress_bar=False, use_multiprocessing=False)


def _file_digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.digest()
