"""``RetrieverSpec``: which retriever ranks chunks, as a frozen value with a short string form.

The string form is what URLs, the CLI and reports carry, like a splitter's spec::

    bm25                        the article's BM25 (the default; seed mode's tables use it)
    dense                       the embedded model shipped inside the wordllama wheel
    dense:minilm                all-MiniLM-L6-v2, the articles' embedder, from its wheel (offline)
    dense:model2vec:PATH        a model2vec / potion model folder on disk
    dense:onnx:PATH             a sentence-transformers folder exported to ONNX
    dense:openai:MODEL          an OpenAI-compatible embeddings server (``OPENAI_BASE_URL``)
    hybrid                      reciprocal rank fusion of BM25 and ``dense``
    hybrid:dense:model2vec:PATH (or any dense spec after ``hybrid:``)

``dense:wordllama`` and ``hybrid:dense`` are read as ``dense`` and ``hybrid``.

A dense or hybrid retriever over a model that gives token vectors (``minilm``, ``onnx``) may
chunk late (``|late``): each chunk's vector is pooled from its document read whole
(``retrieval.late``)::

    dense:minilm|late           dense:onnx:PATH|late           hybrid:dense:onnx:PATH|late

Any of them may be followed by a reranker that reorders its best ``DEPTH`` chunks (default 50)::

    bm25|rerank=cohere:rerank-v3.5           Cohere's /v2/rerank
    dense:openai:MODEL|rerank=tei@100        TEI's /rerank, the best 100 reranked
    hybrid|rerank=jina:MODEL  |rerank=vllm:MODEL  |rerank=infinity:MODEL
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import RetrieverError

KINDS: tuple[str, ...] = ("bm25", "dense", "hybrid")
#: The rerank services, as they answer over HTTP (``retrieval.rerank``).
RERANKERS: tuple[str, ...] = ("cohere", "jina", "vllm", "tei", "infinity")
#: How many of the retriever's best chunks a reranker reorders unless told.
RERANK_DEPTH = 50
MAX_RERANK_DEPTH = 1_000
_RERANK = "|rerank="
_LATE = "|late"
#: The embedders that give a vector per token, which late chunking pools per chunk.
TOKEN_EMBEDDERS: tuple[str, ...] = ("minilm", "onnx")
#: Where dense vectors come from: the bundled model, all-MiniLM-L6-v2, a model folder, a server.
EMBEDDERS: tuple[str, ...] = ("wordllama", "minilm", "model2vec", "onnx", "openai")
#: The embedders whose model is a folder on disk.
FOLDER_MODEL: tuple[str, ...] = ("model2vec", "onnx")
#: The embedders whose model is their own (they take no model name).
OWN_MODEL: tuple[str, ...] = ("wordllama", "minilm")
DEFAULT = "bm25"
#: The longest retriever spec read (a URL or an argument could carry any length).
MAX_RETRIEVER_SPEC = 1_000
_EXAMPLES = ("'bm25', 'dense', 'hybrid', 'dense:minilm', 'dense:model2vec:PATH', 'dense:onnx:PATH', "
             "'dense:openai:MODEL'")


@dataclass(frozen=True, slots=True)
class RetrieverSpec:
    """A retriever: its kind, and for dense and hybrid ones the embedder and its model."""

    kind: str = DEFAULT
    """``bm25``, ``dense`` or ``hybrid``."""

    embedder: str = ""
    """For ``dense`` and ``hybrid``: one of ``EMBEDDERS``; empty for ``bm25``."""

    model: str = ""
    """The model folder (``model2vec``) or model name (``openai``); empty otherwise."""

    reranker: str = ""
    """A rerank service and its model (``cohere:rerank-v3.5``, ``tei``), or empty."""

    depth: int = RERANK_DEPTH
    """How many of the retriever's best chunks the reranker reorders."""

    late: bool = False
    """Chunk late: each chunk's vector pooled from its document's token vectors (``retrieval.late``)."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise RetrieverError(problem)

    def problem(self) -> str | None:
        """Why this retriever cannot be named so, or None."""
        if self.reranker or self.depth != RERANK_DEPTH:
            problem = _rerank_problem(self.reranker, self.depth)
            if problem:
                return problem
        if self.kind not in KINDS:
            return f"unknown retriever {self.kind!r}; choose one of {', '.join(KINDS)}"
        if self.late and self.embedder not in TOKEN_EMBEDDERS:
            return (f"late chunking pools a model's token vectors: it needs dense:minilm or dense:onnx:PATH, "
                    f"not {RetrieverSpec(self.kind, self.embedder, self.model)}")
        if self.kind == "bm25":
            return None if not (self.embedder or self.model) else "bm25 takes no embedding model"
        if self.embedder not in EMBEDDERS:
            return f"unknown embedder {self.embedder!r}; choose one of {', '.join(EMBEDDERS)}"
        if self.embedder in OWN_MODEL:
            return None if not self.model else f"{self.embedder} is one model and takes no model name"
        if not self.model.strip():
            return f"{self.embedder} needs a model: dense:{self.embedder}:" + (
                "PATH" if self.embedder in FOLDER_MODEL else "MODEL")
        if any(ord(c) < 32 or c == "\x7f" for c in self.model):
            return "a model name or folder cannot hold control characters"
        if self.model != self.model.strip():
            return "a model name or folder cannot begin or end with spaces"
        if _RERANK in self.model or self.model.endswith(_LATE):  # the string form could not say where it ends
            return f"a model name or folder cannot hold {_RERANK!r} or end with {_LATE!r}"
        return None

    @property
    def dense(self) -> "RetrieverSpec | None":
        """The dense part (itself for ``dense``, the fused one for ``hybrid``; None for ``bm25``),
        without the reranker."""
        if self.kind == "bm25":
            return None
        return self if self.kind == "dense" and not self.reranker else \
            RetrieverSpec("dense", self.embedder, self.model, late=self.late)

    @property
    def embeds_chunks(self) -> bool:
        """Whether its index embeds each chunk's text (dense and hybrid; late chunking pools a
        document's token vectors instead)."""
        return self.kind != "bm25" and not self.late

    @property
    def base(self) -> "RetrieverSpec":
        """The retriever without its reranker."""
        return RetrieverSpec(self.kind, self.embedder, self.model, late=self.late) if self.reranker else self

    def reranked(self, reranker: str, depth: int = RERANK_DEPTH) -> "RetrieverSpec":
        """This retriever with ``reranker`` reordering its best ``depth`` chunks."""
        return RetrieverSpec(self.kind, self.embedder, self.model, reranker, depth, self.late)

    @property
    def rerank_service(self) -> str:
        """The reranker's service (``cohere``), or empty."""
        return self.reranker.partition(":")[0]

    @property
    def rerank_model(self) -> str:
        """The reranker's model, or empty (TEI serves one model and needs no name)."""
        return self.reranker.partition(":")[2]

    @property
    def is_default(self) -> bool:
        """True for BM25 without a reranker, which the article's tables use."""
        return self.kind == DEFAULT and not self.reranker

    @property
    def label(self) -> str:
        """A short human name: ``BM25``, ``dense (wordllama)``, ``hybrid (BM25 + model2vec)``,
        ``BM25 → rerank (cohere rerank-v3.5, top 50)``."""
        if self.reranker:
            model = " ".join(self.reranker.split(":", 1))
            return f"{self.base.label} → rerank ({model}, top {self.depth})"
        if self.kind == "bm25":
            return "BM25"
        model = self.embedder if not self.model else f"{self.embedder} {self.model.rstrip('/').rsplit('/', 1)[-1]}"
        model += ", late chunking" * self.late
        return f"dense ({model})" if self.kind == "dense" else f"hybrid (BM25 + {model})"

    def __str__(self) -> str:
        if self.reranker:
            return f"{self.base}{_RERANK}{self.reranker}" + (f"@{self.depth}" if self.depth != RERANK_DEPTH else "")
        if self.kind == "bm25":
            return "bm25"
        if self.late:
            return str(RetrieverSpec(self.kind, self.embedder, self.model)) + _LATE
        dense = "dense" if self.embedder == "wordllama" else f"dense:{self.embedder}" + (
            f":{self.model}" if self.model else "")
        if self.kind == "dense":
            return dense
        return "hybrid" if self.embedder == "wordllama" else f"hybrid:{dense}"

    @classmethod
    def parse(cls, text: str) -> "RetrieverSpec":
        """Read the short string form; refuse anything malformed with the reason."""
        if not isinstance(text, str) or not text.strip():
            raise RetrieverError(f"empty retriever; expected one of {_EXAMPLES}")
        if len(text) > MAX_RETRIEVER_SPEC:
            raise RetrieverError(f"a retriever spec is at most {MAX_RETRIEVER_SPEC} characters; "
                                 f"this one has {len(text):,}")
        text = text.strip()
        if _RERANK in text:
            base, _, rerank = text.partition(_RERANK)
            reranker, at, depth = rerank.partition("@")
            if at and not (depth.isascii() and depth.isdigit() and len(depth) <= 5):
                raise RetrieverError(f"cannot read {text!r}: a rerank depth is a whole number, as in |rerank=tei@100")
            return cls.parse(base).reranked(reranker, int(depth) if at else RERANK_DEPTH)
        if text.endswith(_LATE):
            found = cls.parse(text[:-len(_LATE)])
            return cls(found.kind, found.embedder, found.model, late=True)
        kind, _, rest = text.partition(":")
        if kind == "bm25":
            if rest:
                raise RetrieverError(f"cannot read {text!r}: bm25 takes no options")
            return cls()
        if kind == "hybrid":
            if not rest:
                return cls("hybrid", "wordllama")
            inner, _, rest = rest.partition(":")
            if inner != "dense":
                raise RetrieverError(f"cannot read {text!r}: hybrid fuses BM25 with a dense retriever, "
                                     "written hybrid:dense[:EMBEDDER:MODEL]")
            dense = cls._dense(rest, text)
            return cls("hybrid", dense.embedder, dense.model)
        if kind == "dense":
            return cls._dense(rest, text)
        raise RetrieverError(f"cannot read retriever {text!r}; expected one of {_EXAMPLES}")

    @classmethod
    def _dense(cls, rest: str, text: str) -> "RetrieverSpec":
        if not rest:
            return cls("dense", "wordllama")
        embedder, _, model = rest.partition(":")
        if embedder not in EMBEDDERS:
            raise RetrieverError(f"cannot read {text!r}: unknown embedder {embedder!r}; "
                                 f"choose one of {', '.join(EMBEDDERS)}")
        return cls("dense", embedder, model)


def _rerank_problem(reranker: str, depth: int) -> str | None:
    service, _, model = reranker.partition(":")
    if service not in RERANKERS:
        return f"unknown reranker {service[:40]!r}; choose one of {', '.join(RERANKERS)}"
    if service != "tei" and not model.strip():
        return f"{service} needs a model: |rerank={service}:MODEL"
    if model != model.strip() or any(ord(c) < 32 or c in "|@" for c in model):
        return "a rerank model name holds no spaces at its ends, control characters, | or @"
    if not isinstance(depth, int) or not 1 <= depth <= MAX_RERANK_DEPTH:
        return f"a rerank depth is from 1 to {MAX_RERANK_DEPTH}, got {depth!r}"
    return None


def parse_retriever(text: str | RetrieverSpec | None) -> RetrieverSpec:
    """Accept a retriever spec, its string form, or None for BM25."""
    if text is None:
        return RetrieverSpec()
    return text if isinstance(text, RetrieverSpec) else RetrieverSpec.parse(text)
