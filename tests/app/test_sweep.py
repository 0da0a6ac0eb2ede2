"""The Budget sweep page under AppTest: budgets from the box and the link."""

from __future__ import annotations

from tests.support.app import (
    app,
    assert_clean,
    errors,
)


def test_sweep_page_budgets():
    at = app({"budgets": "400,1200"})
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    frame = at.dataframe[0].value
    assert list(frame["budget"]) == [400, 1200] and list(frame["spec"]) == ["structured:400", "structured:1200"]
    at.text_input(key="sweep_budgets").input("300, x").run()
    assert any("Budgets not understood" in e for e in errors(at))
    at.text_input(key="sweep_budgets").input("2400, 300").run()
    assert list(at.dataframe[0].value["budget"]) == [300, 2400]
    assert at.query_params["budgets"] == "300,2400"
