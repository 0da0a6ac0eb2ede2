"""The sidebar under AppTest: URL state sets every widget, bad settings and links are refused with a
visible reason, tokenizers and files are uploaded, folders outside the allowed roots are refused."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from inspector.split.adapters import available_adapters
from inspector.views.launch import ENV_CORPUS, ENV_ROOTS
from tests.support.app import (
    SAMPLE,
    TITLES,
    app,
    assert_clean,
    charts,
    drawing,
    errors,
    expected_cuts,
    metrics,
    plain,
    warnings,
    write_corpus,
)
from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(
    "ext-langchain" not in available_adapters(),
    reason="langchain-text-splitters is not installed (pip install -r requirements-dev.txt)")


OVERLAP_TOO_BIG = ("overlap", 800, "overlap (800) must be smaller than the budget (800)")


BUDGET_ZERO = ("budget", 0, "budget must be a positive whole number")


def test_the_app_offers_installed_adapters_as_splitters():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params["spec"] = "ext-langchain:800/100"
    at.run()
    assert not at.exception
    assert "ext-langchain" in at.selectbox(key="kind").options
    assert at.selectbox(key="kind").value == "ext-langchain"
    assert not at.error


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


@pytest.mark.parametrize("params, warning", [
    ({"spec": "fixed:800/900"}, "overlap (900) must be smaller than the budget (800)"),
    ({"spec": "structured:0"}, "budget must be a positive whole number"),
    ({"spec": "fixed:800t:hf:/etc/passwd"}, "not allowed"),
    ({"mode": "regex"}, "Atom mode 'regex'"),
    ({"doc": "no/such.md"}, "not in the bundled sample corpus"),
    ({"spec": "fixed:" + "9" * 5000}, "'spec' value ignored: 5,006 characters"),
    ({"spec": "fixed:" + "9" * 3000}, "a splitter spec is at most 1000 characters"),
    ({"spec": "fixed:" + "9" * 900}, "(900 digits) is larger than the limit"),
    ({"cmp": "sentence:" + "4" * 4400}, "'cmp' value ignored"),
    ({"cmp": "sentence:" + "4" * 400}, "Compared splitter"),
    ({"corpus": "sample", "vs": "x" * 5000}, "'vs' value ignored: 5,000 characters"),
])
def test_bad_url_values_fall_back_with_a_visible_warning(params, warning):
    at = app(params)
    assert_clean(at)
    assert any(warning in w for w in warnings(at)), warnings(at)
    assert not at.error
    assert at.selectbox(key="kind").value == "structured"
    assert at.query_params["spec"] == "structured:800"


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
    assert not at.dataframe and not charts(at)  # nothing drawn from settings that cannot run


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


def test_uploaded_files_become_the_corpus():
    at = app()
    at.radio(key="corpus_source").set_value("upload").run()
    assert not errors(at) and any("Upload one or more" in plain(i.value) for i in at.info)  # a note, not an error
    uploader = at.file_uploader(key="corpus_uploads")
    uploader.set_value([("notes.md", b"# Notes\n\nSee [the docs](https://example.com) for all 3 steps here.",
                         "text/markdown"), ("blob.md", b"\x00\x00", "text/markdown")])
    at.run()
    assert_clean(at)
    assert not errors(at)
    assert at.selectbox(key="doc").value == "notes.md"
    assert [x.label for x in at.expander if "skipped" in x.label] == ["1 file skipped"]
    assert at.query_params["corpus"] == "upload"


def test_a_pasted_text_becomes_the_one_document_measured():
    at = app()
    at.radio(key="corpus_source").set_value("paste").run()
    assert not errors(at) and any("Paste a text" in plain(i.value) for i in at.info)
    text = ("# Limits\n\nThe queue holds 4,096 messages and drops 2% of them under load.\n\n"
            "```python\n" + "handle(message)\n" * 80 + "```\n")
    at.text_area(key="corpus_text").set_value(text).run()
    at.selectbox(key="kind").set_value("fixed").run()
    assert_clean(at)
    assert not errors(at)
    assert at.selectbox(key="doc").value == "pasted.md"
    assert metrics(at)["Code blocks whole"] == "0/1"  # 1,200 characters of code cut at 800
    assert at.query_params["corpus"] == "paste"


def test_a_pasted_plain_text_has_no_markup_to_find():
    at = app()
    at.radio(key="corpus_source").set_value("paste").run()
    at.radio(key="mode").set_value("plain").run()
    assert at.text_area(key="corpus_text").label == "Text, read as plain"
    fence = "```\n" + "handle(message) and retry it 3 times before the queue gives up on it\n" * 20 + "```\n"
    text = "# Limits\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" + fence
    at.text_area(key="corpus_text").set_value(text).run()
    at.selectbox(key="kind").set_value("fixed").run()
    assert_clean(at)
    assert not errors(at) and not at.warning
    assert at.selectbox(key="doc").value == "pasted.txt" and at.query_params["mode"] == "plain"
    shown = metrics(at)
    # As markdown the fence is a code block cut at 800 and the rows a table; as plain text, prose.
    assert shown["Code blocks whole"] == shown["Tables whole"] == "none"
    at.radio(key="mode").set_value("markdown").run()
    assert_clean(at)
    assert metrics(at)["Code blocks whole"] == "0/1" and metrics(at)["Tables whole"] == "1/1"
    assert not at.warning, [w.value for w in at.warning]
    assert at.selectbox(key="doc").value == "pasted.md"


def test_a_folder_name_with_a_nul_character_is_an_error_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_ROOTS", str(tmp_path))
    at = app({"corpus": str(tmp_path) + "\x00/../etc"})
    assert_clean(at)
    assert any("NUL character" in e for e in errors(at)), errors(at)


def test_an_uploaded_zip_bomb_is_refused_with_its_reason_and_the_rest_loads():
    from tests.support.bombs import zip_bomb_docx

    at = app()
    at.radio(key="corpus_source").set_value("upload").run()
    at.file_uploader(key="corpus_uploads").set_value([
        ("notes.md", b"# Notes\n\nSee [the docs](https://example.com) for all 3 steps here.", "text/markdown"),
        ("expenses.docx", zip_bomb_docx(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document")])
    at.run()
    assert_clean(at)
    assert at.selectbox(key="doc").value == "notes.md"
    skipped = at.expander[[x.label for x in at.expander].index("1 file skipped")]
    table = skipped.dataframe[0].value
    assert list(table["file"]) == ["expenses.docx"]
    assert table["reason"][0].startswith("its part word/document.xml inflates to 200 MB (at most 100 MB a part)")


def test_a_similarity_chunker_gets_its_own_settings_and_they_reach_the_link():
    at = app({"spec": "cluster:400t+atoms;piece=40"})
    assert_clean(at)
    assert at.selectbox(key="kind").value == "cluster"
    assert at.checkbox(key="option_atoms").value is True and at.number_input(key="option_piece").value == 40
    assert at.number_input(key="overlap").disabled
    assert at.selectbox(key="option_embed").options == ["wordllama"]
    at.selectbox(key="kind").set_value("semantic").run()
    at.number_input(key="option_threshold").set_value(90).run()
    assert_clean(at)
    assert at.query_params["spec"] == "semantic:400t+atoms;threshold=90"
    assert any("semantic:400t+atoms;threshold=90" in plain(c.value) for c in at.caption)
    at.selectbox(key="kind").set_value("fixed").run()
    assert_clean(at)
    assert at.query_params["spec"] == "fixed:400t"


def test_an_llm_chunker_reads_its_kept_cuts_and_says_how_to_write_missing_ones(isolated_app):
    from inspector import analyze, get_length, load_corpus
    from inspector.corpus import SAMPLE_CORPUS
    from inspector.data_folder import document_hash
    from inspector.spec import SplitterSpec
    from inspector.split.answers import SplitAnswers
    from inspector.split.llm import document_run

    link = "llm:1200+atoms;llm=tiny"
    at = app({"spec": link})
    assert_clean(at)
    assert at.selectbox(key="kind").value == "llm" and at.text_input(key="option_model").value == "tiny"
    assert at.number_input(key="overlap").disabled and at.checkbox(key="option_atoms").value is True
    assert any(f"chunk-inspector context CORPUS --spec '{link}'" in e for e in errors(at)), errors(at)
    assert not charts(at), "nothing drawn without the cuts"
    spec, store = SplitterSpec.parse(link), SplitAnswers(isolated_app)
    for document in load_corpus(SAMPLE_CORPUS).documents:
        run = document_run(document, spec, analyze(document.text), get_length("chars"), {},
                           lambda ask: f"split after: {ask.first + 1}")
        for ask, answer in run.asked:
            store.put("tiny", document_hash(document.text), ask.digest, answer)
    at = app({"spec": link})
    assert_clean(at)
    assert not errors(at) and at.query_params["spec"] == link
    opened = SAMPLE.by_id(at.query_params["doc"])  # the document this splitter cuts most
    assert metrics(at)["Cut atoms"] == str(expected_cuts(link, opened)) and "ci-overlay" in drawing(at)
    at.text_input(key="option_model").set_value("other").run()
    assert any("needs answers from other" in e for e in errors(at)), errors(at)
    assert at.query_params["spec"] == "llm:1200+atoms;llm=other"
    at = app({"spec": link, "budgets": "400,1200,1600", "cmp": ["structured:1200", link, "llm:400;llm=tiny"]})
    at.switch_page("app_pages/sweep.py").run(timeout=120)
    assert_clean(at)
    assert any(w.startswith("Budgets left out: 400, 1600: ") for w in warnings(at)), warnings(at)
    assert list(at.dataframe[0].value["budget"]) == [1200], "other budgets show other pieces, not asked about"
    at.switch_page("app_pages/compare.py").run(timeout=120)
    assert_clean(at)
    assert any(e.startswith("Splitter left out: 'llm:400;llm=tiny'") for e in errors(at)), errors(at)


def test_choosing_another_corpus_opens_it_without_a_word_about_the_last_document(tmp_path, monkeypatch):
    fence = "```\n" + "x = 1\n" * 300 + "```\n"
    folder = write_corpus(tmp_path / "mine", {"a.md": b"# A\n\nCalm words.\n", "b.md": f"# B\n\n{fence}".encode()})
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"doc": SAMPLE.documents[3].id})
    assert_clean(at)
    at.radio(key="corpus_source").set_value("folder").run()
    at.text_input(key="corpus_path").input(str(folder)).run()
    assert_clean(at)
    assert not at.sidebar.warning, [w.value for w in at.sidebar.warning]
    assert at.selectbox(key="doc").value == "b.md", "opened where the splitter cuts most"
    at.radio(key="corpus_source").set_value("sample").run()
    assert not at.sidebar.warning and at.query_params["doc"] != "b.md"
