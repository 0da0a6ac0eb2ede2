"""``inspector.engines.stream.fusion``: the batches' candidates merged into the corpus's first D of
each ranking, with their ranks, against sorting everything; a ranking handed back to a batch.
(That fused rankings over the batches equal the held corpus's is tested in ``test_stream``.)"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.engines.stream.fusion import Candidates, Given

# Few distinct scores, so that ties are common, as between copies of a page.
_CHUNK = st.tuples(st.integers(0, 3), st.integers(-1, 2), st.integers(0, 3))  # BM25 score, first word, dense


@settings(max_examples=300, deadline=None)
@given(batches=st.lists(st.lists(_CHUNK, max_size=8), min_size=1, max_size=5), depth=st.integers(1, 6))
def test_merged_candidates_are_each_rankings_first_depth_with_their_ranks(batches, depth):
    parts, position = [], 0
    for chunks in batches:
        positions = np.arange(position, position + len(chunks), dtype=np.int64)
        position += len(chunks)
        lexical = np.array([float(c[0]) for c in chunks])
        seen = np.array([c[1] for c in chunks], dtype=np.int64)
        dense = np.array([float(c[2]) for c in chunks])
        parts.append(Candidates(positions, lexical, seen, dense))
    merged, ranks = Candidates.merged(parts, depth)
    every = [(p, *c) for p, c in enumerate(c for chunks in batches for c in chunks)]
    by_terms = [p for p, *_ in sorted((c for c in every if c[2] >= 0), key=lambda c: (-c[1], c[2], c[0]))][:depth]
    by_vectors = [p for p, *_ in sorted(every, key=lambda c: (-c[3], c[0]))][:depth]
    assert merged.chunks.tolist() == sorted(set(by_terms) | set(by_vectors))
    for j, chunk in enumerate(merged.chunks.tolist()):
        expected_terms = by_terms.index(chunk) + 1 if chunk in by_terms else (-1 if every[chunk][2] < 0 else 0)
        expected_vectors = by_vectors.index(chunk) + 1 if chunk in by_vectors else 0
        assert ranks[:, j].tolist() == [expected_terms, expected_vectors]
        assert (merged.lexical[j], merged.seen[j], merged.dense[j]) == tuple(every[chunk][1:])


def test_a_batch_given_its_share_ranks_it_by_place_in_the_whole_ranking():
    share = Given([(np.array([4, 0, 7]), np.array([1, 3, 8])), ((), ())])
    first, empty = share.ranked(2)
    assert first.chunks.tolist() == [4, 0] and first.scores.tolist() == [-1.0, -3.0] and first.seen.tolist() == [0, 0]
    assert len(empty.chunks) == 0
    assert [r.chunks.tolist() for r in share.ranked(10)] == [[4, 0, 7], []]
