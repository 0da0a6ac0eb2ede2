"""Library splitters (ext- adapters) work wherever a built-in splitter does."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Document, Workspace, build_report, split_document
from inspector.split.adapters import available_adapters

pytestmark = pytest.mark.skipif(
    "ext-langchain" not in available_adapters(),
    reason="langchain-text-splitters is not installed (pip install -r requirements-dev.txt)")

TEXT = ("# Guide\n\nHarborline keeps 3 replicas of every partition by default. " * 6
        + "\n\n| key | value |\n|---|---|\n| port | 7420 |\n\nAfter the table comes more prose here.\n")


def test_split_document_runs_an_adapter_with_checked_spans():
    doc = Document("g.md", TEXT)
    result = split_document(doc, "ext-langchain:120/20")
    assert result.chunks and result.problems == ()
    for i, chunk in enumerate(result.chunks):
        assert chunk.index == i and chunk.spec == "ext-langchain:120/20"
        assert 0 <= chunk.start < chunk.end <= len(TEXT)
        assert len(chunk.text(doc)) <= 120


def test_the_report_compares_an_adapter_with_built_in_splitters(tmp_path):
    (tmp_path / "g.md").write_text(TEXT, encoding="utf-8")
    from inspector import load_corpus

    report = build_report(Workspace(load_corpus(tmp_path)), specs=["structured:200", "ext-langchain:200"],
                          budgets=(200,))
    labels = [row["splitter"] for row in report["compare"]]
    assert labels == ["structured 200", "ext-langchain 200"]
    assert report["compare"][1]["chunks"] > 0


def test_the_app_offers_installed_adapters_as_splitters():
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=90)
    at.query_params["spec"] = "ext-langchain:800/100"
    at.run()
    assert not at.exception
    assert "ext-langchain" in at.selectbox(key="kind").options
    assert at.selectbox(key="kind").value == "ext-langchain"
    assert not at.error
