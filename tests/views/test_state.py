"""``inspector.views.state``: URL round trips, fallbacks with reasons, compare lists, budgets, units."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import SplitterSpec
from inspector.errors import SpecError
from inspector.kinds import kind_named, offered_kinds
from inspector.kinds.cluster import ClusterOptions
from inspector.kinds.semantic import SemanticOptions
from inspector.model import MODES
from inspector.spec import SWEEP_BUDGETS, parse_spec
from inspector.views.state import MAX_URL_VALUE, MAX_URL_VALUES, AppState, checked_spec, parse_budgets, unit_problem

UPLOADED = "upload:0123456789abcdef"


def test_default_state_is_the_articles_structured_splitter():
    state = AppState()
    assert str(state.spec()) == "structured:800"
    assert state.to_query_params() == {"spec": "structured:800"}


def test_full_state_round_trips_through_the_url():
    state = AppState(corpus="some/folder", mode="seed", doc="a/b.md",
                     splitter=SplitterSpec("fixed", 512, "cl100k", 64, heading_prefix=True, table_header=True),
                     lane_b="heading:256t", compare=("fixed:400", "structured:800"),
                     sweep=(100, 200), embed="cl100k", cap=8192)
    params = state.to_query_params()
    assert params["spec"] == "fixed:512t/64:cl100k+path+header"
    assert params["cmp"] == ["fixed:400", "structured:800"]
    again, problems = AppState.from_query_params(params)
    assert problems == []
    assert again == state


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(offered_kinds()), budget=st.integers(1, 5000), overlap_share=st.floats(0, 0.99),
       unit=st.sampled_from(["chars", "o200k", "cl100k"]), prefix=st.sampled_from([None, True, False]),
       header=st.sampled_from([None, True, False]), mode=st.sampled_from(MODES),
       doc=st.text(min_size=0, max_size=20), cap=st.integers(1, 100_000), atoms=st.booleans(),
       threshold=st.integers(0, 99), piece_share=st.floats(0, 0.99))
def test_any_valid_state_round_trips(kind, budget, overlap_share, unit, prefix, header, mode, doc, cap, atoms,
                                     threshold, piece_share):
    options = {"semantic": SemanticOptions(atoms, threshold=threshold),
               "cluster": ClusterOptions(atoms, piece=int(budget * piece_share))}.get(kind)
    overlap = int(budget * overlap_share) if budget > 1 and not kind_named(kind).overlap_refusal else 0
    state = AppState(splitter=SplitterSpec(kind, budget, unit, overlap, heading_prefix=prefix, table_header=header,
                                           options=options), mode=mode, doc=doc, cap=cap)
    again, problems = AppState.from_query_params(state.to_query_params())
    assert problems == []
    # None and the kind's default spell the same spec, so compare what runs.
    assert again.spec() == SplitterSpec.parse(str(state.spec()))
    assert (again.mode, again.doc, again.cap) == (mode, doc, cap)
    assert again.spec().options == state.splitter.options


@pytest.mark.parametrize("params, words", [
    ({"spec": "structured:0"}, "budget"),
    ({"spec": "fixed:800/800"}, "overlap"),
    ({"spec": "nonsense"}, "cannot read splitter spec"),
    ({"spec": "blender:800"}, "unknown splitter"),
    ({"spec": "fixed:800t:hf:/etc/passwd"}, "not allowed"),
    ({"mode": "regex"}, "atom mode"),
    ({"cap": "-5"}, "token cap"),
    ({"cap": "lots"}, "token cap"),
    ({"budgets": "400,abc"}, "sweep budgets"),
    ({"budgets": "0"}, "sweep budgets"),
    ({"vs": "fixed:10/20"}, "second splitter"),
    ({"embedder": "hf:/etc/passwd"}, "embedder tokenizer"),
    ({"embedder": "upload:ffffffffffffffff"}, "not on this server"),
    ({"corpus": "  "}, "empty corpus"),
])
def test_bad_values_fall_back_to_defaults_with_a_reason(params, words):
    state, problems = AppState.from_query_params(params)
    assert len(problems) == 1
    assert words in problems[0].lower()
    assert state == AppState()


def test_one_bad_value_keeps_the_good_ones():
    state, problems = AppState.from_query_params({"spec": "fixed:0", "doc": "x.md", "mode": "seed",
                                                  "cmp": ["fixed:400", "oops", "paragraph:800"]})
    assert state.doc == "x.md" and state.mode == "seed"
    assert state.compare == ("fixed:400", "paragraph:800")
    assert str(state.spec()) == "structured:800"
    assert len(problems) == 2 and "'oops'" in problems[1]


def test_repeated_values_use_the_last_and_single_strings_work():
    state, _ = AppState.from_query_params({"spec": ["fixed:400", "fixed:600"], "cmp": "sentence:800"})
    assert str(state.spec()) == "fixed:600"
    assert state.compare == ("sentence:800",)


def test_fallback_keeps_the_given_default():
    default = AppState(corpus="docs")
    state, problems = AppState.from_query_params({"spec": "bad"}, default=default)
    assert state.corpus == "docs" and problems


def test_uploaded_tokenizer_unit_only_when_the_server_holds_it():
    spec = f"fixed:256t:{UPLOADED}"
    state, problems = AppState.from_query_params({"spec": spec}, uploaded_units=[UPLOADED])
    assert problems == [] and state.unit == UPLOADED
    state, problems = AppState.from_query_params({"spec": spec})
    assert state.unit == "chars" and "upload it again" in problems[0]


def test_a_unit_the_app_cannot_count_in_leaves_spec_out_of_the_url_and_says_why():
    state = AppState(splitter=SplitterSpec("fixed", 800, "bogus"))
    assert "unknown unit" in state.spec_problem()
    assert "spec" not in state.to_query_params()
    with pytest.raises(SpecError):
        state.spec()


def test_too_many_compared_splitters_are_trimmed():
    specs = [f"fixed:{100 + i}" for i in range(20)]
    state, problems = AppState.from_query_params({"cmp": specs})
    assert len(state.compare) == 16 and "first 16" in problems[-1]


def test_parse_budgets():
    assert parse_budgets("800, 400,400 ;1200") == ((400, 800, 1200), None)
    assert parse_budgets("")[1] == "no budgets given"
    assert "not a whole number" in parse_budgets("1.5")[1]
    assert "at most 24" in parse_budgets(",".join(str(i) for i in range(1, 30)))[1]


def test_unit_problem_and_checked_spec():
    assert unit_problem("o200k", []) is None
    assert unit_problem(UPLOADED, [UPLOADED]) is None
    assert "not allowed" in unit_problem("hf:tok.json", [])
    with pytest.raises(SpecError, match="not allowed"):
        checked_spec("fixed:100t:./tokenizer.json")
    assert str(checked_spec("fixed:800/120")) == "fixed:800/120"


def test_default_sweep_is_the_articles():
    assert AppState().sweep == SWEEP_BUDGETS


def test_app_state_keeps_the_budget_while_imported_chunks_are_chosen():
    state = AppState(splitter=SplitterSpec("fixed", 512, overlap=64))
    spec = SplitterSpec.imported("0123456789abcdef", "o200k")
    chosen = state.with_spec(spec)
    assert chosen.spec() == spec and (chosen.budget, chosen.splitter.overlap, chosen.kind) == (512, 64, "imported")
    assert chosen.to_query_params()["spec"] == "imported:0123456789abcdef:o200k"
    again, problems = AppState.from_query_params(chosen.to_query_params())
    assert not problems and again.spec() == spec
    back = chosen.with_spec(SplitterSpec.parse("structured:900"))
    assert back.chunk_set == "" and back.spec() == SplitterSpec.parse("structured:900")


@pytest.mark.parametrize("key", ["spec", "vs", "cmp"])
def test_a_number_of_thousands_of_digits_in_a_link_is_refused_not_raised(key):
    state, problems = AppState.from_query_params({key: "fixed:" + "9" * 5000})
    assert state == AppState() and len(problems) == 1
    state, problems = AppState.from_query_params({key: "fixed:" + "9" * 900})
    assert state == AppState() and "digits" in problems[0]


def test_link_values_are_bounded_in_length_and_in_number():
    state, problems = AppState.from_query_params({"corpus": "x" * (MAX_URL_VALUE + 1), "mode": "seed"})
    assert state.corpus == AppState().corpus and state.mode == "seed"
    assert problems == [f"The link's 'corpus' value ignored: {MAX_URL_VALUE + 1:,} characters, more than the "
                        f"{MAX_URL_VALUE:,} a setting may have."]
    state, problems = AppState.from_query_params({"cmp": ["fixed:100"] * 10_000})
    assert state.compare == ("fixed:100",)
    assert any(f"more than {MAX_URL_VALUES} times" in p for p in problems)
    long_doc = "docs/" + "a" * 4000 + ".md"
    assert AppState.from_query_params({"doc": long_doc}) == (AppState(doc=long_doc), [])


def test_the_embedder_travels_under_a_key_streamlit_leaves_alone():
    state = AppState(embed="cl100k")
    assert state.to_query_params()["embedder"] == "cl100k" and "embed" not in state.to_query_params()
    assert AppState.from_query_params(state.to_query_params())[0] == state


def test_front_matter_kept_travels_in_the_link():
    state = AppState(keep_front_matter=True)
    assert state.to_query_params()["frontmatter"] == "keep"
    assert AppState.from_query_params(state.to_query_params())[0] == state
    kept, problems = AppState.from_query_params({"frontmatter": "sometimes"})
    assert not kept.keep_front_matter and "not 'keep' or 'strip'" in problems[0]


def test_address_stamps_and_context_lines_travel_in_the_link(monkeypatch):
    monkeypatch.delenv("CHUNK_INSPECTOR_CONTEXT_MODEL", raising=False)
    link = "structured:800+address+context;stamp=%7Btitle%7D;llm=llama3.2"
    state, problems = AppState.from_query_params({"spec": [link]})
    splitter = state.splitter
    assert problems == []
    assert (splitter.address, splitter.stamp, splitter.context_model) == (True, "{title}", "llama3.2")
    assert state.to_query_params()["spec"] == link
    state, problems = AppState.from_query_params({"spec": ["structured:800+context"]})
    assert str(state.spec()) == "structured:800" and "needs the model that wrote the lines" in problems[0]
    monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_MODEL", "m")
    assert str(checked_spec("structured:800+context")) == "structured:800+context;llm=m"


@pytest.mark.parametrize("state, lane", [
    (AppState(), "fixed:800"),
    (AppState(splitter=SplitterSpec("fixed", 400)), "structured:400"),
    (AppState(splitter=SplitterSpec("heading", 256, "o200k")), "structured:256:o200k"),
    (AppState(splitter=SplitterSpec("structured", 800, "o200k"), chunk_set="a" * 16), "structured:800"),
])
def test_the_second_lane_is_another_splitter_at_the_same_budget(state, lane):
    assert state.second_lane() == lane
    assert parse_spec(lane).kind != state.kind


def test_a_link_runs_a_chunker_on_minilm_only_where_the_server_allows_transformers(monkeypatch):
    monkeypatch.delenv("CHUNK_INSPECTOR_TRANSFORMERS", raising=False)
    link = {"spec": "semantic:800+atoms;embed=minilm;threshold=90"}
    state, problems = AppState.from_query_params(link)
    assert state.kind == "structured" and "CHUNK_INSPECTOR_TRANSFORMERS" in problems[0]
    monkeypatch.setenv("CHUNK_INSPECTOR_TRANSFORMERS", "minilm")
    state, problems = AppState.from_query_params(link)
    assert problems == [] and str(state.spec()) == link["spec"]
    assert state.splitter.options == SemanticOptions(atoms=True, embed="minilm", threshold=90)
