"""Opening a retriever from its spec: BM25, a dense or hybrid one over an embedder, and a
reranker over any of them; ``shared_retriever`` opens each once a process."""

from __future__ import annotations

import threading

from .ranking import BM25Retriever, DenseRetriever, HybridRetriever, Retriever
from .retriever_spec import RetrieverSpec, parse_retriever


def open_retriever(spec: RetrieverSpec | str | None, *, base_url: str | None = None,
                   cache_folder=None, rerank_url: str | None = None) -> Retriever:
    """A new retriever as ``spec`` names it; its vectors (and a reranker's scores) are kept in
    ``cache_folder`` (None: in memory only). ``base_url`` is the OpenAI-compatible server's
    (default ``$OPENAI_BASE_URL``), ``rerank_url`` the reranker's (``rerank.rerank_url``)."""
    spec = parse_retriever(spec)
    if spec.reranker:
        from .rerank import RerankedRetriever, Reranker

        base = shared_retriever(spec.base, base_url=base_url, cache_folder=cache_folder)
        return RerankedRetriever(spec, base, Reranker(spec.rerank_service, spec.rerank_model, rerank_url,
                                                      cache_folder=cache_folder))
    if spec.kind == "bm25":
        return BM25Retriever()
    from .vectors import Vectors, open_store

    store, warning = open_store(cache_folder)
    dense = DenseRetriever(spec.dense, Vectors(embedder_of(spec, base_url), store, warning))
    return dense if spec.kind == "dense" else HybridRetriever(spec, dense)


_OPENED: dict[tuple[str, str, str, str], Retriever] = {}
_OPENING = threading.Lock()


def shared_retriever(spec: RetrieverSpec | str | None, *, base_url: str | None = None,
                     cache_folder=None, rerank_url: str | None = None) -> Retriever:
    """``open_retriever``, once per process for each spec, server and folder: a model loads
    once, and vectors embedded for one workspace serve every other."""
    spec = parse_retriever(spec)
    key = (str(spec), base_url or "", str(cache_folder or ""), (rerank_url or "") if spec.reranker else "")
    with _OPENING:
        found = _OPENED.get(key)
    if found is None:
        # Opened outside the lock: a reranked retriever opens its base through here.
        opened = open_retriever(spec, base_url=base_url, cache_folder=cache_folder, rerank_url=rerank_url)
        with _OPENING:
            found = _OPENED.setdefault(key, opened)
    return found


def embedder_of(spec: RetrieverSpec, base_url: str | None = None):
    """The embedder behind a dense or hybrid spec."""
    from . import embedders

    if spec.embedder == "wordllama":
        return embedders.WordLlama()
    if spec.embedder == "minilm":
        from .minilm import MiniLM

        return MiniLM()
    if spec.embedder == "model2vec":
        return embedders.Model2Vec(spec.model)
    if spec.embedder == "onnx":
        from .onnx_folder import OnnxFolder

        return OnnxFolder(spec.model)
    from .remote import OpenAIEmbeddings

    return OpenAIEmbeddings(spec.model, base_url)
