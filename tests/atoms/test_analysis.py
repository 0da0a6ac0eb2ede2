"""``inspector.atoms.analysis``: analyses cross processes intact, heading paths by offset."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.atoms.analysis import Analysis
from tests.support.paths import ROOT
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


@pytest.mark.parametrize(("mode", "module"), [("markdown", "inspector.atoms.markdown"),
                                               ("plain", "inspector.atoms.markdown"),
                                               ("seed", "inspector.atoms.seed")])
def test_a_detector_is_loaded_before_its_first_document(mode, module):
    """A server loads its detector when it opens the corpus, so no key press pays the import."""
    import subprocess
    import sys

    code = (f"import sys; from inspector.atoms import load_detector; assert {module!r} not in sys.modules; "
            f"load_detector({mode!r}); print({module!r} in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "True"


def test_an_unknown_detector_is_refused():
    from inspector.atoms import load_detector
    from inspector.errors import SpecError

    with pytest.raises(SpecError, match="unknown atom mode"):
        load_detector("regex")
