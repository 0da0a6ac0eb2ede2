"""Rerankers over HTTP, as users run them, and ``RerankedRetriever``: a retriever whose best chunks
a reranker reorders.

Each service's request and answer (the base URL is the server's root; the path is the service's):

==========  =============  ============================================  ===========================
service     path           request                                       answer
==========  =============  ============================================  ===========================
cohere      ``/v2/rerank``  ``{model, query, documents, top_n}``          ``{results: [{index, relevance_score}]}``
jina        ``/v1/rerank``  ``{model, query, documents, top_n}``          the same (with ``usage``)
vllm        ``/v1/rerank``  ``{model, query, documents, top_n}``          the same
tei         ``/rerank``     ``{query, texts, raw_scores, truncate}``      a bare list ``[{index, score}]``
infinity    ``/rerank``     ``{model, query, documents, top_n}``          ``results``, or ``data`` in older versions
==========  =============  ============================================  ===========================

The base URL comes from ``--rerank-url`` or ``CHUNK_INSPECTOR_RERANK_URL`` (Cohere's and Jina's
own addresses by default), the key from ``CHUNK_INSPECTOR_RERANK_KEY`` (else ``COHERE_API_KEY``,
``JINA_API_KEY``). Requests are retried with the embeddings client's back-off, charged to the
server's spending ledger before they are sent, and every score is kept in the data folder by
service, model, question and text, so a second run sends nothing.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import struct
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..data_folder import drop_oldest, rows_by_key, sealed, unsealed, use_wal
from ..errors import InputRefused, RerankServiceError, RetrieverError
from ..limits import read_json
from .ranking import Ask, Pool, Retriever
from .remote import post_json
from .retriever_spec import RetrieverSpec
from .spending import charge

ENV_URL = "CHUNK_INSPECTOR_RERANK_URL"
ENV_KEY = "CHUNK_INSPECTOR_RERANK_KEY"
#: Each service's path, default root and key variable.
PATHS = {"cohere": "/v2/rerank", "jina": "/v1/rerank", "vllm": "/v1/rerank", "tei": "/rerank", "infinity": "/rerank"}
DEFAULT_URLS = {"cohere": "https://api.cohere.com", "jina": "https://api.jina.ai"}
KEY_VARIABLES = {"cohere": "COHERE_API_KEY", "jina": "JINA_API_KEY"}
#: The cache's file in the data folder, and the most it holds before its older half goes.
CACHE_FILE = "rerank-scores.sqlite3"
MAX_CACHE_BYTES = 64 << 20


def rerank_url(service: str, base_url: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The service's endpoint: the root given, else ``$CHUNK_INSPECTOR_RERANK_URL``, else the
    service's own; ``RetrieverError`` when there is none or it is not a web address."""
    environ = os.environ if environ is None else environ
    root = (base_url or environ.get(ENV_URL) or DEFAULT_URLS.get(service, "")).strip().rstrip("/")
    if not root:
        raise RetrieverError(f"a {service} reranker needs its server's address: --rerank-url URL or {ENV_URL}")
    if not root.startswith(("http://", "https://")) or any(ord(c) <= 32 for c in root):
        raise RetrieverError(f"a rerank URL starts with http:// or https:// and holds no spaces, got {root[:80]!r}")
    path = PATHS[service]
    return root if root.endswith(path) else root + path


class Reranker:
    """One rerank service and model: ``scores(question, texts)``, kept in ``cache_folder``."""

    def __init__(self, service: str, model: str, base_url: str | None = None, *, api_key: str | None = None,
                 cache_folder: str | os.PathLike | None = None, attempts: int | None = None,
                 first_pause: float | None = None, sleep: Callable[[float], None] | None = None,
                 timeout: float | None = None) -> None:
        self.service, self.model = service, model
        self.url = rerank_url(service, base_url)
        if api_key is None:
            api_key = os.environ.get(ENV_KEY) or os.environ.get(KEY_VARIABLES.get(service, ""), "")
        self.api_key = api_key
        self.options = {k: v for k, v in (("attempts", attempts), ("first_pause", first_pause), ("sleep", sleep),
                                          ("timeout", timeout)) if v is not None}
        self.cache = _ScoreCache(Path(cache_folder) / CACHE_FILE) if cache_folder is not None else None
        self.requests = 0
        """Requests sent so far (retries included)."""

    def scores(self, question: str, texts: Sequence[str]) -> list[float]:
        """A relevance score for each text, higher first-ranked."""
        keys = [self._key(question, t) for t in texts]
        found = self.cache.get(keys) if self.cache is not None else {}
        wanted = [i for i, key in enumerate(keys) if key not in found]
        if wanted:
            asked = self._ask(question, [texts[i] for i in wanted])
            fresh = {keys[i]: score for i, score in zip(wanted, asked)}
            if self.cache is not None:
                self.cache.put(fresh)
            found = {**found, **fresh}
        return [found[key] for key in keys]

    def _key(self, question: str, text: str) -> str:
        digest = hashlib.blake2b(digest_size=16)
        for part in (self.service, self.url, self.model, question, text):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\x00")
        return digest.hexdigest()

    def _ask(self, question: str, texts: list[str]) -> list[float]:
        def counted() -> None:
            self.requests += 1

        charge("rerank", self.model or self.service, texts)
        if self.service == "tei":
            payload = {"query": question, "texts": texts, "raw_scores": False, "truncate": True}
        else:
            payload = {"model": self.model, "query": question, "documents": texts, "top_n": len(texts)}
        raw = post_json(self.url, payload, api_key=self.api_key, error=RerankServiceError,
                        what=f"rerank {self.model or self.service}", server=f"the {self.service} reranker",
                        on_request=counted, **self.options)
        return self._parsed(raw, len(texts))

    def _parsed(self, raw: bytes, count: int) -> list[float]:
        shape = ("a list of {index, score}" if self.service == "tei" else
                 '{"results": [{"index": i, "relevance_score": s}, ...]}')
        try:
            body = read_json(raw)
            items = body if isinstance(body, list) else body.get("results", body.get("data"))
            scores: dict[int, float] = {}
            for item in items:
                score = item.get("relevance_score", item.get("score"))
                index = item["index"]
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not isinstance(index, int):
                    raise TypeError
                scores[index] = float(score)
        except InputRefused as exc:
            raise RerankServiceError(f"{self.url} answered {exc} for rerank {self.model or self.service}") from None
        except (ValueError, KeyError, TypeError, AttributeError):
            scores = {}
        if sorted(scores) != list(range(count)):
            raise RerankServiceError(f"{self.url} did not answer a score for each of the {count} texts in the "
                                     f"{self.service} reranker's format ({shape})")
        return [scores[i] for i in range(count)]


class _ScoreCache:
    """Scores by key in SQLite, shared by the processes of one data folder: each sealed with its
    key (a damaged or moved row is asked again and counted), the file kept under ``MAX_CACHE_BYTES``."""

    def __init__(self, path: Path) -> None:
        self.path, self._pid = path, -1
        self._connection: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._pid != os.getpid():  # a forked worker opens its own
            self.path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
            use_wal(connection)
            connection.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, plain BLOB NOT NULL, "
                               "written REAL NOT NULL)")
            self._connection, self._pid = connection, os.getpid()
        return self._connection

    def get(self, keys: list[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        try:
            for _, rows in rows_by_key(self._connect(), "scores", keys):
                for key, stored in rows.items():
                    value = unsealed(key, stored, CACHE_FILE)
                    if value is not None and len(value) == 8:
                        found[key] = struct.unpack("<d", value)[0]
        except sqlite3.Error:
            return {}  # a cache that cannot be read only costs requests
        return found

    def put(self, scores: dict[str, float]) -> None:
        now = time.time()
        try:
            connection = self._connect()
            connection.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?)",
                                   [(key, sealed(key, struct.pack("<d", score)), now) for key, score in scores.items()])
            drop_oldest(connection, "scores", MAX_CACHE_BYTES)
        except sqlite3.Error:
            pass


class RerankedRetriever(Retriever):
    """``base``'s best ``spec.depth`` chunks of each question reordered by ``reranker`` (ties keep
    ``base``'s order); below them ``base``'s ranking as it was."""

    def __init__(self, spec: RetrieverSpec, base: Retriever, reranker: Reranker) -> None:
        self.spec, self.base, self.reranker = spec, base, reranker

    @property
    def warning(self) -> str:  # type: ignore[override]
        return self.base.warning

    @property
    def runtime(self) -> str:  # type: ignore[override]
        return self.base.runtime

    def prepare(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> None:
        self.base.prepare(texts, progress)

    def cap(self) -> tuple[str, int]:
        return self.base.cap()

    def over_cap(self, texts: Sequence[str]) -> int:
        return self.base.over_cap(texts)

    def rank(self, asks: Sequence[Ask], pool: Pool, k: int | None) -> list[list[int]]:
        depth = self.spec.depth
        ranked = self.base.rank(asks, pool, None if k is None else max(k, depth))
        if not len(pool):
            return ranked
        texts = pool.texts()
        out = []
        for ask, order in zip(asks, ranked):
            top, rest = order[:depth], order[depth:]
            if top:
                scores = self.reranker.scores(ask.text, [texts[j] for j in top])
                top = [j for _, _, j in sorted(zip((-s for s in scores), range(len(top)), top))]
            whole = top + rest
            out.append(whole if k is None else whole[:k])
        return out
