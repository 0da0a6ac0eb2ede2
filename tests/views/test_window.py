"""``inspector.views.window``: the parts a long document is drawn in tile it and respect both limits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.views.window import cut_window, window_of, windows


@settings(deadline=None)
@given(length=st.integers(0, 5_000), starts=st.lists(st.integers(0, 5_000), max_size=300),
       max_chars=st.integers(20, 900), max_chunks=st.integers(1, 40))
def test_windows_tile_the_text_within_both_limits(length, starts, max_chars, max_chunks):
    parts = windows(length, starts, max_chars=max_chars, max_chunks=max_chunks)
    assert parts[0][0] == 0 and parts[-1][1] == length
    assert all(a < b for a, b in parts) or parts == [(0, 0)]
    assert all(b == c for (_, b), (c, _) in zip(parts, parts[1:]))
    for a, b in parts:
        assert b - a <= max_chars
        assert sum(1 for s in set(starts) if a <= s < b) <= max_chunks
    for a, b in parts:
        assert parts[window_of(a, parts)] == (a, b)
        assert parts[window_of(b - 1, parts)] == (a, b) if b > a else True


def test_windows_begin_where_chunks_begin_when_they_can():
    assert windows(1000, list(range(0, 1000, 10)), max_chars=10_000, max_chunks=30) == [
        (0, 300), (300, 600), (600, 900), (900, 1000)]
    assert windows(100, [0, 40], max_chars=30) == [(0, 30), (30, 40), (40, 70), (70, 100)]
    assert windows(0, []) == [(0, 0)]
    with pytest.raises(ValueError):
        windows(10, [], max_chars=0)


def test_a_cut_atom_is_found_in_its_window():
    class Cut:
        start = 650

    parts = windows(1000, list(range(0, 1000, 10)), max_chars=10_000, max_chunks=30)
    assert cut_window(Cut(), parts) == 2 and window_of(1000, parts) == 3 and window_of(0, parts) == 0
