"""The router (``app.py``): every page opens cleanly under AppTest and keeps the URL."""

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
