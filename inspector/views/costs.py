"""The Compare page's index-time cost table: each splitter's ``IndexCost``, priced at the server's
prices (``CHUNK_INSPECTOR_PRICES``) for the retriever's embeddings model and the context lines' model."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ..errors import SpecError
from ..measure.cost import IndexCost, Prices
from ..retrieval.retriever_spec import parse_retriever
from ..retrieval.spending import SpendPolicy
from ..spec import parse_spec

#: The table's columns, in order.
COST_COLUMNS: tuple[str, ...] = ("splitter", "split s", "splitter embeds", "splitter tokens", "chunks embedded",
                                 "chunk tokens", "LLM prompts", "prompt tokens", "dollars")


def prices_for(spec: str, retriever: str, policy: SpendPolicy) -> Prices:
    """The prices ``spec``'s cost is counted at: the retriever's embeddings model's, and its
    context lines' model's (None where the server names no price)."""
    base = parse_retriever(retriever).base
    embed = policy.price(base.model) if base.embedder == "openai" else None
    chat = policy.price(parse_spec(spec).context_model) if parse_spec(spec).context else None
    return Prices(embed.input if embed else None, chat.input if chat else None, chat.output if chat else None)


def cost_frame(costs: Mapping[str, IndexCost], labels: Mapping[str, str], retriever: str,
               environ: Mapping[str, str] | None = None) -> pd.DataFrame:
    """One row a splitter: seconds to split, texts and o200k tokens embedded by the splitter and
    the retriever, prompts and their tokens, and dollars (None where a paid part has no price)."""
    try:
        policy = SpendPolicy.from_environment(environ)
    except SpecError:
        policy = SpendPolicy()
    rows = []
    for spec, cost in costs.items():
        rows.append((labels.get(spec, spec), round(cost.seconds, 2), cost.chunker_texts, cost.chunker_tokens,
                     cost.embedded_texts, cost.embedded_tokens, cost.llm_calls,
                     cost.llm_input_tokens + cost.llm_output_tokens,
                     cost.dollars(prices_for(spec, retriever, policy))))
    return pd.DataFrame(rows, columns=list(COST_COLUMNS))
