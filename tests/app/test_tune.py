"""The Tune page under AppTest: a search of a small space on the sample corpus's golden set, its
table and verdict equal to the library's, the recommendation made the sidebar's splitter, and a
second visitor shown the finished search at once."""

from __future__ import annotations

import pytest

from inspector import Workspace, load_corpus
from inspector.retrieval.golden_files import load_golden
from inspector.tune import embedding_line, tune
from tests.support.app import app, assert_clean, errors
from tests.support.paths import SAMPLE

SPACE = {"tune_kinds": ["structured", "fixed"], "tune_budgets": "400, 800", "tune_overlap": False,
         "tune_path": False}


@pytest.fixture(autouse=True)
def data_folder(isolated_app):
    return isolated_app


def _opened(at):
    at.switch_page("app_pages/tune.py").run()
    assert_clean(at)
    for key, value in SPACE.items():
        widget = at.text_input(key=key) if key == "tune_budgets" else at.checkbox(key=key) \
            if isinstance(value, bool) else at.multiselect(key=key)
        widget.set_value(value)
    return at


def test_a_search_ranks_the_space_as_the_library_does_and_its_winner_becomes_the_splitter():
    at = _opened(app({"spec": "recursive:800"}))
    at.button(key="tune_search").click().run()
    assert_clean(at)
    frame = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    work = Workspace(load_corpus(SAMPLE))
    truth = tune(work, ["structured:400", "structured:800", "fixed:400", "fixed:800"],
                 golden=[load_golden(SAMPLE / "golden-questions.jsonl", work)])
    assert list(frame["spec"]) == [str(c.spec) for c in truth.candidates]
    assert list(frame["score"]) == [c.score.value for c in truth.candidates]
    assert any(truth.decision.sentence()[:40] in i.value.replace("\\", "") for i in at.info)
    assert at.get("plotly_chart")
    at.button(key="use_recommended").click().run()
    assert_clean(at)
    assert at.query_params["spec"] in (str(truth.recommended), [str(truth.recommended)])


def test_with_a_dense_retriever_the_page_says_how_many_chunk_texts_the_indexes_shared():
    at = _opened(app({"spec": "recursive:800", "retriever": "dense:wordllama"}))
    at.text_input(key="tune_budgets").set_value("4000, 8000")
    at.multiselect(key="tune_kinds").set_value(["structured"])
    at.button(key="tune_search").click().run()
    assert_clean(at)
    work = Workspace(load_corpus(SAMPLE))
    truth = tune(work, ["structured:4000", "structured:8000"], retriever="dense:wordllama",
                 golden=[load_golden(SAMPLE / "golden-questions.jsonl", work)])
    said = embedding_line(truth)
    assert truth.embedding.shared > 0 and any(said == c.value.replace("\\", "") for c in at.caption), said


def test_a_second_visitor_sees_the_finished_search_without_asking_again():
    first = _opened(app())
    first.button(key="tune_search").click().run()
    assert any(d.value.columns[-1] == "verdict" for d in first.dataframe)
    second = _opened(app())
    second.run()
    assert any(d.value.columns[-1] == "verdict" for d in second.dataframe), "shown without pressing Search"


def test_a_bad_space_is_refused_with_its_reason():
    at = _opened(app())
    at.text_input(key="tune_budgets").set_value("400, lots").run()
    assert any("Budgets refused" in e and "'lots'" in e for e in errors(at))
    at.text_input(key="tune_budgets").set_value("400").run()
    at.multiselect(key="tune_kinds").set_value([]).run()
    assert not errors(at)  # no kind chosen: the six kinds


def test_your_questions_show_what_each_configuration_hands_the_model_for_them():
    from inspector.retrieval import load_questions

    text = b"How many vacation days do employees get?\nWhich regions store backups?\nWhat port does the admin use?\n"
    at = _opened(app())
    at.file_uploader(key="orphan_questions_upload").set_value(("mine.txt", text, "text/plain")).run()
    assert_clean(at)
    assert any("3 questions read from mine" in s.value for s in at.success)
    assert not [b for b in at.button if b.key == "orphan_theirs"], "no review of retrieved chunks offered here"
    at.button(key="tune_search").click().run()
    assert_clean(at)
    frame = next(d.value for d in at.dataframe if "verdict" in d.value.columns)
    work = Workspace(load_corpus(SAMPLE))
    truth = tune(work, ["structured:400", "structured:800", "fixed:400", "fixed:800"],
                 golden=[load_golden(SAMPLE / "golden-questions.jsonl", work)],
                 questions=load_questions(text, name="mine.txt"))
    assert list(frame["spec"]) == [str(c.spec) for c in truth.candidates]
    assert list(frame["whole@5"]) == [c.whole.value for c in truth.candidates]
    assert list(frame["your ctx tokens"]) == [round(c.asked_tokens, 1) for c in truth.candidates]
    assert frame["whole@5 95%"].str.startswith("[").all()
