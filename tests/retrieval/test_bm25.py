"""``inspector.retrieval.bm25``: batched ranking equals ranking one query at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.retrieval.bm25 import BM25


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 8), batch=st.sampled_from([1, 7, 1 << 19]), data=st.data())
def test_batched_ranking_equals_one_query_at_a_time(n, k, batch, data):
    vocabulary = ["w0", "w1", "w2", "w3", "w4"]
    postings = {}
    for word in vocabulary:
        chunks = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
        counts = data.draw(st.lists(st.integers(1, 3), min_size=len(chunks), max_size=len(chunks)))
        postings[word] = (np.array(chunks, dtype=np.int64), np.array(counts, dtype=np.float64))
    lens = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=np.int64)
    queries = data.draw(st.lists(st.lists(st.sampled_from(vocabulary + ["none"]), max_size=4).map(tuple),
                                 min_size=1, max_size=6))
    ranker = BM25(lens, postings)
    # ``batch``: how many contributions one pass ranks (1: every query alone; large: all at once).
    assert ranker.top_many(queries, k, batch) == [ranker.top(q, k) for q in queries]
