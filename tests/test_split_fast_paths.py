"""The markdown splitters' character-budget fast path gives exactly what the general path gives.

``packing_fast`` packs by bisection over lazily found piece boundaries instead of building and
stepping through every piece; here its chunks (spans, prefixes, oversized flags) are compared
with ``packing.pack`` over ``splitters._pieces``, on generated documents and on the sample corpus.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze, load_corpus, split_document
from inspector.lengths import get_length
from inspector.packing import Measure, pack
from inspector.packing_fast import Segments, packed_chars, unit_lists
from inspector.spec import SplitterSpec, parse_spec
from inspector.splitters import _pieces, _prefixer, _units, split_spans

from .strategies import markdown_document

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"
CHARS = get_length("chars")
KINDS = ("structured", "paragraph", "sentence")
FLAGS = ("", "+path", "-header", "+path-header")


def general(text: str, spec: SplitterSpec, analysis):
    """``split_spans`` as it is without the fast path: every piece built, packed one by one."""
    measure = Measure(text, CHARS)
    prefix_at = _prefixer(text, spec, analysis, False, measure)
    pieces = _pieces(text, spec, analysis, measure, prefix_at)
    return pack(pieces, spec.budget, measure, overlap=spec.overlap, prefix_at=prefix_at,
                separators=spec.separators[1:] or spec.separators)


def fast(text: str, spec: SplitterSpec, analysis):
    measure = Measure(text, CHARS)
    return packed_chars(text, spec, analysis, measure, _prefixer(text, spec, analysis, False, measure))


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
    assert list(zip(starts, ends)) == _units(analysis)


@pytest.mark.parametrize("spec", ["structured:800", "structured:200+path", "paragraph:300", "sentence:120",
                                  "structured:60"])
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
    assert Segments.over("abcdef", [0, 2], [3, 5]) is None  # overlapping units
    text = "One. Two.\n\nThree."
    analysis = analyze(text, "markdown")
    shuffled = type(analysis)(analysis.mode, analysis.atoms, analysis.paragraphs, analysis.sentences[::-1])
    assert unit_lists(shuffled) is None
    spec = parse_spec("sentence:5")
    assert fast(text, spec, shuffled) is None
    assert split_spans(text, spec, shuffled, CHARS) == general(text, spec, shuffled)


def test_other_splitters_take_the_general_path():
    text = "One. Two.\n\nThree."
    analysis = analyze(text, "markdown")
    for spec in ("recursive:5", "heading:5", "fixed:5"):
        assert fast(text, parse_spec(spec), analysis) is None
