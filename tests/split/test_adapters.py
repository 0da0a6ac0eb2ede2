"""``inspector.split.adapters``: other libraries' splitters, optional, their offsets checked, never
trusted, and usable wherever a built-in splitter is."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from inspector import Document, Workspace, build_report, load_corpus, split_document
from inspector.errors import SpecError
from inspector.extras import install_hint
from inspector.split import adapters
from inspector.split.adapters import ADAPTERS, available_adapters, split_with_adapter
from tests.support.paths import ROOT, SAMPLE

pytestmark = pytest.mark.skipif(
    "ext-langchain" not in available_adapters(),
    reason="langchain-text-splitters is not installed (pip install -r requirements-dev.txt)")


TEXT = ("# Guide\n\nHarborline keeps 3 replicas of every partition by default. " * 6
        + "\n\n| key | value |\n|---|---|\n| port | 7420 |\n\nAfter the table comes more prose here.\n")


DOC_IDS = ("handbook/leave-policy.md", "product/guides/quickstart.md", "blog/index.md")


@pytest.fixture(scope="module")
def small():
    corpus = load_corpus(SAMPLE)
    return Workspace([corpus.by_id(i) for i in DOC_IDS])


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


def test_nothing_optional_is_imported_by_the_base_install():
    code = ("import sys, inspector, inspector.split.adapters, inspector.chunks.importer, inspector.retrieval.golden, "
            "inspector.reports.gate, inspector.chunks.export, inspector.cli\n"
            "inspector.split.adapters.available_adapters()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('langchain_text_splitters', 'langchain_core', 'chonkie', 'semantic_text_splitter')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_available_adapters_follow_what_is_installed(monkeypatch):
    names = available_adapters()
    assert names == [n for n in ADAPTERS if n in names]
    monkeypatch.setattr(adapters, "installed", lambda module: module == "chonkie")
    assert available_adapters() == ["ext-chonkie-recursive", "ext-chonkie-token"]
    with pytest.raises(SpecError, match=re.escape(f"package ({install_hint('langchain')})")):
        split_with_adapter("ext-langchain", Document("d.md", "Some text. " * 50), 800)


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_each_adapter_gives_checked_spans(name, small):
    if name not in available_adapters():
        pytest.skip(f"{ADAPTERS[name].package} is not installed")
    overlap = 40 if ADAPTERS[name].overlap else 0
    for document in small.documents:
        result = split_with_adapter(name, document, 400, overlap, analysis=small.analysis(document))
        chunks = result.chunks
        assert result.problems == ()
        assert chunks, document.id
        spans = [(c.start, c.end) for c in chunks]
        assert spans == sorted(spans)
        assert all(0 <= a < b <= len(document.text) for a, b in spans)
        assert all(c.spec == f"{name}:400" + (f"/{overlap}" if overlap else "") for c in chunks)
        assert [c.index for c in chunks] == list(range(len(chunks)))
        covered = sum(b - a for a, b in spans)
        assert covered >= len(document.text.strip()) * 0.9, "the splitter's text lands in its spans"


def test_a_wrong_offset_is_reported_and_an_unplaceable_chunk_dropped(monkeypatch, small):
    document = small.documents[0]
    text = document.text

    def liar(text_, budget, overlap, length):
        return [(0, None, text_[0:300]), (305, None, text_[300:600]), (600, 900, "not in the document at all")]

    monkeypatch.setitem(adapters.RUNNERS, "ext-langchain", liar)
    monkeypatch.setattr(adapters, "installed", lambda module: True)
    result = split_with_adapter("ext-langchain", document, 300)
    chunks = result.chunks
    assert [(c.start, c.end) for c in chunks] == [(0, 300), (300, 600)]
    kinds = [(p.line, p.kind) for p in result.problems]
    assert kinds == [(2, "offset-mismatch"), (3, "offset-mismatch")]
    assert "placed at 300:600" in result.problems[0].message
    assert "not imported" in result.problems[1].message
    assert result.problems[0].chunk_id == f"{document.id}#1"
    assert text[0:300] == chunks[0].text(document)


def test_langchain_token_offsets_are_checked_against_the_text(small):
    pytest.importorskip("langchain_text_splitters")
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from inspector import get_length

    document = load_corpus(SAMPLE).by_id("blog/2025-year-in-review.md")
    length = get_length("o200k")
    splitter = RecursiveCharacterTextSplitter(chunk_size=256, chunk_overlap=25, length_function=length.count,
                                              add_start_index=True)
    theirs = splitter.create_documents([document.text])
    wrong = {i + 1 for i, d in enumerate(theirs)
             if document.text[d.metadata["start_index"]:d.metadata["start_index"] + len(d.page_content)]
             != d.page_content or d.metadata["start_index"] < 0}
    result = split_with_adapter("ext-langchain", document, 256, 25, unit="o200k")
    assert {p.line for p in result.problems} == wrong
    assert wrong, "LangChain 1.1.3 reports start_index -1 here; the check must catch it"
    assert len(result.chunks) == len(theirs), "each misplaced chunk was found again by its text"


def test_adapter_settings_are_refused_with_a_reason(small):
    document = small.documents[0]
    with pytest.raises(SpecError, match="unknown adapter"):
        split_with_adapter("ext-nope", document, 400)
    if "ext-chonkie-recursive" in available_adapters():
        with pytest.raises(SpecError, match="no overlap"):
            split_with_adapter("ext-chonkie-recursive", document, 400, 50)
    with pytest.raises(SpecError):
        split_with_adapter("ext-langchain", document, 100, 100)


def test_adapter_chunks_feed_the_measures(small):
    if "ext-semantic-markdown" not in available_adapters():
        pytest.skip("semantic-text-splitter is not installed")
    spec = "ext-semantic-markdown:256t"
    assert small.problems(spec) == []
    summary = small.summarize(spec)
    assert summary.chunks == len(small.chunks(spec)) > 0
    assert summary.oversized == sum(1 for s in small.sizes(spec) if s > 256)
    assert 0 <= small.probe(spec).answer_rate <= 1
