"""The markdown splitters' character-budget fast path gives exactly what the general path gives.

``packing_fast`` packs by bisection over piece ends (``piece_ends``, worked out once per
document) instead of building and stepping through every piece; here its chunks (spans,
prefixes, oversized flags) are compared with the general path's (``pieces.split_general``: every piece built, packed by
``packing.pack``) on generated documents and on the sample corpus, and its piece ends with
``packing.tile_text``'s.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze, load_corpus, split_document
from inspector.lengths import get_length
from inspector.model import Chunk, make_chunks
from inspector.spec import SplitterSpec, parse_spec
from inspector.split.packing import Sizer, tile_text
from inspector.split.packing_fast import packed_columns
from inspector.split.piece_ends import UnitBounds, unit_lists
from inspector.split.pieces import markdown_units, split_general
from inspector.split.prefixes import prefixer
from inspector.split.splitters import split_spans

from .strategies import markdown_document

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"
CHARS = get_length("chars")
KINDS = ("structured", "paragraph", "sentence", "recursive", "heading")
FLAGS = ("", "+path", "-header", "+path-header")


def general(text: str, spec: SplitterSpec, analysis):
    """``split_spans`` as it is without the fast path: every piece built (``pieces.markdown_pieces``
    or the heading splitter's sections), packed one by one by ``packing.pack``."""
    return split_general(text, spec, analysis, Sizer(text, CHARS))


def fast(text: str, spec: SplitterSpec, analysis):
    """The fast path's chunks as ``split_spans`` returns them, or None where it does not apply."""
    sizer = Sizer(text, CHARS)
    if packed_columns(text, spec, analysis, sizer, prefixer(text, spec, analysis, False, sizer)) is None:
        return None
    return split_spans(text, spec, analysis, CHARS)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), kind=st.sampled_from(KINDS), budget=st.integers(1, 400),
       flags=st.sampled_from(FLAGS))
def test_fast_path_equals_the_general_packer(text, kind, budget, flags):
    spec = parse_spec(f"{kind}:{budget}{flags}")
    analysis = analyze(text, "markdown")
    ours = fast(text, spec, analysis)
    assert ours is not None  # generated documents meet the fast path's preconditions
    assert ours == general(text, spec, analysis)


@settings(max_examples=100, deadline=None)
@given(text=markdown_document())
def test_unit_lists_are_the_units(text):
    analysis = analyze(text, "markdown")
    starts, ends = unit_lists(analysis)
    assert list(zip(starts, ends)) == markdown_units(analysis)


@pytest.mark.parametrize("spec", ["structured:800", "structured:200+path", "paragraph:300", "sentence:120",
                                  "structured:60", "recursive:300", "heading:800", "heading:150-path"])
def test_sample_corpus_splits_are_the_general_ones(spec):
    spec = parse_spec(spec)
    for document in load_corpus(SAMPLE).documents:
        analysis = analyze(document.text, "markdown")
        ours = split_document(document, spec, analysis, CHARS)
        expected = general(document.text, spec, analysis)
        assert [(c.start, c.end, c.prefix) for c in ours.chunks] == [(p.start, p.end, p.prefix) for p in expected]
        assert list(ours.oversized) == [i for i, p in enumerate(expected)
                                        if len(p.prefix) + p.end - p.start > spec.budget]
        assert [c.heading_path for c in ours.chunks] == [analysis.heading_path(p.start) for p in expected]


def test_out_of_order_units_fall_back_to_the_general_path():
    assert UnitBounds.of("abcdef", [0, 2], [3, 5]) is None  # overlapping units
    assert UnitBounds.of("abcdef", [0, 2], [0, 5]) is None  # an empty unit
    text = "One. Two.\n\nThree."
    analysis = analyze(text, "markdown")
    shuffled = type(analysis)(analysis.mode, analysis.atoms, analysis.paragraphs, analysis.sentences[::-1])
    assert unit_lists(shuffled) is None
    spec = parse_spec("sentence:5")
    assert fast(text, spec, shuffled) is None
    assert split_spans(text, spec, shuffled, CHARS) == general(text, spec, shuffled)


def test_other_splits_take_the_general_path():
    text = "One. Two.\n\nThree."
    analysis = analyze(text, "markdown")
    for spec in ("fixed:5", "sentence:5/2", "heading:5t"):
        assert split_spans(text, parse_spec(spec), analysis, get_length(parse_spec(spec).unit)) == \
            split_general(text, parse_spec(spec), analysis, Sizer(text, get_length(parse_spec(spec).unit)))
    assert fast(text, parse_spec("fixed:5"), analysis) is None


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


@settings(max_examples=500, deadline=None)
@given(units_and_gap())
def test_gap_ends_are_the_tiles_ends(case):
    text, units, p, q = case
    bounds = UnitBounds.of(text, [a for a, _ in units], [b for _, b in units])
    ends: list[int] = []
    bounds.gap_ends(p, q, ends)
    assert ends == [b for _, b in tile_text(text, units, p, q)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=" \n-*>|`~#ab.1[]()", max_size=300), kind=st.sampled_from(KINDS),
       budget=st.integers(1, 120), flags=st.sampled_from(FLAGS))
def test_fast_path_equals_the_general_packer_on_odd_text(text, kind, budget, flags):
    """Markup fragments, stray markers and unclosed fences: wherever the fast path applies it
    agrees with the general one."""
    spec = parse_spec(f"{kind}:{budget}{flags}")
    analysis = analyze(text, "markdown")
    ours = fast(text, spec, analysis)
    if ours is not None:
        assert ours == general(text, spec, analysis)


@settings(max_examples=100, deadline=None)
@given(text=markdown_document(), offsets=st.lists(st.integers(0, 2000), max_size=30))
def test_heading_paths_in_one_pass_are_each_path(text, offsets):
    index = analyze(text, "markdown").heading_index
    assert index.paths_at(offsets) == [index.path(x) for x in offsets]


def test_chunks_made_from_columns_equal_chunks_made_one_by_one():
    made = make_chunks("a.md", [0, 5], [5, 9], ["p\n", ""], "structured:800", [("A",), ("A", "B")])
    expected = (Chunk("a.md", 0, 0, 5, "p\n", "structured:800", ("A",)),
                Chunk("a.md", 1, 5, 9, "", "structured:800", ("A", "B")))
    assert made == expected
    assert [c.id for c in made] == [c.id for c in expected]
    assert hash(made[1]) == hash(expected[1])
    assert make_chunks("a.md", [3], [4], None, "x", [()]) == (Chunk("a.md", 0, 3, 4, "", "x", ()),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].start = 1  # still frozen
