"""``measure.ray_ranking``: BM25 over the cluster's partitions ranks as the local BM25 does, for
every partition count, with prefixes, for k and for whole rankings; documents are cut into
partitions of about equal characters."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.corpus.load import load_corpus
from inspector.measure.ray_ranking import RayBM25Retriever, on_partitions, partition_bounds
from inspector.measure.workspace import Workspace
from inspector.model import every_script
from inspector.retrieval.ranking import BM25Retriever, HybridRetriever, Question
from tests.support.paths import SAMPLE


@given(sizes=st.lists(st.integers(0, 50), min_size=1, max_size=40), parts=st.integers(1, 8))
def test_partitions_cover_the_documents_in_order_each_holding_one(sizes, parts):
    bounds = partition_bounds(sizes, parts)
    assert bounds[0] == 0 and bounds[-1] == len(sizes)
    assert all(a < b for a, b in zip(bounds, bounds[1:]))  # no partition is empty
    assert 1 <= len(bounds) - 1 <= min(parts, len(sizes))


def test_partitions_share_the_characters_about_equally():
    bounds = partition_bounds([10] * 100, 4)
    assert bounds == [0, 25, 50, 75, 100]
    assert partition_bounds([1000, 1, 1, 1], 2) == [0, 1, 4]  # one large document is a partition alone


@pytest.fixture(scope="module")
def workspace():
    return Workspace(load_corpus(SAMPLE), "markdown")


@pytest.mark.ray
@pytest.mark.parametrize(("spec", "partitions"), [("fixed:400", 1), ("fixed:400", 7), ("structured:800+address", 3)])
def test_ranking_on_partitions_equals_the_local_ranking(cluster, workspace, spec, partitions):
    pool = workspace.pool(spec)
    assert pool.prefixes is not None or spec == "fixed:400"
    asks = workspace.queries() + [Question.of(text, pool.table) for text in
                                  ("How many vacation days in Germany?", "全文检索 的 延迟", "no such wordzz")]
    local = BM25Retriever().rank(asks, pool, 5)
    remote = RayBM25Retriever(workspace.documents, every_script(workspace.mode), partitions)
    assert remote.rank(asks, pool, 5) == local
    assert len(remote.actors()) == partitions
    # A whole ranking (what a hybrid retriever fuses) too, for a handful of questions.
    assert remote.rank(asks[:5], pool, None) == BM25Retriever().rank(asks[:5], pool, None)


@pytest.mark.ray
def test_a_subset_of_the_documents_is_ranked_on_the_same_partitions(cluster, workspace):
    part = workspace.subset_of("de")
    pool = part.pool("recursive:400")
    remote = RayBM25Retriever(workspace.documents, True, 2)
    assert remote.rank(part.queries(), pool, 5) == BM25Retriever().rank(part.queries(), pool, 5)


def test_only_bm25_goes_to_the_cluster():
    documents = []
    assert isinstance(on_partitions(BM25Retriever(), documents, True), RayBM25Retriever)
    dense = object.__new__(HybridRetriever)
    dense.spec, dense.dense, dense.bm25 = None, "the dense half", BM25Retriever()
    hybrid = on_partitions(dense, documents, True)
    assert isinstance(hybrid, HybridRetriever) and isinstance(hybrid.bm25, RayBM25Retriever)
    assert hybrid.dense == "the dense half"
    lone = object()
    assert on_partitions(lone, documents, True) is lone  # a dense retriever ranks on the driver
