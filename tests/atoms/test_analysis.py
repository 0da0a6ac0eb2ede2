"""``inspector.atoms.analysis``: analyses cross processes intact, heading paths by offset."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.atoms.analysis import Analysis
from tests.support.strategies import FAST, markdown_document, seed_text


@FAST
@given(text=st.one_of(seed_text(), markdown_document()), mode=st.sampled_from(["seed", "markdown"]))
def test_plain_analyses_round_trip(text, mode):
    analysis = analyze(text, mode)
    assert Analysis.from_plain(analysis.to_plain()) == analysis


@settings(max_examples=100, deadline=None)
@given(text=markdown_document(), offsets=st.lists(st.integers(0, 2000), max_size=30))
def test_heading_paths_in_one_pass_are_each_path(text, offsets):
    index = analyze(text, "markdown").heading_index
    assert index.paths_at(offsets) == [index.path(x) for x in offsets]
