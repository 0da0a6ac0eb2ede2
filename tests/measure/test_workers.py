"""``inspector.measure.workers``: forked analysis workers share the corpus out evenly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.measure.workers import shares
from inspector.model import Document


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.sampled_from([0, 1, 10, 1000, 5000]), min_size=2, max_size=12),
       jobs=st.integers(2, 6), head=st.sampled_from([0.0, 0.05, 0.2, 1.0, 3.0]))
def test_every_worker_gets_documents(sizes, jobs, head):
    docs = [Document(f"d{i}", "x" * size) for i, size in enumerate(sizes)]
    bounds = shares([len(d.text) for d in docs], jobs, head)
    assert bounds[0] == 0 and bounds[-1] == len(docs)
    assert len(bounds) == min(jobs - 1, len(docs)) + 2
    assert all(a <= b for a, b in zip(bounds, bounds[1:]))
    assert all(a < b for a, b in zip(bounds[1:], bounds[2:]))
