"""The Compare page under AppTest: tables a and b, downloads, added splitters, links and defaults."""

from __future__ import annotations

from inspector import Workspace
from inspector.views.frames import article_specs
from tests.support.app import (
    SAMPLE,
    app,
    assert_clean,
    errors,
    plain,
    warnings,
)


def test_compare_page_tables_downloads_and_added_splitters():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    table_a, table_b = (d.value for d in at.dataframe)
    assert list(table_a["spec"]) == [str(s) for s in article_specs(800)]
    assert list(table_b.columns) == ["splitter", "spec", "answer@5", "answer@5 95%", "cut", "cut 95%", "rank miss",
                                     "ctx chars", "ctx tokens"]
    assert list(table_a.columns)[4:6] == ["code", "code 95%"] and table_a["code 95%"].str.match(r"^\[\d").all()
    # Paragraph, sentence, structured and recursive 800 answer within one query of each other: a tie.
    assert any("tied within noise on answer@5" in i.value for i in at.info)
    # Table a's verdict, documents compared pairwise: sentence and structured 800 keep every atom.
    assert any("sentence 800 and structured 800 are level on atoms kept whole" in i.value for i in at.info)
    structured = table_a[table_a["spec"] == "structured:800"].iloc[0]
    assert structured["chunks"] == Workspace(SAMPLE).summarize("structured:800").chunks
    assert len(at.get("download_button")) == 2
    select = at.multiselect(key="compare_specs")
    # With every default picked, the dropdown still offers splitters to add, at the sidebar's budget and around it.
    unpicked = [o for o in select.options if o not in select.value]
    assert {"heading:800", "structured:800+path", "fixed:800/120", "recursive:400", "structured:1600"} <= \
        set(unpicked) | set(select.value) and len(unpicked) >= 15
    select.set_value(["fixed:400", "heading:512", "not-a-spec"]).run()
    assert_clean(at)
    assert any("not-a-spec" in e for e in errors(at))
    assert list(at.dataframe[0].value["spec"]) == ["fixed:400", "heading:512"]
    assert at.query_params["cmp"] == ["fixed:400", "heading:512"]
    assert any("heading 512 is best on atoms kept whole" in i.value and "over fixed 400" in i.value
               for i in at.info)


def test_a_compare_link_opens_with_its_own_splitters():
    at = app({"cmp": ["fixed:300", "heading:512"]})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.multiselect(key="compare_specs").value == ["fixed:300", "heading:512"]
    assert list(at.dataframe[0].value["spec"]) == ["fixed:300", "heading:512"]


def test_compare_defaults_follow_the_sidebar_budget():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    at.number_input(key="budget").set_value(400).run()
    assert list(at.dataframe[0].value["spec"]) == [str(s) for s in article_specs(400)]
    assert "cmp" not in at.query_params


def test_compare_measures_the_documents_of_one_language():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    choice = at.selectbox(key="compare_language")
    assert choice.options[0].startswith("every language") and "zh (2)" in choice.options
    everything = at.dataframe[0].value
    choice.set_value("zh").run()
    assert_clean(at)
    chinese = at.dataframe[0].value
    part = Workspace(SAMPLE).subset_of("zh")
    assert [d.id for d in part.documents] == ["international/zh/release-notes-4-2.md",
                                              "international/zh/remote-work.md"]
    row = chinese[chinese["spec"] == "structured:800"].iloc[0]
    assert row["chunks"] == part.summarize("structured:800").chunks < everything["chunks"].iloc[0]
    asked = len(part.queries())
    assert 0 < asked < 200 and any(c.value.startswith(f"{asked} queries, ranked by bm25") for c in at.caption)


def test_the_chosen_language_is_in_the_link_and_a_bad_one_is_refused():
    at = app({"lang": "ja"})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.selectbox(key="compare_language").value == "ja"
    assert at.query_params["lang"] in ("ja", ["ja"])
    table_a = at.dataframe[0].value
    assert table_a[table_a["spec"] == "fixed:400"].iloc[0]["chunks"] == \
        Workspace(SAMPLE).subset_of("ja").summarize("fixed:400").chunks
    at = app({"lang": "klingon"})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert any("not a language code" in w for w in warnings(at))
    assert "lang" not in at.query_params
    at = app({"lang": "xh"})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert any("No document of this corpus is in" in i.value and "xh" in i.value for i in at.info)
    assert at.selectbox(key="compare_language").value == ""


def test_a_clicked_rate_says_its_count_and_interval_under_the_table():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    hint = "Click a rate or its interval for its count and how the interval was drawn."
    captions = lambda: [plain(c.value) for c in at.caption]  # noqa: E731
    assert captions().count(hint) == 2  # under tables a and b
    table_a = at.dataframe[0].value
    row = list(table_a["spec"]).index("fixed:400")
    # A click on a cell is what the browser sends as the table's selection.
    at.session_state["table_a"] = {"selection": {"rows": [], "columns": [], "cells": [(row, "code 95%")]}}
    at.run()
    assert_clean(at)
    (said,) = [c for c in captions() if c.startswith("fixed 400, code blocks:")]
    low, high = (float(x) for x in table_a["code 95%"].iloc[row].split("]")[0].strip("[").split(","))
    assert f"95% interval {low:.1f}–{high:.1f}% (documents resampled)" in said
    assert f"% of {table_a['code 95%'].iloc[row].split(' of ')[1]} atoms" in said
    assert captions().count(hint) == 1  # table b's still says how


def test_the_index_time_cost_table_counts_what_each_splitter_embeds():
    from inspector.measure.cost import index_cost

    at = app({"cmp": ["structured:800", "cluster:400t"]})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert len(at.dataframe) == 2, "no cost table until asked"
    at.toggle(key="compare_cost").set_value(True).run()
    assert_clean(at)
    cost = at.dataframe[1].value
    assert list(cost["splitter"]) == ["structured 800", "cluster 400t"]
    expected = index_cost(Workspace(SAMPLE), "cluster:400t", "bm25")
    row = cost.iloc[1]
    assert (row["splitter embeds"], row["splitter tokens"]) == (expected.chunker_texts, expected.chunker_tokens)
    assert cost["chunks embedded"].tolist() == [0, 0] and cost["dollars"].tolist() == [0.0, 0.0]
