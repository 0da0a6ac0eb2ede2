"""``OpenAIEmbeddings``: vectors from an OpenAI-compatible ``/embeddings`` endpoint.

OpenAI itself, or a server speaking its protocol (Ollama, vLLM, TEI, LM Studio): the base URL
comes from ``OPENAI_BASE_URL`` (or the ``base_url`` argument, the CLI's ``--embeddings-url``),
the key from ``OPENAI_API_KEY`` (local servers need none). Texts go in batches; a batch that
fails for a reason that may pass (no connection, a timeout, 429, a 5xx) is retried with
exponential back-off, honouring ``Retry-After``; any other refusal stops at once with the
server's own words. The standard library's HTTP client is enough for one JSON POST.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping

from ..errors import EmbeddingServiceError, InputRefused, RetrieverError
from ..limits import MAX_EMBEDDING_DIMENSIONS, human_size, read_json
from .embedders import Embedder
from .spending import charge

ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Texts per request.
BATCH = 64
#: Tries per batch before giving up.
ATTEMPTS = 5
#: Seconds before the first retry; doubled after each one, never over ``LONGEST_PAUSE``.
FIRST_PAUSE = 0.5
LONGEST_PAUSE = 30.0
#: Seconds one request may take.
TIMEOUT = 60.0
#: The largest answer read (64 texts of 3,072 dimensions are about 4 MB of JSON); an answer for
#: fewer texts may hold ``ANSWER_BYTES_PER_NUMBER`` bytes a dimension up to the widest embedding.
MAX_ANSWER_BYTES = 64 << 20
ANSWER_BYTES_PER_NUMBER = 26
#: Answers that may succeed when asked again.
RETRIED = frozenset({408, 409, 429, 500, 502, 503, 504})


def base_url_of(base_url: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The endpoint's base URL: the argument, else ``$OPENAI_BASE_URL``, else OpenAI's."""
    environ = os.environ if environ is None else environ
    url = (base_url or environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL).strip().rstrip("/")
    if not url.startswith(("http://", "https://")) or any(ord(c) <= 32 for c in url):
        raise RetrieverError(f"an embeddings URL starts with http:// or https:// and holds no spaces, got {url[:80]!r}")
    return url


class OpenAIEmbeddings(Embedder):
    """``model`` on the server at ``base_url`` (see ``base_url_of``)."""

    def __init__(self, model: str, base_url: str | None = None, *, api_key: str | None = None,
                 batch: int = BATCH, attempts: int | None = None, first_pause: float | None = None,
                 timeout: float = TIMEOUT, sleep: Callable[[float], None] = time.sleep) -> None:
        self.model = model
        self.url = base_url_of(base_url) + "/embeddings"
        self.api_key = os.environ.get(ENV_API_KEY, "") if api_key is None else api_key
        # The module's constants are read now, not when the function was defined, so that a
        # caller (or a test) can change them for every client at once.
        self.batch, self.attempts = max(1, batch), max(1, ATTEMPTS if attempts is None else attempts)
        self.first_pause = FIRST_PAUSE if first_pause is None else first_pause
        self.timeout = timeout
        self.sleep = sleep
        self.model_id = f"openai/{self.url}/{model}"
        self.requests = 0
        """Requests sent so far (retries included)."""

    def embed(self, texts: list[str]):
        import numpy as np

        rows: list[list[float]] = []
        for first in range(0, len(texts), self.batch):
            rows += self._batch(texts[first:first + self.batch])
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        widths = {len(row) for row in rows}
        if len(widths) != 1:
            raise EmbeddingServiceError(f"{self.url} answered vectors of different lengths for {self.model}")
        if max(widths) > MAX_EMBEDDING_DIMENSIONS:
            raise EmbeddingServiceError(f"{self.url} answered vectors of {max(widths):,} dimensions for {self.model} "
                                        f"(at most {MAX_EMBEDDING_DIMENSIONS:,})")
        return np.asarray(rows, dtype=np.float32)

    def _batch(self, texts: list[str]) -> list[list[float]]:
        def counted() -> None:
            self.requests += 1

        charge("embeddings", self.model, texts)  # before anything is sent: it may refuse

        largest = min(MAX_ANSWER_BYTES, 65_536 + len(texts) * MAX_EMBEDDING_DIMENSIONS * ANSWER_BYTES_PER_NUMBER)
        raw = post_json(self.url, {"model": self.model, "input": texts}, api_key=self.api_key,
                        attempts=self.attempts, first_pause=self.first_pause, timeout=self.timeout, sleep=self.sleep,
                        error=EmbeddingServiceError, what=self.model, server="the embeddings server",
                        on_request=counted, largest=largest)
        return self._vectors(raw, len(texts))

    def _vectors(self, raw: bytes, count: int) -> list[list[float]]:
        try:
            data = read_json(raw)["data"]
            ordered = sorted(data, key=lambda item: item["index"])
            rows = [item["embedding"] for item in ordered]
            ok = (len(rows) == count and [item["index"] for item in ordered] == list(range(count))
                  and all(isinstance(row, list) and row and all(isinstance(x, (int, float)) for x in row)
                          for row in rows))
        except InputRefused as exc:
            raise EmbeddingServiceError(f"{self.url} answered {exc} in the embeddings of {self.model}; nothing was "
                                        "ranked or kept") from None
        except (ValueError, KeyError, TypeError):
            ok = False
        if not ok:
            raise EmbeddingServiceError(f"{self.url} did not answer {count} embeddings in OpenAI's format "
                                        "({\"data\": [{\"index\": i, \"embedding\": [...]}, ...]})")
        return rows


def post_json(url: str, payload: dict, *, api_key: str = "", attempts: int = ATTEMPTS, first_pause: float = FIRST_PAUSE,
              timeout: float = TIMEOUT, sleep: Callable[[float], None] = time.sleep,
              error: type[Exception] = EmbeddingServiceError, what: str = "the request", server: str = "the server",
              on_request: Callable[[], None] | None = None, largest: int = MAX_ANSWER_BYTES) -> bytes:
    """POST ``payload`` as JSON to an OpenAI-compatible ``url`` and return the answer's bytes.
    A failure that may pass (no connection, a timeout, ``RETRIED``) is tried again after a
    pause that doubles (``Retry-After`` honoured); any other refusal raises ``error`` at once
    with the server's own words, and so does the last failed attempt."""
    body = json.dumps(payload).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    pause, reason = first_pause, ""
    for attempt in range(max(1, attempts)):
        if attempt:
            sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)
        if on_request:
            on_request()
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                raw = answer.read(largest + 1)
        except urllib.error.HTTPError as exc:
            said = _said(exc)
            if exc.code not in RETRIED:
                raise error(f"{url} refused {what} with HTTP {exc.code}: {said}") from exc
            reason = f"HTTP {exc.code}: {said}"
            pause = max(pause, min(_retry_after(exc), LONGEST_PAUSE))
            continue
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
            reason = str(getattr(exc, "reason", exc)) or type(exc).__name__
            continue
        if len(raw) > largest:
            raise error(f"{url} answered more than {human_size(largest)} for {what}")
        return raw
    raise error(f"{server} at {url} did not answer after {max(1, attempts)} attempts ({reason})")


def _said(error: urllib.error.HTTPError) -> str:
    """The server's message, short."""
    try:
        text = error.read(4096).decode("utf-8", "replace")
        found = json.loads(text).get("error", text)
        text = found.get("message", str(found)) if isinstance(found, dict) else str(found)
    except (ValueError, AttributeError, OSError):
        text = str(error.reason)
    return " ".join(text.split())[:200] or "no message"


def _retry_after(error: urllib.error.HTTPError) -> float:
    try:
        return max(0.0, float(error.headers.get("Retry-After", "0")))
    except (TypeError, ValueError):
        return 0.0
