"""``inspector.split.packing_seed``: the article's packer by bisection equals its step-by-step form."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.split.packing_seed import SeedPieces, pack_seed_chars


@st.composite
def pieces(draw) -> list[tuple[int, int]]:
    out, pos = [], 0
    for _ in range(draw(st.integers(0, 25))):
        a = pos + draw(st.sampled_from([0, 0, 1, 3]))
        b = a + draw(st.sampled_from([0, 1, 5, 20, 50, 120, 300]))
        out.append((a, b))
        pos = b if draw(st.booleans()) else max(a, b - draw(st.sampled_from([5, 500])))  # some overlap
    return out


@settings(max_examples=300, deadline=None)
@given(pieces=pieces(), budget=st.sampled_from([1, 5, 50, 100, 200]))
def test_bisection_packer_equals_the_step_by_step_one(pieces, budget):
    assert SeedPieces(pieces).pack_chars(budget) == pack_seed_chars(pieces, budget)
