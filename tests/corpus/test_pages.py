"""Pages of converted documents travel with their chunks: export records, overlay labels, the
Orphan Test's reveal, and survival broken down by source format."""

from __future__ import annotations

import io
import json

import pytest

from inspector import Workspace, load_corpus
from inspector.chunks.export import export_chunks
from inspector.reports.formats_table import formats_section
from inspector.review.reveal import context
from inspector.spec import parse_spec
from inspector.views.render import overlay_html
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def formats():
    return Workspace(load_corpus(SAMPLE / "formats"))


def test_exported_chunks_of_a_pdf_carry_their_pages(formats):
    out = io.StringIO()
    export_chunks(formats, "fixed:200", out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    pdf = [r for r in records if r["doc_id"].endswith(".pdf")]
    document = next(d for d in formats.documents if d.id.endswith(".pdf"))
    assert pdf and all((r["page_start"], r["page_end"]) == document.page_span(r["start"], r["end"]) for r in pdf)
    assert {r["page_end"] for r in pdf} == {1, 2, 3}
    assert all("page_start" not in r for r in records if r["doc_id"].endswith((".docx", ".html")))


def test_overlay_labels_name_the_pages(formats):
    document = next(d for d in formats.documents if d.id.endswith(".pdf"))
    chunks = formats.split("fixed:200")[formats.documents.index(document)].chunks
    html = overlay_html(document, chunks, formats.analysis(document))
    assert "#1 · 200 chars · p. 1</span>" in html and "pp. 1–2" in html
    text_only = overlay_html(document.text, chunks, formats.analysis(document))
    assert "p. 1" not in text_only


def test_the_reveal_names_the_chunks_pages(formats):
    document = next(d for d in formats.documents if d.id.endswith(".pptx"))
    chunks = formats.split("fixed:120")[formats.documents.index(document)].chunks
    assert context(chunks[-1], formats).pages == (3, 3)
    markdown = Workspace(load_corpus(SAMPLE / "handbook"))
    assert context(markdown.split("fixed:800")[0].chunks[0], markdown).pages is None


def test_survival_by_source_format(sample_markdown):
    rows = formats_section(sample_markdown, [parse_spec("fixed:800"), parse_spec("structured:800")])
    assert {r["format"] for r in rows} == {"docx", "html", "markdown", "pdf", "pptx", "text"}
    assert sum(r["documents"] for r in rows if r["spec"] == "fixed:800") == len(sample_markdown.documents)
    html = next(r for r in rows if r["format"] == "html" and r["spec"] == "structured:800")
    assert html["survival"]["code"] == 1.0 and html["survival"]["table"] is None
