"""``inspector.spec``: short strings in and out, imported chunk sets' specs, refusals that say why."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import SplitterSpec, parse_spec
from inspector.errors import SpecError
from inspector.kinds import kind_names
from inspector.kinds.chroma_cluster import ChromaMeaningOptions
from inspector.kinds.cluster import ClusterOptions
from inspector.kinds.llm import LlmOptions
from inspector.kinds.meaning import SIMILARITY_MODELS
from inspector.kinds.semantic import SemanticOptions
from inspector.spec import MAX_BUDGET


def test_an_imported_spec_reads_and_prints_its_short_form():
    spec = SplitterSpec.parse("imported:0123456789abcdef")
    assert (spec.kind, spec.chunk_set, spec.unit, spec.is_imported) == ("imported", "0123456789abcdef", "chars", True)
    assert str(spec) == "imported:0123456789abcdef" and spec.label == "imported 01234567"
    tokens = SplitterSpec.parse("imported:0123456789abcdef:cl100k_base")
    assert tokens.unit == "cl100k" and str(tokens) == "imported:0123456789abcdef:cl100k"
    assert SplitterSpec.parse(str(tokens)) == tokens
    assert not SplitterSpec.parse("structured:800").is_imported


@pytest.mark.parametrize("text, built_in", [
    ("structured:800", True), ("recursive:300t+address", True), ("imported:0123456789abcdef", False),
    ("ext-langchain-recursive:800", False), ("recursive:800+context", False)])
def test_built_in_chunks_are_made_from_each_document_alone(text, built_in):
    assert SplitterSpec.parse(text).is_built_in is built_in


@pytest.mark.parametrize("text", ["imported:800", "imported:0123456789ABCDEF", "imported:0123456789abcde",
                                  "imported:0123456789abcdef0", "imported:../../etc/passwd"])
def test_malformed_imported_specs_are_refused_with_the_form_to_use(text):
    with pytest.raises(SpecError, match="imported:ID"):
        SplitterSpec.parse(text)


def test_imported_chunks_take_no_budget_overlap_or_flags():
    with pytest.raises(SpecError, match="fixed"):
        SplitterSpec("imported", 800, chunk_set="0123456789abcdef")
    with pytest.raises(SpecError, match="fixed"):
        replace(SplitterSpec.imported("0123456789abcdef"), heading_prefix=True)
    with pytest.raises(SpecError, match="only imported"):
        SplitterSpec("structured", 800, chunk_set="0123456789abcdef")
    with pytest.raises(SpecError, match="no budget"):
        SplitterSpec.imported("0123456789abcdef").with_budget(400)
    assert SplitterSpec.imported("0123456789abcdef").budget == MAX_BUDGET


@pytest.mark.parametrize(
    ("text", "kind", "budget", "unit", "overlap", "label"),
    [
        ("structured:800", "structured", 800, "chars", 0, "structured 800"),
        ("fixed:800/120", "fixed", 800, "chars", 120, "fixed 800/120"),
        ("heading:256t:o200k", "heading", 256, "o200k", 0, "heading 256t"),
        ("heading:256t", "heading", 256, "o200k", 0, "heading 256t"),
        ("recursive:512t/50:cl100k", "recursive", 512, "cl100k", 50, "recursive 512t/50"),
        ("sentence:300:cl100k_base", "sentence", 300, "cl100k", 0, "sentence 300t"),
        ("paragraph:900c", "paragraph", 900, "chars", 0, "paragraph 900"),
    ],
)
def test_parse(text, kind, budget, unit, overlap, label):
    spec = SplitterSpec.parse(text)
    assert (spec.kind, spec.budget, spec.unit, spec.overlap, spec.label) == (kind, budget, unit, overlap, label)
    assert SplitterSpec.parse(str(spec)) == spec


def test_defaults_per_kind():
    assert parse_spec("structured:800").repeats_header is True
    assert parse_spec("structured:800-header").repeats_header is False
    assert parse_spec("recursive:800").repeats_header is False
    assert parse_spec("heading:256t").prefixes_path is True
    assert parse_spec("heading:256t-path").prefixes_path is False
    assert parse_spec("sentence:800+path").prefixes_path is True
    # Said, a structured splitter's header is written (seed mode's does not repeat it unasked);
    # the default mode's needs no saying.
    assert str(parse_spec("structured:800+header")) == "structured:800+header"
    assert parse_spec("structured:800+header").in_mode("markdown") == parse_spec("structured:800")
    assert parse_spec("structured:800+header").in_mode("seed") == parse_spec("structured:800+header")


def test_custom_separators_round_trip():
    spec = SplitterSpec("recursive", 300, separators=("\n\n", "; ", " "))
    assert str(spec) == "recursive:300;seps=%0A%0A,%3B%20,%20"
    assert parse_spec(str(spec)) == spec


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("fixed", "cannot read"),
        ("nosuch:100", "unknown splitter"),
        ("fixed:0", "positive"),
        ("fixed:100/100", "overlap (100) must be smaller than the budget (100)"),
        ("fixed:100/250", "must be smaller"),
        ("fixed:100+bold", "unknown flag"),
        ("fixed:10t:chars", "cannot use the unit"),
        ("fixed:10c:o200k", "cannot name a tokenizer"),
        ("fixed:100;color=red", "unknown option"),
        ("fixed:99999999", "larger than the limit"),
        ("fixed:" + "9" * 5000, "at most 1000 characters"),  # int() itself refuses 4,300 digits
        ("fixed:" + "9" * 990, "(990 digits) is larger than the limit"),
        ("fixed:100/" + "7" * 900, "overlap 777777777777… (900 digits)"),
        ("recursive:100;seps=", "separators"),
    ],
)
def test_refusals_say_why(text, reason):
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert reason in str(info.value)
    assert isinstance(info.value, ValueError)


def test_direct_construction_is_validated_too():
    with pytest.raises(SpecError, match="overlap"):
        SplitterSpec("fixed", 100, overlap=100)
    with pytest.raises(SpecError, match="budget"):
        SplitterSpec("fixed", -5)


def test_specs_are_hashable_values():
    assert len({parse_spec("fixed:800"), parse_spec("fixed:800"), parse_spec("fixed:800/10")}) == 2


@given(
    kind=st.sampled_from(kind_names()),
    budget=st.integers(1, 5000),
    tokens=st.booleans(),
    unit=st.sampled_from(["o200k", "cl100k"]),
    overlap_share=st.floats(0, 0.99),
    path=st.sampled_from([None, True, False]),
    header=st.sampled_from([None, True, False]),
    atoms=st.booleans(),
    embed=st.sampled_from(["", *SIMILARITY_MODELS]),
    threshold=st.integers(0, 99),
    piece_share=st.floats(0, 0.99),
    model=st.sampled_from(["gpt-4o-mini", "org/model-1.5:q4"]),
    context=st.booleans(),
)
def test_every_spec_round_trips(kind, budget, tokens, unit, overlap_share, path, header, atoms, embed, threshold,
                                piece_share, model, context):
    piece = int(budget * piece_share)
    options = {"semantic": SemanticOptions(atoms, embed, threshold), "cluster": ClusterOptions(atoms, embed, piece),
               "llm": LlmOptions(atoms, model, piece),
               "chroma-cluster": ChromaMeaningOptions(embed, max(1, piece)),
               "chroma-kamradt": ChromaMeaningOptions(embed, max(1, piece))}.get(kind)
    if isinstance(options, ChromaMeaningOptions):
        options = ChromaMeaningOptions(embed, min(options.piece, budget))
    spec = SplitterSpec(kind, budget, unit if tokens else "chars", 0 if options else int(budget * overlap_share),
                        heading_prefix=path, table_header=header, context=context, context_model=model * context,
                        options=options)
    again = parse_spec(str(spec))
    assert str(again) == str(spec) and again.options == spec.options and again.context_model == spec.context_model
    assert (again.kind, again.budget, again.unit, again.overlap) == (spec.kind, spec.budget, spec.unit, spec.overlap)
    assert again.prefixes_path == spec.prefixes_path
    assert again.repeats_header == spec.repeats_header


@pytest.mark.parametrize(("text", "reason"), [
    ("fixed:800+atoms", "+atoms belongs to the semantic, cluster and llm chunkers, not 'fixed'"),
    ("structured:800;threshold=90", "threshold belongs to the semantic chunker, not 'structured'"),
    ("semantic:800;piece=40", "piece belongs to the cluster, llm, chroma-cluster and chroma-kamradt chunkers, not "
                              "'semantic'"),
    ("ext-langchain:800;embed=minilm", "embed belongs to the semantic, cluster, chroma-cluster and chroma-kamradt "
                                       "chunkers"),
    ("cluster:800-atoms", "there is no -atoms"),
])
def test_a_kind_s_own_flags_and_options_are_refused_on_another_kind(text, reason):
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert reason in str(info.value)


def test_a_spec_holds_its_kind_s_options_and_no_other():
    assert parse_spec("semantic:800").options == SemanticOptions()
    assert SplitterSpec("cluster", 800) == parse_spec("cluster:800")
    with pytest.raises(SpecError, match="the fixed splitter's options are KindOptions, not SemanticOptions"):
        SplitterSpec("fixed", 800, options=SemanticOptions(atoms=True))
    with pytest.raises(SpecError, match="imported chunks are fixed"):
        SplitterSpec("imported", MAX_BUDGET, chunk_set="0123456789abcdef", options=LlmOptions(model="m"))


def test_adapters_are_told_apart_by_the_spec():
    assert SplitterSpec.parse("ext-langchain:800/100").is_adapter
    assert not SplitterSpec.parse("structured:800").is_adapter
    assert not SplitterSpec.parse("imported:0123456789abcdef").is_adapter
    assert SplitterSpec.imported("0123456789abcdef", "o200k_base").unit == "o200k"
