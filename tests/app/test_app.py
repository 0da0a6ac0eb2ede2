"""The router (``app_pages/router.py``, run by ``app.py``): every page opens cleanly under AppTest and keeps the URL;
the app's main scripts run it only as ``__main__``."""

from __future__ import annotations

import json

import pytest

from tests.support.app import (
    CHARTS,
    PAGES,
    TITLES,
    app,
    assert_clean,
    charts,
    errors,
)
from tests.support.paths import ROOT


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_cleanly_and_keeps_the_url(page):
    at = app({"spec": "fixed:800/120"})
    at.switch_page(page).run()
    assert_clean(at)
    assert not errors(at) and not at.warning
    assert at.title[0].value == TITLES[page]
    assert len(charts(at)) == CHARTS[page]
    assert at.query_params["spec"] == "fixed:800/120"
    json.dumps(at.query_params)  # plain strings and lists only
    for table in at.dataframe:  # wider than the page, a table scrolls with its rows still named
        first = table.value.columns[0]
        assert json.loads(table.proto.columns)[first].get("pinned") is True, first
        assert table.proto.placeholder == "–", "a missing value is a dash, not the word None"


@pytest.mark.parametrize("script", ["app.py", "app_pages/main.py"])
def test_a_worker_spawned_while_a_page_runs_does_not_run_the_app(script, monkeypatch):
    """The offload pool's workers are spawned while a page runs, when Streamlit has made the
    script ``__main__``; a spawned process imports the parent's main script as ``__mp_main__``
    (as here), which must not draw the app again in the worker."""
    import runpy

    import streamlit

    def drawn(*args, **kwargs):
        raise AssertionError(f"{script} ran the app in a worker process")

    monkeypatch.setattr(streamlit, "set_page_config", drawn)
    runpy.run_path(str(ROOT / script), run_name="__mp_main__")
