"""The app's pages under Streamlit's AppTest: widgets by key, URL state, and every bad setting shown as
an error, never an exception. (AppTest runs no browser: HTML and charts are checked elsewhere.)"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Workspace, get_length, load_corpus
from inspector.views.frames import article_specs, doc_view, size_summary, sizes_frame
from inspector.views.launch import ENV_CORPUS, ENV_ROOTS
from inspector.views.text import markdown_escape

ROOT = pathlib.Path(__file__).resolve().parent.parent
SAMPLE = load_corpus(ROOT / "sample_corpus")
FIRST = SAMPLE.documents[0]
PAGES = ("app_pages/document.py", "app_pages/compare.py", "app_pages/sweep.py", "app_pages/sizes.py")
CHARTS = {"app_pages/document.py": 0, "app_pages/compare.py": 2, "app_pages/sweep.py": 2, "app_pages/sizes.py": 1}
TITLES = {"app_pages/document.py": "Document", "app_pages/compare.py": "Compare splitters",
          "app_pages/sweep.py": "Budget sweep", "app_pages/sizes.py": "Chunk sizes"}


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """No launch settings leak in from the shell running the tests."""
    monkeypatch.delenv(ENV_ROOTS, raising=False)
    monkeypatch.delenv(ENV_CORPUS, raising=False)


def app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.query_params.update(params or {})
    return at.run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plain(markdown: str) -> str:
    """Message text with the app's markdown escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning]


def drawing(at: AppTest) -> str:
    """The HTML of the overlay (or of the side-by-side lanes)."""
    found = [h.value for h in at.html if 'class="ci-overlay"' in h.value or 'class="ci-lanes"' in h.value]
    assert len(found) == 1
    return found[0]


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def expected_cuts(spec: str, document=FIRST) -> int:
    return len(doc_view(Workspace(SAMPLE), document, spec, get_length("chars")).cuts)


def test_document_page_opens_on_the_first_document():
    at = app()
    assert_clean(at)
    assert at.title[0].value == "Document"
    shown = metrics(at)
    assert shown["Cut atoms"] == str(expected_cuts("structured:800"))
    assert shown["Chunks"] == str(len(doc_view(Workspace(SAMPLE), FIRST, "structured:800", get_length("chars"))
                                      .result.chunks))
    assert at.query_params == {"spec": "structured:800", "doc": FIRST.id}
    overlay = drawing(at)
    assert overlay.startswith('<div class="ci-overlay"') and "# 2025 in review" in overlay


def test_changing_splitter_and_budget_changes_the_red_count_and_the_url():
    at = app()
    assert at.checkbox(key="table_header").value is True  # structured repeats headers by default
    at.selectbox(key="kind").set_value("fixed")
    at.number_input(key="budget").set_value(400)
    at.run()
    assert_clean(at)
    assert metrics(at)["Cut atoms"] == str(expected_cuts("fixed:400")) != str(expected_cuts("structured:800"))
    assert at.checkbox(key="table_header").value is False  # a new kind starts from its own defaults
    assert at.query_params["spec"] == "fixed:400"
    at.number_input(key="overlap").set_value(100).run()
    assert at.query_params["spec"] == "fixed:400/100"
    assert metrics(at)["Cut atoms"] == str(expected_cuts("fixed:400/100"))


def test_url_parameters_set_every_widget_and_survive_a_run():
    doc = SAMPLE.documents[5].id
    params = {"spec": "sentence:600t/50:cl100k+path", "doc": doc, "mode": "seed", "cap": "256"}
    at = app(params)
    assert_clean(at)
    assert not at.warning
    assert at.selectbox(key="kind").value == "sentence"
    assert (at.number_input(key="budget").value, at.number_input(key="overlap").value) == (600, 50)
    assert at.selectbox(key="unit").value == "cl100k"
    assert at.checkbox(key="heading_prefix").value is True
    assert at.radio(key="mode").value == "seed"
    assert at.selectbox(key="doc").value == doc
    assert at.query_params == params


def test_document_search_filters_the_picker():
    at = app()
    at.text_input(key="doc_filter").input("parental leave").run()
    assert at.selectbox(key="doc").options == ["Parental leave · handbook/parental-leave.md"]
    assert at.query_params["doc"] == "handbook/parental-leave.md"
    assert metrics(at)["Chunks"]


@pytest.mark.parametrize("params, warning", [
    ({"spec": "fixed:800/900"}, "overlap (900) must be smaller than the budget (800)"),
    ({"spec": "structured:0"}, "budget must be a positive whole number"),
    ({"spec": "fixed:800t:hf:/etc/passwd"}, "not allowed"),
    ({"mode": "regex"}, "Atom mode 'regex'"),
    ({"doc": "no/such.md"}, "not in the bundled sample corpus"),
])
def test_bad_url_values_fall_back_with_a_visible_warning(params, warning):
    at = app(params)
    assert_clean(at)
    assert any(warning in w for w in warnings(at)), warnings(at)
    assert not at.error
    assert at.selectbox(key="kind").value == "structured"
    assert at.query_params["spec"] == "structured:800"


OVERLAP_TOO_BIG = ("overlap", 800, "overlap (800) must be smaller than the budget (800)")
BUDGET_ZERO = ("budget", 0, "budget must be a positive whole number")


@pytest.mark.parametrize("page, setting", [
    ("app_pages/document.py", OVERLAP_TOO_BIG), ("app_pages/document.py", BUDGET_ZERO),
    ("app_pages/compare.py", BUDGET_ZERO), ("app_pages/sweep.py", OVERLAP_TOO_BIG),
    ("app_pages/sizes.py", BUDGET_ZERO),
])
def test_bad_splitter_settings_show_an_error_on_every_page(page, setting):
    key, value, reason = setting
    at = app()
    at.number_input(key=key).set_value(value).run()
    at.switch_page(page).run()
    assert_clean(at)
    assert any(reason in e for e in errors(at)), errors(at)
    assert at.title[0].value == TITLES[page]
    assert not at.dataframe and not at.get("plotly_chart")  # nothing drawn from settings that cannot run


def test_tokenizer_upload_that_is_not_a_tokenizer_is_refused():
    at = app()
    at.selectbox(key="unit").set_value("upload").run()
    assert any("Upload a tokenizer.json" in e for e in errors(at))
    at.file_uploader(key="tokenizer_upload").upload("tokenizer.json", b"{not json", "application/json").run()
    assert_clean(at)
    assert any("tokenizer file cannot be used" in e for e in errors(at)), errors(at)


def test_uploaded_tokenizer_becomes_the_unit():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate("the a of and to in is".split())}}
    tokenizer = tokenizers.Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    at = app()
    at.selectbox(key="unit").set_value("upload").run()
    at.file_uploader(key="tokenizer_upload").upload("tokenizer.json", tokenizer.to_str().encode(), "application/json")
    at.run()
    assert_clean(at)
    assert not errors(at)
    assert at.query_params["spec"].startswith("structured:800t:upload:")
    assert "/" not in at.query_params["spec"]  # the server's file path stays out of links


def write_corpus(folder: pathlib.Path, files: dict[str, bytes]) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def test_folder_outside_the_allowed_roots_is_refused(tmp_path, monkeypatch):
    allowed = write_corpus(tmp_path / "allowed", {"a.md": b"# A\n\nText."})
    outside = write_corpus(tmp_path / "outside", {"b.md": b"# B\n\nText."})
    monkeypatch.setenv(ENV_ROOTS, str(allowed))
    at = app({"corpus": str(outside)})
    assert_clean(at)
    assert any("outside the folders this app may read" in e for e in errors(at)), errors(at)
    at.text_input(key="corpus_path").input(str(allowed)).run()
    assert_clean(at)
    assert not errors(at)
    assert at.selectbox(key="doc").value == "a.md"
    assert at.query_params["corpus"] == str(allowed)


@pytest.mark.parametrize("files, reason", [
    ({}, "No readable documents"),
    ({"bad.md": b"\x00\x01binary"}, "all 1 files were skipped"),
])
def test_empty_or_unreadable_corpus_is_an_error(tmp_path, monkeypatch, files, reason):
    folder = write_corpus(tmp_path / "corpus", files)
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"corpus": str(folder)})
    assert_clean(at)
    assert any(reason in e for e in errors(at)), errors(at)


def test_missing_folder_inside_a_root_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"corpus": str(tmp_path / "missing")})
    assert_clean(at)
    assert any("is not a folder" in e for e in errors(at)), errors(at)


def test_skipped_files_are_listed(tmp_path, monkeypatch):
    folder = write_corpus(tmp_path / "corpus", {"good.md": b"# Good\n\nOne sentence with 12 words and 3 numbers.",
                                                "bad.md": b"\x89PNG\x00\x00binary", "latin.md": b"caf\xe9"})
    monkeypatch.setenv(ENV_CORPUS, str(folder))  # the corpus given at start is allowed by that act
    at = app()
    assert_clean(at)
    assert not errors(at)
    assert [x.label for x in at.expander if "skipped" in x.label] == ["2 files skipped"]
    skipped = at.expander[[x.label for x in at.expander].index("2 files skipped")]
    table = skipped.dataframe[0].value
    assert list(table["file"]) == ["bad.md", "latin.md"]
    assert "binary" in table["reason"][0] and "UTF-8" in table["reason"][1]
    assert at.query_params["corpus"] == str(folder)  # links name their folder


def test_titles_names_and_link_values_are_shown_as_plain_text(tmp_path, monkeypatch):
    title = "![t](https://evil.example/t.png) [click](javascript:alert(1)) <b>$x$</b>"
    name = "[y](https:evil.example).md"
    folder = write_corpus(tmp_path / "corpus", {name: f"# {title}\n\nText.".encode()})
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"corpus": str(folder), "doc": "[z](https://evil.example)"})
    assert_clean(at)
    assert at.subheader[0].value == markdown_escape(title)
    assert at.caption[1].value.startswith(markdown_escape(name) + " · ")
    warning = next(w.value for w in at.warning if "is not in" in w.value)
    assert "[z](" not in warning and markdown_escape("'[z](https://evil.example)'") in warning


def test_uploaded_files_become_the_corpus():
    at = app()
    at.radio(key="corpus_source").set_value("upload").run()
    assert any("Upload one or more" in e for e in errors(at))
    uploader = at.file_uploader(key="corpus_uploads")
    uploader.set_value([("notes.md", b"# Notes\n\nSee [the docs](https://example.com) for all 3 steps here.",
                         "text/markdown"), ("blob.md", b"\x00\x00", "text/markdown")])
    at.run()
    assert_clean(at)
    assert not errors(at)
    assert at.selectbox(key="doc").value == "notes.md"
    assert [x.label for x in at.expander if "skipped" in x.label] == ["1 file skipped"]
    assert at.query_params["corpus"] == "upload"


def test_side_by_side_draws_two_lanes_and_checks_the_second_spec():
    at = app()
    at.toggle(key="side_by_side").set_value(True).run()
    assert_clean(at)
    assert drawing(at).startswith('<div class="ci-lanes"')
    assert at.query_params["vs"] == "fixed:800"
    at.text_input(key="lane_b").input("fixed:100/200").run()
    assert any("second splitter cannot run" in e for e in errors(at))
    assert "vs" not in at.query_params
    at.text_input(key="lane_b").input("paragraph:300").run()
    assert not errors(at) and at.query_params["vs"] == "paragraph:300"
    at.switch_page("app_pages/sizes.py").run()
    at.switch_page("app_pages/document.py").run()
    assert at.toggle(key="side_by_side").value is True  # page widgets come back after a page switch
    assert at.text_input(key="lane_b").value == "paragraph:300"


def test_compare_page_tables_downloads_and_added_splitters():
    at = app()
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    table_a, table_b = (d.value for d in at.dataframe)
    assert list(table_a["spec"]) == [str(s) for s in article_specs(800)]
    assert list(table_b.columns) == ["splitter", "spec", "answer@5", "cut", "rank miss", "ctx chars", "ctx tokens"]
    structured = table_a[table_a["spec"] == "structured:800"].iloc[0]
    assert structured["chunks"] == Workspace(SAMPLE).summarize("structured:800").chunks
    assert len(at.get("download_button")) == 2
    select = at.multiselect(key="compare_specs")
    select.set_value(["fixed:400", "heading:512", "not-a-spec"]).run()
    assert_clean(at)
    assert any("not-a-spec" in e for e in errors(at))
    assert list(at.dataframe[0].value["spec"]) == ["fixed:400", "heading:512"]
    assert at.query_params["cmp"] == ["fixed:400", "heading:512"]


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


def test_sizes_page_lists_chunks_over_the_cap():
    at = app({"cap": "200"})
    at.switch_page("app_pages/sizes.py").run()
    assert_clean(at)
    expected = size_summary(sizes_frame(Workspace(SAMPLE), "structured:800", get_length("o200k")), 200)
    assert metrics(at)["Over the cap"] == str(len(expected.over_cap)) != "0"
    over = at.dataframe[-1].value
    assert list(over.columns) == ["doc", "chunk", "tokens", "first words"]
    assert list(over["tokens"]) == list(expected.over_cap["tokens"])
    at.number_input(key="cap").set_value(100_000).run()
    assert metrics(at)["Over the cap"] == "0"
    assert at.query_params["cap"] == "100000"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_opens_cleanly_and_keeps_the_url(page):
    at = app({"spec": "fixed:800/120"})
    at.switch_page(page).run()
    assert_clean(at)
    assert not errors(at) and not at.warning
    assert at.title[0].value == TITLES[page]
    assert len(at.get("plotly_chart")) == CHARTS[page]
    assert at.query_params["spec"] == "fixed:800/120"
    json.dumps(at.query_params)  # plain strings and lists only
