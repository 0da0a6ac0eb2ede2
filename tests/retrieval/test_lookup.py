"""``inspector.retrieval.lookup``: the occurrences found by fingerprints are exactly the terms
equal to a wanted word, block by block, however often fingerprints collide."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.retrieval.lookup import occurrences


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="abcd", max_size=80), cuts=st.lists(st.integers(0, 80), max_size=30),
       words=st.lists(st.text(alphabet="abcd", min_size=1, max_size=4), max_size=6),
       wide=st.booleans(), block=st.sampled_from([1, 3, 1 << 20]))
def test_occurrences_are_every_term_equal_to_a_wanted_word(text, cuts, words, wide, block):
    kind = np.uint16 if wide else np.uint8
    codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8).astype(kind)
    bounds = sorted({c for c in cuts if c <= len(text)} | {0, len(text)})
    terms = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]
    starts = np.array([a for a, _ in terms], dtype=np.int32)
    ends = np.array([b for _, b in terms], dtype=np.int32)
    # Words over four letters of equal length share fingerprints often ("abca", "acba").
    ids = {np.frombuffer(w.encode("ascii"), dtype=np.uint8).astype(kind).tobytes(): i
           for i, w in enumerate(dict.fromkeys(words))}
    spelled = {w: i for i, w in enumerate(dict.fromkeys(words))}
    with patch("inspector.retrieval.lookup.BLOCK", block):
        found, word_ids = occurrences(codes, starts, ends, ids)
    expected = [(t, spelled[text[a:b]]) for t, (a, b) in enumerate(terms) if text[a:b] in spelled]
    assert list(zip(found.tolist(), word_ids.tolist())) == expected
