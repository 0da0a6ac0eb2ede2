"""``--converter docling``: how Chunk Inspector drives Docling and reports what it cannot do.

Docling pulls in torch and model weights, too heavy for this suite, so these tests put a
stand-in ``docling`` package on the path that behaves as Docling does offline: DOCX and HTML
convert, a PDF fails reaching for its layout models. They check our side of the contract
(what is called, what is cached, what a failure says), not Docling's conversions.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from inspector import load_corpus
from inspector.corpus import convert as convert_module
from inspector.errors import CorpusError
from tests.support.files import reasons, write
from tests.support.paths import SAMPLE

STAND_IN = {
    "docling/__init__.py": "__version__ = '9.9.9-stand-in'\n",
    "docling/datamodel/__init__.py": "",
    "docling/datamodel/base_models.py": textwrap.dedent('''
        class DocumentStream:
            def __init__(self, name, stream):
                self.name, self.stream = name, stream
    '''),
    "docling/document_converter.py": textwrap.dedent('''
        CALLS = []

        class _Document:
            def __init__(self, text):
                self.text = text

            def export_to_markdown(self):
                return self.text

        class _Result:
            def __init__(self, text):
                self.document = _Document(text)

        class DocumentConverter:
            def convert(self, source):
                CALLS.append(source.name)
                if source.name.endswith(".pdf"):
                    raise OSError("Cannot find an appropriate cached snapshot folder for the specified revision "
                                  "on the local disk and outgoing traffic has been disabled (HF_HUB_OFFLINE)")
                if source.name.endswith(".pptx"):
                    raise NotImplementedError("shape type 14 is not supported")
                data = source.stream.read()
                return _Result("# Converted by Docling\\n\\n" + str(len(data)) + " bytes read.\\n")
    '''),
}


@pytest.fixture
def docling(tmp_path, monkeypatch):
    for name, text in STAND_IN.items():
        write(tmp_path / "site", name, text)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(convert_module, "_MEMO", {})
    yield
    for name in [m for m in sys.modules if m == "docling" or m.startswith("docling.")]:
        del sys.modules[name]


def test_without_docling_the_converter_is_refused_with_the_way_to_get_it():
    with pytest.raises(CorpusError, match=r"needs the docling package \(pip install docling\)"):
        load_corpus(SAMPLE / "formats", converter="docling")
    with pytest.raises(CorpusError, match="unknown converter 'pandoc'"):
        load_corpus(SAMPLE / "formats", converter="pandoc")


def test_docling_converts_what_it_can_and_a_pdf_without_models_is_named(docling, tmp_path):
    corpus = load_corpus(SAMPLE / "formats", converter="docling", conversions=tmp_path / "conversions")
    by_id = {d.id: d for d in corpus.documents}
    assert set(by_id) == {"expense-approval.docx", "rotating-the-admin-certificate.html"}
    assert by_id["expense-approval.docx"].text.startswith("# Converted by Docling")
    assert by_id["expense-approval.docx"].source_format == "docx" and by_id["expense-approval.docx"].pages == ()
    found = reasons(corpus)
    assert found["sizing-notes.pdf"].startswith("needs Docling's models")
    deck = found["harborline-4-2-overview.pptx"]
    assert "the Docling converter failed on this PPTX file (NotImplementedError" in deck
    from docling.document_converter import CALLS

    assert sorted(CALLS) == ["document.docx", "document.html", "document.pdf", "document.pptx"]
    CALLS.clear()
    again = load_corpus(SAMPLE / "formats", converter="docling", conversions=tmp_path / "conversions")
    assert [d.text for d in again.documents] == [d.text for d in corpus.documents]
    assert sorted(CALLS) == ["document.pdf", "document.pptx"], "kept conversions are not redone"


def test_docling_and_markitdown_conversions_are_kept_apart(docling, tmp_path):
    write(tmp_path / "docs", "page.html", "<h1>Title</h1><p>Body.</p>")
    markitdown = load_corpus(tmp_path / "docs", conversions=tmp_path / "conversions")
    converted = load_corpus(tmp_path / "docs", converter="docling", conversions=tmp_path / "conversions")
    assert markitdown.documents[0].text.startswith("# Title")
    assert converted.documents[0].text.startswith("# Converted by Docling")
