"""What a page's run would send to a paid endpoint, said before it starts.

A page that ranks with ``dense:openai:MODEL`` embeds every chunk text of its splitters and every
probe query that the vector cache does not hold yet. ``embedding_estimate`` counts those (in
texts, requests and o200k tokens), prices them from the server's ``SpendPolicy``, and says
whether the run needs a click (over the policy's threshold) or cannot run at all (over what is
left of an allowance). Nothing is embedded to estimate.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..lengths import get_length
from ..measure.workspace import Workspace
from ..retrieval.remote import BATCH, OpenAIEmbeddings
from ..retrieval.retriever_spec import parse_retriever
from ..retrieval.spending import SpendLedger, SpendPolicy
from ..retrieval.vectors import digest_of, open_store


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a run would send."""

    model: str
    texts: int
    """Texts to embed (those the cache holds are not sent again)."""

    tokens: int
    """Their o200k tokens (the server's own tokenizer counts a little differently)."""

    dollars: float | None
    """At the operator's price for the model; None when the server names none."""

    over_threshold: bool
    """Whether the run asks for a confirmation first."""

    refusal: str = ""
    """Why the run cannot start: it would go over what is left of an allowance (empty: it can)."""

    questions: int = 0
    """For a reranker: the questions it reorders chunks for (one request each); 0 for an embedder."""

    @property
    def requests(self) -> int:
        return self.questions or -(-self.texts // BATCH)

    @property
    def key(self) -> str:
        """Names this estimate for a confirmation (a click confirms this run, not another)."""
        return f"{self.model}:{self.texts}:{self.tokens}"

    def summary(self) -> str:
        """The estimate in one sentence."""
        if self.questions:
            return (f"This page may send up to {self.texts:,} texts ({self.questions:,} requests, one a question) "
                    f"to the reranker {self.model}; scores it has given are not asked again.")
        if not self.texts:
            return f"Every text this page ranks is embedded by {self.model} already: nothing will be sent."
        cost = "no price set for it on this server" if self.dollars is None else f"about ${self.dollars:,.4f}"
        return (f"This page will send {self.texts:,} text{'s' * (self.texts != 1)} ({self.tokens:,} tokens, "
                f"{self.requests:,} request{'s' * (self.requests != 1)}) to {self.model}: {cost}.")


def embedding_estimate(workspace: Workspace, retriever: str, specs: Iterable[str], policy: SpendPolicy,
                       ledger: SpendLedger | None = None, session: str = "") -> Estimate | None:
    """What ranking ``specs``' chunks and the probe's queries with ``retriever`` would send
    (None: the retriever calls no paid endpoint), refused when it would go over what is left of
    ``ledger``'s allowances for ``session``."""
    if parse_retriever(retriever).embedder != "openai":
        return None  # before the chunks are split for their texts: nothing is paid for
    texts = [text for chunking in specs for text in workspace.pool(chunking).texts()]
    return texts_estimate(workspace, retriever, texts + [q.text for q in workspace.queries()], policy, ledger,
                          session)


def texts_estimate(workspace: Workspace, retriever: str, texts: Iterable[str], policy: SpendPolicy,
                   ledger: SpendLedger | None = None, session: str = "") -> Estimate | None:
    """What embedding ``texts`` with ``retriever``'s embedder would send (those its cache holds
    are not sent again; None: it calls no paid endpoint): the questions a store is asked with."""
    spec = parse_retriever(retriever)
    if spec.embedder != "openai":
        return None
    wanted: dict[bytes, str] = {}
    for text in texts:
        wanted.setdefault(digest_of(text), text)
    embedder = OpenAIEmbeddings(spec.model, workspace.embeddings_url)
    store, _ = open_store(workspace.vector_folder)
    kept = set(store.get(embedder.model_id, list(wanted), None)) if store is not None else set()
    missing = [text for digest, text in wanted.items() if digest not in kept]
    tokens = sum(get_length("o200k").count_many(missing)) if missing else 0
    refusal = ledger.over(len(missing), tokens, session) if ledger is not None else ""
    threshold = policy.confirm_above
    return Estimate(spec.model, len(missing), tokens, policy.cost(spec.model, tokens),
                    threshold.of(len(missing), tokens) > threshold.amount, refusal)


def rerank_estimate(workspace: Workspace, retriever: str, policy: SpendPolicy, ledger: SpendLedger | None = None,
                    session: str = "") -> Estimate | None:
    """At most what reranking the probe's queries with ``retriever`` would send (None: it names no
    reranker): each query's best ``depth`` chunks, refused when even that could go over what is
    left of ``ledger``'s allowances."""
    spec = parse_retriever(retriever)
    if not spec.reranker:
        return None
    questions = len(workspace.queries())
    texts = questions * spec.depth
    refusal = ledger.over(texts, 0, session) if ledger is not None else ""
    threshold = policy.confirm_above
    return Estimate(spec.reranker, texts, 0, None, threshold.of(texts, 0) > threshold.amount, refusal, questions)
