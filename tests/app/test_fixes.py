"""The Fixes page under AppTest: every fix measured from the sidebar's splitter; the context step
left out with what to set, or written through a chat endpoint on the loopback address."""

from __future__ import annotations

import pytest

from tests.support.app import app, assert_clean, plain
from tests.support.chat import ChatServer

CONTEXT_ENV = ("CHUNK_INSPECTOR_CONTEXT_URL", "CHUNK_INSPECTOR_CONTEXT_MODEL", "CHUNK_INSPECTOR_CONTEXT_KEY",
               "OPENAI_BASE_URL", "OPENAI_API_KEY")


@pytest.fixture(autouse=True)
def data_folder(isolated_app, monkeypatch):
    for key in CONTEXT_ENV:
        monkeypatch.delenv(key, raising=False)
    return isolated_app


def fixes(at):
    return next(d.value for d in at.dataframe if "spec" in d.value.columns)


def by_kind(at):
    return next(d.value for d in at.dataframe if "kind" in d.value.columns)


def not_measured(at, step: str) -> str:
    return next(plain(c.value) for c in at.caption if plain(c.value).startswith(f"{step} (")
                and "not measured" in plain(c.value))


def test_the_fixes_run_offline_with_the_context_step_left_out_and_why():
    at = app({"spec": "recursive:800"})
    at.switch_page("app_pages/fixes.py").run()
    assert_clean(at)
    frame = fixes(at)
    assert list(frame["step"]) == ["none", "structure + header", "+ heading path", "+ address stamp",
                                   "+ context line", "late chunking", "+ neighbours read ±1"]
    assert list(frame["spec"])[:4] == ["recursive:800", "structured:800", "structured:800+path",
                                       "structured:800+address"]
    assert "CHUNK_INSPECTOR_CONTEXT_URL" in not_measured(at, "+ context line")
    assert "omitted" not in frame, "the reason is said below the table, not in a clipped column"
    assert frame.iloc[4][["chunks", "answer@5", "recall@2000"]].isna().all()
    table = next(d for d in at.dataframe if "spec" in d.value.columns)
    assert table.proto.placeholder == "–", "a step not measured shows dashes, not the word None"
    assert {"recall@2000", "recall@4000"} <= set(frame.columns) and "table-header @2000" not in frame
    kinds = by_kind(at)
    assert {"table-header", "heading"} <= set(kinds["kind"]) and "+ context line" not in set(kinds["step"])
    assert {"recall@2000", "recall@2000 95%", "recall@4000"} <= set(kinds.columns)
    stamped, read = frame.iloc[3], frame.iloc[6]
    assert stamped["orphan suspects"] < frame.iloc[2]["orphan suspects"] < frame.iloc[0]["orphan suspects"]
    assert read["ctx tokens"] > stamped["ctx tokens"] and read["chunks"] == stamped["chunks"]
    assert frame["answer@5 95%"].iloc[0].startswith("[") and frame["recall@2000 95%"].iloc[4] == ""
    assert "answer@5 low" not in frame, "the bounds are shown as text beside their rate"
    assert any("beyond noise" in plain(c.value) for c in at.caption), "the steps' verdict is said"


def test_context_lines_written_from_the_page_join_the_table(monkeypatch):
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_MODEL", "tiny")
        # A large budget keeps the lines to write few: the path is the same at any size.
        at = app({"spec": "structured:2400", "corpus": "sample"})
        at.switch_page("app_pages/fixes.py").run()
        assert_clean(at)
        missing = not_measured(at, "+ context line").split("not measured: ")[1]
        assert " chunks have no context line from tiny" in missing
        chunks = int(missing.split(" of ")[0].replace(",", ""))
        (button,) = [b for b in at.button if b.key == "write_context"]
        assert button.label.startswith("Write ") and "context lines" in button.label
        button.click().run()
        assert_clean(at)
        assert any("Wrote" in s.value for s in at.success)
        assert len(server.prompts) == chunks
    frame = fixes(at)
    lined = frame.iloc[4]
    assert not frame["chunks"].drop(index=5).isna().any(), "every step was measured (late chunking: not by BM25)"
    assert lined["spec"] == "structured:2400+address+context;llm=tiny" and lined["chunks"] == chunks
    assert lined["ctx tokens"] > frame.iloc[3]["ctx tokens"] and lined["chunks"] == frame.iloc[3]["chunks"]


def test_the_address_stamp_is_a_sidebar_setting_kept_in_the_link():
    at = app({"spec": "structured:800"})
    at.checkbox(key="address").check().run()
    assert_clean(at)
    assert at.query_params["spec"] == "structured:800+address"
    at.text_input(key="stamp").input("{title} (v{version})").run()
    assert at.query_params["spec"] == "structured:800+address;stamp=%7Btitle%7D%20%28v%7Bversion%7D%29"
    again = app({"spec": "structured:800+address", "doc": "handbook/benefits-by-country.md"})
    assert again.checkbox(key="address").value and again.text_input(key="stamp").value
    cards = [h.value for h in again.html if 'class="ci-prefix"' in h.value]
    assert cards and "Benefits by country · version 2026.1 · updated 2026-01-12" in cards[0], \
        "the Document page's chunk card shows the stamp as the prefix"


def test_context_lines_imported_on_the_page_join_the_table():
    import json

    from inspector import Workspace
    from inspector.reports import fix_specs
    from tests.support.app import SAMPLE

    chunks = Workspace(SAMPLE).chunks(fix_specs("structured:800")["address"])
    lines = [json.dumps({"chunk_id": c.id, "line": f"From {c.doc_id}."}) for c in chunks]
    at = app({"spec": "structured:800"})
    at.switch_page("app_pages/fixes.py").run()
    at.file_uploader(key="context_upload").set_value(("lines.jsonl", ("\n".join(lines) + "\n{bad\n").encode(),
                                                      "application/json")).run()
    at.text_input(key="context_name").input("ours").run()
    (keep,) = [b for b in at.button if b.key == "import_context"]
    keep.click().run()
    assert_clean(at)
    assert any(f"Kept {len(chunks):,} lines under ours" in s.value for s in at.success)
    assert any("line " in plain(w.value) and "not valid JSON" in plain(w.value) for w in at.warning)
    frame = fixes(at)
    assert frame.iloc[4]["spec"] == "structured:800+address+context;llm=ours"
    assert not frame["chunks"].iloc[:5].isna().any(), "the imported lines measure the context step"


def test_a_restarted_server_shows_the_fixes_it_measured_before_without_measuring(data_folder, monkeypatch):
    import pandas as pd
    import streamlit as st

    from inspector.views.kept_results import STORE_NAME
    from inspector.views.offload import Offload

    at = app({"spec": "recursive:733"})
    at.switch_page("app_pages/fixes.py").run()
    assert_clean(at)
    before = fixes(at)
    assert (data_folder / STORE_NAME).exists()
    st.cache_data.clear()  # what a restart forgets; the data folder stays

    def measure(*args):
        raise AssertionError("measured again")

    monkeypatch.setattr(Offload, "_submit", measure)
    again = app({"spec": "recursive:733"})
    again.switch_page("app_pages/fixes.py").run()
    assert_clean(again)
    pd.testing.assert_frame_equal(fixes(again), before)
