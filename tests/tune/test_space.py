"""What ``tune`` tries: the default space, an embedder's cap, and space files."""

from __future__ import annotations

import re

import pytest

from inspector.errors import SpecError
from inspector.spec import parse_spec
from inspector.tune.space import MAX_CANDIDATES, Space, parse_cap


def test_the_default_space_crosses_kinds_budgets_overlap_and_prefixes_once_each():
    specs = Space().candidates()
    texts = [str(s) for s in specs]
    assert len(texts) == len(set(texts)) == 52
    assert {s.kind for s in specs} == {"structured", "recursive", "sentence", "paragraph", "heading", "fixed"}
    assert {s.budget for s in specs} == {400, 800, 1200, 1600}
    # Overlap where cuts fall inside paragraphs, a heading path where the splitter knows headings.
    assert {s.kind for s in specs if s.overlap} == {"fixed", "recursive"}
    assert "fixed:800/120" in texts and "recursive:1600/240" in texts
    assert {s.kind for s in specs if s.heading_prefix} == {"structured", "recursive", "sentence", "paragraph"}
    assert all(parse_spec(t) == s for t, s in zip(texts, specs))


def test_a_cap_sets_the_budgets_and_their_unit():
    assert parse_cap("512t") == (512, "o200k") and parse_cap("8000") == (8000, "chars")
    space = Space.for_cap("512t:cl100k")
    assert space.budgets == (128, 256, 384, 512) and space.unit == "cl100k"
    specs = space.candidates()
    assert all(s.unit == "cl100k" and s.in_tokens for s in specs)
    assert "recursive:512t/77:cl100k" in {str(s) for s in specs}
    with pytest.raises(SpecError, match="--cap 'big' is not a size"):
        parse_cap("big")
    with pytest.raises(SpecError, match="not a size"):
        parse_cap("512/20")


def test_a_space_file_names_some_axes_and_keeps_the_others(tmp_path):
    path = tmp_path / "space.toml"
    path.write_text('kinds = ["structured", "fixed"]\nbudgets = [300, 600]\noverlaps = [0, 50]\n'
                    'prefixes = ["", "+address"]\nheaders = ["default", "-header"]\nspecs = ["sentence:700"]\n')
    texts = [str(s) for s in Space.read(path).candidates()]
    assert "structured:300-header+address" in texts and "fixed:600/50" in texts and texts[-1] == "sentence:700"
    assert not any("fixed" in t and "address" in t for t in texts)
    path.write_text('kinds = ["structured"]\nunit = "o200k"\nprefixes = [""]\n')
    assert {str(s) for s in Space.read(path, cap="256t").candidates()} == {
        "structured:64t", "structured:128t", "structured:192t", "structured:256t"}


@pytest.mark.parametrize("text, message", [
    ("kinds = ['chunky']", "unknown splitter 'chunky'"),
    ("budgets = [0]", "positive whole numbers"),
    ("budgets = 800", "budgets must be a list"),
    ("prefixes = ['+context']", "unknown prefix"),
    ("headers = ['always']", "unknown header setting"),
    ("colour = 'red'", "unknown key 'colour'"),
    ("specs = ['structured:ten']", "space spec 'structured:ten'"),
    ("overlaps = [-1]", "overlaps must be zero or more"),
    ("budgets = [100]\noverlaps = [100]", "cannot run: overlap (100) must be smaller"),
    ("budgets = [" + ", ".join(str(b) for b in range(100, 100 + 10 * MAX_CANDIDATES, 10)) + "]",
     f"more than the {MAX_CANDIDATES}"),
    ("kinds = [", "is not TOML"),
])
def test_a_bad_space_file_is_refused_with_its_reason(tmp_path, text, message):
    path = tmp_path / "space.toml"
    path.write_text(text)
    with pytest.raises(SpecError, match=re.escape(message)):
        Space.read(path)
    with pytest.raises(SpecError, match="cannot read space file"):
        Space.read(tmp_path / "missing.toml")
