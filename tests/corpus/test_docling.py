"""``--converter docling``: Docling's rule-based DOCX, HTML and PPTX backends (``docling-slim``
with its format extras, installed by the dev requirements: no torch, no model), and its PDF
pipeline reported per file when its models are not on the machine."""

from __future__ import annotations

import re

import pytest

from inspector import Workspace, load_corpus
from inspector.corpus import docling_converter
from inspector.errors import CorpusError
from inspector.extras import install_hint
from tests.support.documents import unreadable_files
from tests.support.files import reasons, write
from tests.support.paths import SAMPLE

# With the conversion bombs: one worker pays for Docling's first conversion (10 s), and for this
# module's conversion once.
pytestmark = pytest.mark.xdist_group("converters")


@pytest.fixture(scope="module")
def converted():
    corpus = load_corpus(SAMPLE / "formats", converter="docling")
    return corpus, Workspace(corpus)


def test_docling_converts_docx_html_and_pptx_with_their_structure(converted):
    corpus, work = converted
    by_kind = {d.source_format: d for d in corpus.documents}
    assert set(by_kind) == {"docx", "html", "pptx"}
    docx = work.analysis(by_kind["docx"])
    assert "Expense approval at Quillfeather Labs" in [h.title for h in docx.headings]
    assert len(docx.atoms["table"]) == 1 and len(docx.atoms["row"]) >= 3
    html = work.analysis(by_kind["html"])
    (code,) = [by_kind["html"].text[a:b] for a, b in html.atoms["code"]]
    assert "hbl certs rotate --listener admin --days 90" in code
    pptx = work.analysis(by_kind["pptx"])
    assert [h.title for h in pptx.headings] == ["Harborline 4.2 in five minutes", "Upgrade path",
                                                 "Numbers to remember"]
    assert all(not d.pages for d in corpus.documents), "Docling's markdown carries no page offsets"


def test_a_pdf_without_doclings_models_is_listed_and_the_rest_loads(converted):
    corpus, _ = converted
    assert reasons(corpus)["sizing-notes.pdf"].startswith("needs Docling's models")


def test_files_docling_cannot_read_are_listed_with_a_reason(tmp_path):
    for name, (data, _) in unreadable_files().items():
        if not name.endswith(".pdf"):
            write(tmp_path, name, data)
    write(tmp_path, "fine.html", "<h1>Fine</h1><p>This one loads.</p>")
    corpus = load_corpus(tmp_path, converter="docling")
    assert [d.id for d in corpus.documents] == ["fine.html"]
    found = reasons(corpus)
    assert len(found) == 12 and all(found.values())
    assert "encrypted" in found["encrypted.docx"] and "needs OCR" in found["picture.pptx"]
    assert "Docling cannot read this DOCX file" in found["damaged.docx"]


def test_docling_and_markitdown_conversions_are_kept_apart(tmp_path):
    write(tmp_path / "docs", "page.html", "<h1>Title</h1><ul><li>one</li></ul>")
    markitdown = load_corpus(tmp_path / "docs", conversions=tmp_path / "conversions")
    docling = load_corpus(tmp_path / "docs", converter="docling", conversions=tmp_path / "conversions")
    assert markitdown.documents[0].text == "# Title\n\n* one\n"
    assert docling.documents[0].text == "# Title\n\n- one\n"
    assert len(list((tmp_path / "conversions").rglob("*.json"))) == 2


def test_without_docling_the_converter_is_refused_with_the_way_to_get_it(monkeypatch):
    monkeypatch.setattr(docling_converter, "docling_available", lambda: False)
    hint = re.escape(f"needs the docling package ({install_hint('docling')})")
    with pytest.raises(CorpusError, match=hint):
        load_corpus(SAMPLE / "formats", converter="docling")
    with pytest.raises(CorpusError, match="unknown converter 'pandoc'"):
        load_corpus(SAMPLE / "formats", converter="pandoc")
