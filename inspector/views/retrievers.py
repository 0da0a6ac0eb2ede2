"""Which retrievers a shared link may choose on this server.

``bm25``, ``dense`` and ``hybrid`` need nothing but the bundled model. The others reach outside
the app, so the server's environment must allow them, never the link:

- ``dense:minilm`` (and its hybrid) only when ``CHUNK_INSPECTOR_TRANSFORMERS`` names ``minilm``: a
  transformer on a CPU embeds a corpus in minutes, not seconds, so the operator says whether
  pages may spend the server's processors so;
- ``dense:model2vec:PATH`` and ``dense:onnx:PATH`` (and their hybrids) only for a model folder
  under one of the folders in ``CHUNK_INSPECTOR_MODELS`` (``os.pathsep``-separated); each model
  folder found directly under them is offered as a choice;
- ``dense:openai:MODEL`` only when ``OPENAI_BASE_URL`` names the server to call and
  ``CHUNK_INSPECTOR_EMBED_MODELS`` names the model: a link names an allowed model on it, never a
  URL or another model, and the key stays in the server's environment;
- a reranker (``…|rerank=tei``) only when ``CHUNK_INSPECTOR_RERANKERS`` names it (``;``-separated,
  e.g. ``tei;cohere:rerank-v3.5``) and the server knows where it is (``CHUNK_INSPECTOR_RERANK_URL``,
  or Cohere's and Jina's own address), reordering at most the default 50 chunks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..errors import RetrieverError, SpecError
from ..retrieval.embedders import MODEL2VEC_FILES
from ..retrieval.onnx_folder import GRAPHS
from ..retrieval.remote import ENV_BASE_URL
from ..retrieval.rerank import rerank_url
from ..retrieval.retriever_spec import FOLDER_MODEL, RERANK_DEPTH, RetrieverSpec, parse_retriever
from ..retrieval.spending import SpendPolicy

ENV_MODELS = "CHUNK_INSPECTOR_MODELS"
ENV_RERANKERS = "CHUNK_INSPECTOR_RERANKERS"
ENV_TRANSFORMERS = "CHUNK_INSPECTOR_TRANSFORMERS"
#: The transformer embedders a server may let pages run.
TRANSFORMERS: tuple[str, ...] = ("minilm",)
#: Offered on every server.
BUILT_IN: tuple[str, ...] = ("bm25", "dense", "hybrid")
#: The most model folders offered from the model roots.
MAX_MODEL_CHOICES = 32


def model_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The folders model2vec models may be loaded from (resolved; missing ones left out)."""
    environ = os.environ if environ is None else environ
    found = []
    for root in environ.get(ENV_MODELS, "").split(os.pathsep):
        if root.strip() and os.path.isdir(root):
            found.append(Path(os.path.realpath(root)))
    return tuple(found)


def rerankers(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The rerankers this server offers (each reachable at an address it knows)."""
    environ = os.environ if environ is None else environ
    found = []
    for text in (t.strip() for t in environ.get(ENV_RERANKERS, "").split(";") if t.strip()):
        try:
            spec = RetrieverSpec().reranked(text)
            rerank_url(spec.rerank_service, None, environ)
        except RetrieverError:
            continue
        found.append(spec.reranker)
    return tuple(dict.fromkeys(found))


def _folder_embedder(folder: Path) -> str:
    """Which embedder reads ``folder`` (an exported graph before the safetensors beside it), or ""."""
    if not folder.is_dir():
        return ""
    if (folder / "tokenizer.json").is_file() and any((folder / name).is_file() for name in GRAPHS):
        return "onnx"
    return "model2vec" if all((folder / name).is_file() for name in MODEL2VEC_FILES) else ""


def transformers(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The transformer embedders this server lets pages run (``CHUNK_INSPECTOR_TRANSFORMERS``)."""
    environ = os.environ if environ is None else environ
    named = {t.strip() for t in environ.get(ENV_TRANSFORMERS, "").replace(";", ",").split(",")}
    return tuple(t for t in TRANSFORMERS if t in named)


def retriever_problem(spec: RetrieverSpec, environ: Mapping[str, str] | None = None) -> str | None:
    """Why this server will not run ``spec`` for a page, or None."""
    environ = os.environ if environ is None else environ
    if spec.reranker:
        offered = rerankers(environ)
        if spec.reranker not in offered:
            return (f"this server offers the rerankers {', '.join(offered)} only" if offered else
                    f"this server offers no reranker (set {ENV_RERANKERS})")
        if spec.depth > RERANK_DEPTH:
            return f"a page reranks at most {RERANK_DEPTH} chunks a question, not {spec.depth}"
        return retriever_problem(spec.base, environ)
    if spec.embedder in TRANSFORMERS and spec.embedder not in transformers(environ):
        return (f"this server runs no transformer embedder on pages (set {ENV_TRANSFORMERS}={spec.embedder}): "
                "it embeds a corpus in minutes on a CPU")
    if spec.embedder in FOLDER_MODEL:
        folder = os.path.realpath(spec.model)
        if not any(folder == str(root) or folder.startswith(str(root) + os.sep) for root in model_roots(environ)):
            return (f"model folders are read only under {ENV_MODELS}, which does not hold {spec.model}"
                    if environ.get(ENV_MODELS) else f"this server reads no model folders (set {ENV_MODELS})")
    if spec.embedder == "openai":
        if not environ.get(ENV_BASE_URL, "").strip():
            return f"this server calls no embeddings server (set {ENV_BASE_URL})"
        try:
            return SpendPolicy.from_environment(environ).model_problem(spec.model) or None
        except SpecError as exc:
            return str(exc)
    return None


def checked_retriever(text: str | RetrieverSpec, environ: Mapping[str, str] | None = None) -> RetrieverSpec:
    """The retriever ``text`` names, if this server allows it; ``RetrieverError`` says why not."""
    spec = parse_retriever(text)
    problem = retriever_problem(spec, environ)
    if problem:
        raise RetrieverError(problem)
    return spec


def retriever_choices(environ: Mapping[str, str] | None = None) -> list[str]:
    """The retrievers a page offers: the built-in three, the transformers the server allows, then
    each model folder under the model roots and each embeddings model the server allows, as dense and hybrid."""
    environ = os.environ if environ is None else environ
    choices = list(BUILT_IN)
    for embedder in transformers(environ):  # a transformer's token vectors chunk late too
        choices += [f"dense:{embedder}", f"hybrid:dense:{embedder}", f"dense:{embedder}|late"]
    models = []
    for root in model_roots(environ):
        try:
            entries = sorted(root.iterdir())
        except OSError:
            continue
        for folder in [root, *entries]:
            embedder = _folder_embedder(folder)
            if embedder and retriever_problem(RetrieverSpec("dense", embedder, str(folder)), environ) is None:
                models.append(f"{embedder}:{folder}")  # a link out of the roots is not offered
    for model in models[:MAX_MODEL_CHOICES]:
        choices += [f"dense:{model}", f"hybrid:dense:{model}"] + [f"dense:{model}|late"] * model.startswith("onnx:")
    if environ.get(ENV_BASE_URL, "").strip():
        try:
            allowed = SpendPolicy.from_environment(environ).embed_models
        except SpecError:
            allowed = ()
        for model in allowed[:MAX_MODEL_CHOICES]:
            choices += [f"dense:openai:{model}", f"hybrid:dense:openai:{model}"]
    for reranker in rerankers(environ):
        choices += [f"{base}|rerank={reranker}" for base in BUILT_IN]
    return choices
