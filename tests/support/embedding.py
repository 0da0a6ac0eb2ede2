"""Embedders a test can hold in its hand: a tiny model2vec folder, a counting fake, and an
OpenAI-compatible embeddings server on the loopback address."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from inspector.retrieval.embedders import Embedder

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


class EmbeddingServer:
    """``POST /v1/embeddings`` on 127.0.0.1, answering hashed vectors in OpenAI's format.

    ``script`` holds answers to give first, one per request, each ``(status, body, headers)``
    (``body`` a dict is sent as JSON); after it runs out, requests are answered normally.
    ``requests`` keeps every request body received."""

    def __init__(self, script=(), width: int = 8) -> None:
        self.script = list(script)
        self.width = width
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the name http.server calls)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(json.loads(body))
                server.headers.append(dict(self.headers))
                if self.path != "/v1/embeddings":
                    return self.answer(404, {"error": {"message": f"no route {self.path}"}}, {})
                if server.script:
                    return self.answer(*server.script.pop(0))
                texts = server.requests[-1]["input"]
                data = [{"object": "embedding", "index": i, "embedding": hashed_vector(t, server.width)}
                        for i, t in reversed(list(enumerate(texts)))]  # out of order on purpose
                return self.answer(200, {"object": "list", "data": data}, {})

            def answer(self, status, body, headers):
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    def __enter__(self) -> "EmbeddingServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.http.shutdown()
        self.http.server_close()
