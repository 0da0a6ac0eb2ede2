"""Every page under random and hostile links: no exception reaches the page, and a refused value
is said with a warning (or an error) and leaves the address.

``FUZZ_EXAMPLES=200`` runs many more examples per page than CI does.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from inspector.errors import ReviewInputError
from inspector.review import ReviewRound
from inspector.views import AppState
from tests.support.app import SAMPLE, assert_clean
from tests.support.paths import ROOT
from tests.support.strategies import hostile_text

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "4"))
PAGES = ["app_pages/document.py", "app_pages/compare.py", "app_pages/sweep.py", "app_pages/sizes.py",
         "app_pages/orphan_test.py", "app_pages/import_chunks.py", "app_pages/tune.py"]
ROUND = ReviewRound.create(__import__("inspector").Workspace(SAMPLE), "structured:800", size=3).to_query_params()
GOOD = {"spec": ["structured:600", "fixed:300/50", "heading:128t", "imported:0123456789abcdef"],
        "doc": [SAMPLE.documents[1].id], "mode": ["seed", "markdown"], "corpus": ["sample"],
        "vs": ["fixed:400"], "cmp": ["fixed:400", "sentence:600"], "budgets": ["400,800"],
        "embedder": ["cl100k"], "cap": ["256"], **{key: [value] for key, value in ROUND.items()}}
KEYS = sorted(GOOD)


@st.composite
def links(draw) -> dict[str, str]:
    keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True))
    link = {}
    for key in keys:
        good = st.sampled_from(GOOD[key])
        link[key] = draw(st.one_of(good, hostile_text(), st.sampled_from(["9" * 5000, "x" * 5000, "\x00"])))
    return link


ROUND_KEYS = set(ROUND)


@pytest.mark.parametrize("page", PAGES)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 6,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(link=links())
def test_no_link_breaks_a_page_and_refusals_are_said(page, link, isolated_app):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(link)
    if page.endswith(("orphan_test.py", "import_chunks.py")):
        at.run()  # AppTest finds a page whose address is not its file name only after a first run
        assert_clean(at)
    at.switch_page(page).run()
    assert_clean(at)
    told = bool(at.warning) or bool(at.error)
    for key, value in link.items():
        assert len(str(at.query_params.get(key, ""))) <= 4_096, key
        if key in AppState.URL_KEYS:
            _, problems = AppState.from_query_params({key: value})
            if problems:  # the library refuses it: the page says so, and the address drops it
                assert told and at.query_params.get(key) != value, (key, value[:80], problems)
    if page.endswith("orphan_test.py") and ROUND_KEYS & set(link):
        try:
            ReviewRound.from_query_params({k: v for k, v in link.items() if k in ROUND_KEYS})
        except ReviewInputError:
            assert told, link
