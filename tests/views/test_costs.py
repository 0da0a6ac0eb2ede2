"""``inspector.views.costs``: the Compare page's cost table priced at the server's own prices."""

from __future__ import annotations

import pytest

from inspector.measure.cost import IndexCost
from inspector.views.costs import COST_COLUMNS, cost_frame

PAID = IndexCost(seconds=0.5, chunks=10, embedded_texts=10, embedded_tokens=2_000_000, paid_embeddings=True)
PROMPTED = IndexCost(chunks=10, llm_calls=10, llm_input_tokens=1_000_000, llm_output_tokens=600)


def test_dollars_come_from_the_servers_prices_for_the_models_named():
    environ = {"CHUNK_INSPECTOR_PRICES": "text-embedding-3-small=0.02; gpt-4o-mini=0.15/0.6"}
    frame = cost_frame({"structured:800": PAID}, {"structured:800": "structured 800"},
                       "dense:openai:text-embedding-3-small", environ)
    assert list(frame.columns) == list(COST_COLUMNS)
    assert frame["dollars"].iloc[0] == pytest.approx(0.04)
    lines = cost_frame({"recursive:800+context;llm=gpt-4o-mini": PROMPTED}, {}, "bm25", environ)
    assert lines["dollars"].iloc[0] == pytest.approx(0.15 + 600 * 0.6 / 1e6)
    assert lines["splitter"].iloc[0] == "recursive:800+context;llm=gpt-4o-mini"


def test_a_model_without_a_price_gets_no_dollars_rather_than_zero():
    frame = cost_frame({"structured:800": PAID, "recursive:800+context;llm=m": PROMPTED}, {},
                       "dense:openai:unpriced", {})
    assert frame["dollars"].isna().all()
