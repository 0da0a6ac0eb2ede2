"""``inspector.retrieval.bm25``: batched ranking equals ranking one query at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.retrieval.bm25 import BM25, Ranked, Statistics, merge_ranked


def _statistics(data, n: int, vocabulary: list[str], top: int):
    """Postings of each word over ``n`` chunks (counts up to ``top``) and the chunks' lengths."""
    postings = {}
    for word in vocabulary:
        chunks = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
        counts = data.draw(st.lists(st.integers(1, top), min_size=len(chunks), max_size=len(chunks)))
        postings[word] = (np.array(chunks, dtype=np.int64), np.array(counts, dtype=np.float64))
    return postings, np.array(data.draw(st.lists(st.integers(1, top + 1), min_size=n, max_size=n)), dtype=np.int64)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 8), batch=st.sampled_from([1, 7, 1 << 19]), data=st.data())
def test_batched_ranking_equals_one_query_at_a_time(n, k, batch, data):
    vocabulary = ["w0", "w1", "w2", "w3", "w4"]
    postings, lens = _statistics(data, n, vocabulary, top=3)
    queries = data.draw(st.lists(st.lists(st.sampled_from(vocabulary + ["none"]), max_size=4).map(tuple),
                                 min_size=1, max_size=6))
    ranker = BM25(lens, postings)
    # ``batch``: how many contributions one pass ranks (1: every query alone; large: all at once).
    assert ranker.top_many(queries, k, batch) == [ranker.top(q, k) for q in queries]


@settings(max_examples=120, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 8), parts=st.integers(1, 5), data=st.data())
def test_ranking_in_partitions_and_merging_equals_ranking_the_whole_pool(n, k, parts, data):
    """What ``--engine ray`` does: each partition ranks its own chunks with the pool's summed
    statistics, and the merge gives the whole pool's ranking, ties included."""
    vocabulary = ["w0", "w1", "w2", "w3"]
    # Counts and lengths of few values make ties common, so the merge's tie order is tested.
    postings, lens = _statistics(data, n, vocabulary, top=2)
    queries = data.draw(st.lists(st.lists(st.sampled_from(vocabulary + ["none"]), max_size=3, unique=True)
                                 .map(tuple), min_size=1, max_size=6))
    # Any chunk may go to any partition: members need not be contiguous.
    owner = np.array(data.draw(st.lists(st.integers(0, parts - 1), min_size=n, max_size=n)), dtype=np.int64)
    members = [np.flatnonzero(owner == p) for p in range(parts)]
    local = []
    for chunks in members:
        position = {int(c): i for i, c in enumerate(chunks)}
        mine = {}
        for word, (ids, tf) in postings.items():
            keep = np.isin(ids, chunks)
            mine[word] = (np.array([position[int(c)] for c in ids[keep]], dtype=np.int64), tf[keep])
        local.append((lens[chunks], mine))
    pool = Statistics.total(Statistics.of(part_lens, part) for part_lens, part in local)
    whole = Statistics.of(lens, postings)
    assert (pool.chunks, pool.terms) == (whole.chunks, whole.terms)
    assert {w: d for w, d in pool.df.items() if d} == {w: d for w, d in whole.df.items() if d}
    ranked = []
    for chunks, (part_lens, part) in zip(members, local):
        ranked.append([Ranked(r.scores, r.seen, chunks[r.chunks]) for r in
                       BM25(part_lens, part, pool).ranked(queries, k)])
    expected = BM25(lens, postings).top_many(queries, k)
    assert merge_ranked(ranked, k) == expected
    # The scores themselves are the whole pool's, bit for bit.
    for q, query in enumerate(queries):
        for part in ranked:
            for score, chunk in zip(part[q].scores.tolist(), part[q].chunks.tolist()):
                alone = BM25(lens, {w: postings[w] for w in query if w in postings})
                assert score == _score_of(alone, query, chunk)


def _score_of(ranker: BM25, query, chunk: int) -> float:
    """The article's score of one chunk for a query, summed in query order."""
    total = 0.0
    for word in query:
        ids, counts = ranker.postings.get(word, (np.zeros(0, np.int64), np.zeros(0)))
        hit = np.flatnonzero(ids == chunk)
        if len(hit):
            tf = counts[hit[0]]
            total += ranker.idf(word) * tf * 2.2 / (tf + ranker.norm[chunk])
    return total
