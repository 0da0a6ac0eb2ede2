"""Embedders a test can hold in its hand: a tiny model2vec folder, a counting fake, and an
OpenAI-compatible embeddings server on the loopback address."""

from __future__ import annotations

import hashlib

import numpy as np

from inspector.retrieval.embedders import Embedder
from tests.support.loopback import LoopbackServer

#: The tiny model's vocabulary: words of the sample corpus and of the tests' documents.
TINY_WORDS = ("[UNK]", "[PAD]", "port", "ports", "cluster", "admin", "listener", "replication", "tea", "garden",
              "gardens", "weather", "node", "nodes", "the", "price", "loopback", "binds", "uses")


def hashed_vector(text: str, width: int = 8) -> list[float]:
    """A fixed vector for a text (the same text, the same vector; others differ)."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")
    return np.random.default_rng(seed).standard_normal(width).round(6).tolist()


def write_tiny_model2vec(folder, width: int = 8, seed: int = 0):
    """A model2vec folder with random vectors over ``TINY_WORDS`` and a word-level tokenizer."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(TINY_WORDS)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(seed).standard_normal((len(TINY_WORDS), width)).astype(np.float32)
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


class CountingEmbedder(Embedder):
    """Hashed vectors, counting the texts it was asked for."""

    def __init__(self, model_id: str = "test/hashed", width: int = 8) -> None:
        self.model_id, self.width = model_id, width
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        return np.asarray([hashed_vector(t, self.width) for t in texts], dtype=np.float32)


class EmbeddingServer(LoopbackServer):
    """``POST /v1/embeddings`` on 127.0.0.1, answering hashed vectors in OpenAI's format.

    ``script`` holds answers to give first, one per request, each ``(status, body, headers)``
    (``body`` a dict is sent as JSON); after it runs out, requests are answered normally.
    ``requests`` keeps every request body received."""

    def __init__(self, script=(), width: int = 8) -> None:
        self.script = list(script)
        self.width = width
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        super().__init__(self._answer)

    def _answer(self, path: str, body: dict, headers: dict):
        self.requests.append(body)
        self.headers.append(headers)
        if path != "/v1/embeddings":
            return 404, {"error": {"message": f"no route {path}"}}, {}
        if self.script:
            return self.script.pop(0)
        data = [{"object": "embedding", "index": i, "embedding": hashed_vector(t, self.width)}
                for i, t in reversed(list(enumerate(body["input"])))]  # out of order on purpose
        return 200, {"object": "list", "data": data}, {}
