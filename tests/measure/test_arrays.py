"""``inspector.measure.arrays``: whole-corpus arrays give what per-document computations give."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from inspector.measure.arrays import ChunkArrays, held_whole
from inspector.measure.survival import contained
from tests.support.strategies import FAST


@FAST
@given(atoms=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 30)), max_size=20),
       chunks=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 40)), max_size=12))
def test_whole_corpus_containment_equals_per_document(atoms, chunks):
    atoms = [(a, a + n) for a, n in atoms]
    chunks = [(a, a + n) for a, n in chunks]
    # the same spans in three documents 100 apart, with the chunks of the middle one missing
    base = np.array([0, 100, 200])
    starts = np.array([a + b for b in (0, 200) for a, _ in chunks], dtype=np.int64)
    ends = np.array([e + b for b in (0, 200) for _, e in chunks], dtype=np.int64)
    a_starts = np.array([a + b for b in base for a, _ in atoms], dtype=np.int64)
    a_ends = np.array([e + b for b in base for _, e in atoms], dtype=np.int64)
    held = held_whole(a_starts, a_ends, starts, ends).tolist()
    expected = contained(atoms, chunks) + [False] * len(atoms) + contained(atoms, chunks)
    assert held == expected


def test_chunk_arrays_keep_prefixes_aligned():
    arrays = ChunkArrays.from_spans(["a", "b", "c"], [([(0, 2), (2, 4)], None, 0), ([], None, 0),
                                                      ([(0, 1)], ["P\n"], 1)])
    assert arrays.counts.tolist() == [2, 0, 1]
    assert arrays.doc_of.tolist() == [0, 0, 2]
    assert arrays.prefixes == ("", "", "P\n")
    assert arrays.oversized == 1 and arrays.span_chars() == 5
    starts, ends = arrays.global_spans(np.array([0, 10, 20]))
    assert starts.tolist() == [0, 2, 20] and ends.tolist() == [2, 4, 21]
    streamed = ChunkArrays.from_spans(["a", "b"], (x for x in [([(0, 3)], None, 0), ([(1, 2)], None, 0)]))
    assert streamed.starts.tolist() == [0, 1] and streamed.prefixes is None and streamed.counts.tolist() == [1, 1]
    empty = ChunkArrays.from_spans([], [])
    assert len(empty) == 0 and empty.counts.tolist() == [] and empty.span_chars() == 0
