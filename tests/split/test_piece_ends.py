"""``inspector.split.piece_ends``: the per-document tables are the units and tiles they stand for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.split.packing import tile_text
from inspector.split.piece_ends import UnitBounds, unit_lists
from inspector.split.pieces import markdown_units
from tests.support.strategies import markdown_document


@st.composite
def units_and_gap(draw):
    """A text over a few characters (spaces, newlines, markers, letters), sorted non-overlapping
    units in it, and a gap to tile."""
    text = draw(st.text(alphabet=" \n\t-*>ab.\u00a0", min_size=1, max_size=60))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=16))))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2]) if a < b]
    keep = draw(st.lists(st.booleans(), min_size=len(spans), max_size=len(spans)))
    units = [span for span, kept in zip(spans, keep) if kept]
    p = draw(st.integers(0, len(text) - 1))
    q = draw(st.integers(p + 1, len(text)))
    return text, units, p, q


@settings(max_examples=100, deadline=None)
@given(text=markdown_document())
def test_unit_lists_are_the_units(text):
    analysis = analyze(text, "markdown")
    starts, ends = unit_lists(analysis)
    assert list(zip(starts, ends)) == markdown_units(analysis)


@settings(max_examples=500, deadline=None)
@given(units_and_gap())
def test_gap_ends_are_the_tiles_ends(case):
    text, units, p, q = case
    bounds = UnitBounds.of(text, [a for a, _ in units], [b for _, b in units])
    ends: list[int] = []
    bounds.gap_ends(p, q, ends)
    assert ends == [b for _, b in tile_text(text, units, p, q)]
