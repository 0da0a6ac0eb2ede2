"""``inspector.split.packing_fast`` gives exactly what the general path gives.

The fast path packs by bisection over piece ends (``piece_ends``, worked out once per
document) instead of building and stepping through every piece; here its chunks (spans,
prefixes, oversized flags) are compared with the general path's (``splitters.general_chunks``, the
kind's split: every piece built, packed by ``packing.pack``) on generated documents and on the sample corpus."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze, load_corpus, split_document
from inspector.lengths import get_length
from inspector.spec import SplitterSpec, parse_spec
from inspector.split.job import SplitJob
from inspector.split.packing import Sizer
from inspector.split.piece_ends import UnitBounds, unit_lists
from inspector.split.splitters import fast_columns, general_chunks, split_spans
from tests.support.paths import SAMPLE
from tests.support.strategies import markdown_document

CHARS = get_length("chars")


KINDS = ("structured", "paragraph", "sentence", "recursive", "heading")


FLAGS = ("", "+path", "-header", "+path-header")


def general(text: str, spec: SplitterSpec, analysis):
    """``split_spans`` as it is without the fast path: every piece built (the kind's split),
    packed one by one by ``packing.pack``."""
    return general_chunks(SplitJob(text, spec, analysis, Sizer(text, CHARS)))


def fast(text: str, spec: SplitterSpec, analysis):
    """The fast path's chunks as ``split_spans`` returns them, or None where it does not apply."""
    if fast_columns(SplitJob(text, spec, analysis, Sizer(text, CHARS))) is None:
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
            general_chunks(SplitJob(text, parse_spec(spec), analysis, Sizer(text, get_length(parse_spec(spec).unit))))
    assert fast(text, parse_spec("fixed:5"), analysis) is None


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
