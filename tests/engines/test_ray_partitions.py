"""``engines.ray.partitions``: the cluster's partitions split, measure and rank as the local
engine does, for every partition count, with prefixes, for k and for whole rankings; documents
are cut into partitions of about equal characters."""

from __future__ import annotations

import marshal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.corpus.load import load_corpus
from inspector.engines.ray.partitions import (
    PartitionedWorkspace,
    Partitions,
    RayBM25Retriever,
    on_partitions,
    partition_bounds,
)
from inspector.measure.workspace import Workspace
from inspector.retrieval.ranking import BM25Retriever, HybridRetriever, Question
from inspector.spec import parse_spec
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
    remote = RayBM25Retriever(Partitions(workspace, partitions))
    assert remote.rank(asks, pool, 5) == local
    assert len(remote.partitions.actors()) == partitions
    # A whole ranking (what a hybrid retriever fuses) too, for a handful of questions.
    assert remote.rank(asks[:5], pool, None) == BM25Retriever().rank(asks[:5], pool, None)


@pytest.mark.ray
def test_a_subset_of_the_documents_is_ranked_on_the_same_partitions(cluster, workspace):
    part = workspace.subset_of("de")
    pool = part.pool("recursive:400")
    remote = RayBM25Retriever(Partitions(workspace, 2))
    assert remote.rank(part.queries(), pool, 5) == BM25Retriever().rank(part.queries(), pool, 5)


def test_only_bm25_goes_to_the_cluster():
    documents = Partitions(Workspace([]))
    assert isinstance(on_partitions(BM25Retriever(), documents), RayBM25Retriever)
    dense = object.__new__(HybridRetriever)
    dense.spec, dense.dense, dense.bm25 = None, "the dense half", BM25Retriever()
    hybrid = on_partitions(dense, documents)
    assert isinstance(hybrid, HybridRetriever) and isinstance(hybrid.bm25, RayBM25Retriever)
    assert hybrid.dense == "the dense half"
    lone = object()
    assert on_partitions(lone, documents) is lone  # a dense retriever ranks on the driver


@pytest.fixture(scope="module")
def measured(cluster, workspace):
    """The sample corpus measured on three partitions, beside its local workspace."""
    remote = PartitionedWorkspace(workspace.documents, workspace.mode, 3)
    remote.add_analyses({d.id: workspace.analysis(d) for d in workspace.documents})
    return remote


@pytest.mark.ray
@pytest.mark.parametrize("spec", ["fixed:400", "structured:800+address", "recursive:200t/40", "sentence:300"])
def test_the_partitions_split_and_measure_as_the_local_engine(measured, workspace, spec, monkeypatch):
    def measures(work):
        return (work.summarize(spec), work.summarize(spec, fits=800), work.header_carry(spec), work.probe(spec),
                work.probe(spec, k=1))

    local = measures(workspace)

    def refused(*args, **kwargs):
        raise AssertionError("the driver split a built-in splitter: its partitions should have")

    monkeypatch.setattr("inspector.measure.workspace.chunk_spans", refused)  # the actors run unpatched
    assert measures(measured) == local
    measured.release(spec)
    assert measured.probe(spec) == local[3]  # split again when asked again


@pytest.mark.ray
def test_what_the_partitions_do_not_measure_is_measured_on_the_driver(measured, workspace):
    """Neighbour windows and a subset are measured on the driver, their BM25 still on the cluster."""
    measured_retriever = RayBM25Retriever(measured.cluster)
    assert measured.probe("fixed:400", expand=1, retriever=measured_retriever) == workspace.probe("fixed:400", expand=1)
    part = measured.subset_of("de")
    assert type(part) is Workspace, "a subset is measured here"
    assert part.summarize("fixed:400") == workspace.subset_of("de").summarize("fixed:400")
    assert not Partitions.measures(parse_spec("fixed:400+context;llm=m"))
    assert Partitions.measures(parse_spec("structured:800+address"))


def test_a_partition_answers_the_batch_jobs_as_a_parked_batch_does(tmp_path):
    """``ClusterPartition`` (what a Ray actor holds, here without Ray) is its own batch: the
    streamed engine's jobs give what they give on the same documents parked on disk, what a job
    parks stays in it until dropped, and what a job split is let go after."""
    from inspector.engines.ray.partitions import ClusterPartition
    from inspector.engines.stream.batches import (
        Asked,
        Queries,
        measure_batch,
        on_batch,
        rank_batch,
        read_back_batch,
        words_batch,
    )
    from inspector.engines.stream.spill import Spill

    work = Workspace(load_corpus(SAMPLE), "markdown")
    documents, analyses = work.documents[:40], work.analyses()[:40]
    spill = Spill(tmp_path / "parked")
    spill.folder.mkdir()
    spill.write(0, documents, analyses)
    spill.add(len(documents))
    actor = ClusterPartition("markdown")
    actor.take(documents, [marshal.dumps(a.to_plain()) for a in analyses])
    asked = Asked(probes=("fixed:400",), summaries=(("fixed:400", 800),), wanted=frozenset({"leave", "days"}))
    words = Queries([("leave", "days")])
    jobs = [(0, "markdown", asked), (0, {"fixed:400": asked.counts("fixed:400")}, words, 3, None),
            (0, "markdown", {"fixed:400": (asked.counts("fixed:400"), [0, 5, 9])}, True, 1),
            (0, "markdown", [(3, (0, 20))])]
    for function, job in zip((measure_batch, rank_batch, read_back_batch, words_batch), jobs):
        if function is rank_batch:  # ranked with the pool's statistics: this batch's own
            statistics = spill.kept(0, asked.counts("fixed:400")).statistics()
            job = (*job[:4], {"fixed:400": statistics})
        mine, parked = actor.run(function, job), function((spill, *job))
        if function is rank_batch:  # arrays, compared as lists
            mine, parked = ({spec: [(r.scores.tolist(), r.seen.tolist(), r.chunks.tolist()) for r in ranked]
                             for spec, ranked in found.items()} for found in (mine, parked))
        assert mine == parked
    assert actor.parked and actor.partition(0, "markdown").work.held() == []
    actor.drop("counted")
    assert actor.parked == {}
    assert actor.run(on_batch, (0, "markdown", Workspace.summarize, ("recursive:300",))) == \
        on_batch((spill, 0, "markdown", Workspace.summarize, ("recursive:300",)))
    assert actor.partition(0, "markdown").work.held() == []  # split for the job, let go after
