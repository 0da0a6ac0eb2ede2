"""Imported chunks on every page (AppTest): the Import page keeps them as a chunk set, the
sidebar offers it as a splitter, and Document, Compare, Chunk sizes and the Orphan Test show
exactly those chunks; links naming a set work in a fresh session, and a missing one is an
error message, never an exception."""

from __future__ import annotations

import html
import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Workspace, load_corpus
from inspector.chunks.sets import STORE_FOLDER, ChunkSetStore, make_chunk_set
from inspector.data_folder import data_folder as folder_of_data
from inspector.lengths import get_length
from inspector.review.rounds import ReviewRound, draw
from inspector.views.frames import doc_view
from tests.support.app import OPENED
from tests.support.paths import ROOT

SAMPLE = Workspace(load_corpus(ROOT / "sample_corpus"))


STRUCTURED = {r.doc_id: r.chunks for r in SAMPLE.split("structured:800")}


#: What the Import page's "Try with an export of structured:800" becomes: the same spans.
SAMPLE_SET = make_chunk_set("structured-800.jsonl", SAMPLE.fingerprint, SAMPLE.documents, STRUCTURED)


SPEC = f"imported:{SAMPLE_SET.id}"


PAGES = {name: f"app_pages/{name}.py" for name in ("document", "compare", "sizes", "sweep", "orphan_test",
                                                   "import_chunks")}


@pytest.fixture(autouse=True)
def data_folder(isolated_app) -> pathlib.Path:
    """Each test gets its own data folder (see ``conftest.isolated_app``)."""
    return isolated_app


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def texts(elements) -> list[str]:
    return [plain(e.value) for e in elements]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def opened(params: dict | None = None, page: str = "document") -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.query_params.update(params or {})
    at.run()
    if page != "document":
        at.switch_page(PAGES[page]).run()
    return clean(at)


def stored(chunk_set=SAMPLE_SET) -> None:
    ChunkSetStore(folder_of_data() / STORE_FOLDER).save(chunk_set)


def test_an_import_becomes_the_sidebars_splitter_and_is_kept_on_disk(data_folder):
    at = opened(page="import_chunks")
    assert at.selectbox(key="kind").options.count(SPEC) == 0
    at.button(key="import_sample").click().run()
    at.button(key="import_use").click().run()
    clean(at)
    assert at.selectbox(key="kind").value == SPEC
    assert at.query_params["spec"] == SPEC
    assert any("every page measures them" in s for s in texts(at.success))
    assert (data_folder / "chunk-sets" / f"{SAMPLE_SET.id}.json").is_file()
    for key in ("budget", "overlap"):
        assert at.number_input(key=key).disabled
    assert at.checkbox(key="heading_prefix").disabled
    assert any(f"{len(SAMPLE.chunks('structured:800')):,} chunks from structured-800.jsonl" in c
               for c in texts(at.sidebar.caption))
    # The Document page draws the imported chunks: those of structured:800, span for span.
    at.switch_page(PAGES["document"]).run()
    clean(at)
    first = OPENED  # the first look, under structured:800, opened on it
    assert metrics(at)["Chunks"] == str(len(STRUCTURED[first.id]))
    overlay = next(h.value for h in at.html if 'class="ci-overlay"' in h.value)
    cuts = len(doc_view(SAMPLE, first, "structured:800", get_length("chars")).cuts)
    assert f"<b>{len(STRUCTURED[first.id])} chunks · {cuts} bisected atoms</b>" in overlay
    assert any("imported: structured-800.jsonl" in c for c in texts(at.caption))


def test_compare_sizes_and_sweep_treat_the_set_as_a_splitter():
    stored()
    at = opened({"spec": SPEC}, page="compare")
    select = at.multiselect(key="compare_specs")
    assert "imported: structured-800.jsonl" in select.options  # (AppTest lists the shown labels)
    assert list(at.dataframe[0].value["spec"])[-1] == SPEC  # the sidebar's chunks join the defaults
    assert "cmp" not in at.query_params
    select.set_value(["structured:800", SPEC]).run()
    clean(at)
    table_a = at.dataframe[0].value
    assert list(table_a["splitter"]) == ["structured 800", "imported: structured-800.jsonl"]
    numbers = table_a.drop(columns=["splitter", "spec"])
    assert numbers.iloc[0].to_dict() == numbers.iloc[1].to_dict()
    table_b = at.dataframe[1].value.drop(columns=["splitter", "spec"])
    assert table_b.iloc[0].to_dict() == table_b.iloc[1].to_dict()
    assert at.query_params["cmp"] == ["structured:800", SPEC]

    at.switch_page(PAGES["sizes"]).run()
    clean(at)
    assert metrics(at)["Chunks"] == str(len(SAMPLE.chunks("structured:800")))

    at.switch_page(PAGES["sweep"]).run()
    clean(at)
    assert any("no budget to sweep" in i for i in texts(at.info))
    assert not at.dataframe


def test_an_orphan_round_draws_the_imported_chunks():
    stored()
    at = opened({"spec": f"{SPEC}:o200k"}, page="orphan_test")
    at.text_input(key="orphan_reviewer").input("Dana").run()
    clean(at)
    assert at.query_params["rspec"] == SPEC  # the unit does not change the chunks, so not the round
    described = " ".join(texts(at.markdown))
    assert f"split by `{SPEC}` (imported: structured-800.jsonl)" in described
    work = Workspace(SAMPLE.documents)
    work.add_chunk_set(SAMPLE_SET)
    first = draw(ReviewRound.create(work, SPEC), work)[0]  # the page's round: 20 chunks, seed 0
    card = next(h.value for h in at.html if "ci-card-title" in h.value)
    assert f'ci-card-body">{html.escape(first.text)}</div>' in card


def test_a_link_to_a_set_this_server_lacks_is_an_error_not_an_exception():
    at = opened({"spec": "imported:00000000000000aa"})
    assert at.selectbox(key="kind").value == "imported:00000000000000aa"
    assert any("no imported chunk set 00000000000000aa on this server" in e for e in texts(at.error))
    at.switch_page(PAGES["compare"]).run()
    clean(at)
    assert at.error and not at.dataframe
    at.selectbox(key="kind").set_value("fixed").run()
    clean(at)
    assert not at.error and at.query_params["spec"] == "fixed:800"


def test_a_partial_set_warns_that_other_documents_count_as_lost():
    covered = {d.id for d in SAMPLE.documents[:5]}
    partial = make_chunk_set("five.jsonl", SAMPLE.fingerprint, SAMPLE.documents,
                             {k: v for k, v in STRUCTURED.items() if k in covered})
    stored(partial)
    at = opened({"spec": f"imported:{partial.id}", "cmp": [f"imported:{partial.id}"]}, page="compare")
    assert any(f"cover 5 of the {len(SAMPLE.documents)} documents" in w for w in texts(at.sidebar.warning))
    assert any("five" in w and f"cover 5 of the {len(SAMPLE.documents)} documents" in w
               for w in texts(at.main.warning))


def test_deleting_the_chosen_set_returns_the_sidebar_to_a_splitter(data_folder):
    stored()
    at = opened({"spec": SPEC}, page="import_chunks")
    assert at.selectbox(key="chunk_set_pick").value == SPEC
    at.button(key="chunk_set_delete").click().run()
    clean(at)
    assert at.selectbox(key="kind").value == "structured"
    assert SPEC not in at.selectbox(key="kind").options
    assert not (data_folder / "chunk-sets" / f"{SAMPLE_SET.id}.json").exists()
    assert any("deleted" in s for s in texts(at.success))


def test_switching_from_imported_chunks_back_keeps_the_budget():
    stored()
    at = opened({"spec": "fixed:640/64"})
    at.selectbox(key="kind").set_value(SPEC).run()
    clean(at)
    assert at.query_params["spec"] == SPEC
    at.selectbox(key="kind").set_value("fixed").run()
    clean(at)
    assert at.query_params["spec"] == "fixed:640/64"
