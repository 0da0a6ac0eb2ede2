"""``inspector.corpus.convert``: the sample corpus's PDF, DOCX, HTML and PPTX files become
markdown with their headings, tables and code intact, pages kept; files that cannot become
text are listed with their reason and the rest loads."""

from __future__ import annotations

import importlib.util

import pytest

from inspector import Workspace, load_corpus
from inspector.corpus import ConversionCache, to_markdown
from inspector.corpus import convert as convert_module
from inspector.corpus.listing import list_corpus
from inspector.corpus.load import Reading, load_listing
from tests.support.documents import CODE_LINES, docx_with_code, unreadable_files
from tests.support.files import reasons, write
from tests.support.paths import ROOT, SAMPLE

FORMATS = SAMPLE / "formats"


def _script():
    spec = importlib.util.spec_from_file_location("make_sample_formats", ROOT / "scripts" / "make_sample_formats.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


@pytest.fixture(scope="module")
def converted():
    corpus = load_corpus(FORMATS)
    assert corpus.skipped == ()
    work = Workspace(corpus)
    return {d.id.rsplit(".", 1)[1]: (d, work.analysis(d)) for d in corpus.documents}


def atom_texts(document, analysis, kind):
    return [document.text[a:b] for a, b in analysis.atoms[kind]]


def test_every_format_of_the_sample_corpus_loads_offline(sample_markdown):
    kinds = {d.source_format for d in sample_markdown.documents if d.id.startswith("formats/")}
    assert kinds == {"pdf", "docx", "html", "pptx"}
    assert all(not d.source_format for d in sample_markdown.documents if not d.id.startswith("formats/"))


def test_the_docx_keeps_its_headings_and_its_table(converted):
    document, analysis = converted["docx"]
    titles = [SCRIPT.DOCX_TITLE, *(h for h, _ in SCRIPT.DOCX_SECTIONS), "Approval limits"]
    assert [(h.level, h.title) for h in analysis.headings] == [(1, titles[0])] + [(2, t) for t in titles[1:]]
    (table,) = atom_texts(document, analysis, "table")
    assert all(cell in table for row in SCRIPT.DOCX_TABLE for cell in row)
    assert len(analysis.atoms["row"]) >= len(SCRIPT.DOCX_TABLE) - 1
    assert document.title == SCRIPT.DOCX_TITLE


def test_the_html_keeps_its_code_block(converted):
    document, analysis = converted["html"]
    (code,) = atom_texts(document, analysis, "code")
    assert SCRIPT.HTML_CODE.splitlines()[0] in code and SCRIPT.HTML_CODE.splitlines()[1] in code
    assert document.text.startswith(f"# {SCRIPT.HTML_TITLE}\n") and "## Commands" in document.text
    assert any("14 days" in s for s in atom_texts(document, analysis, "num"))


def test_the_pdf_keeps_its_table_and_figures(converted):
    document, analysis = converted["pdf"]
    (table,) = atom_texts(document, analysis, "table")
    assert all(cell in table for row in SCRIPT.PDF_TABLE for cell in row)
    figures = atom_texts(document, analysis, "num")
    assert any("180 MB per second" in s for s in figures) and any("0.01 USD" in s for s in figures)


def test_the_pptx_keeps_one_heading_and_one_page_per_slide(converted):
    document, analysis = converted["pptx"]
    assert [h.title for h in analysis.headings] == [title for title, _ in SCRIPT.PPTX_SLIDES]
    assert len(document.pages) == len(SCRIPT.PPTX_SLIDES)
    for start, (title, _) in zip(document.pages, SCRIPT.PPTX_SLIDES):
        assert document.text[start:].split("\n", 2)[1] == f"# {title}"
    assert document.page_span(document.pages[1], document.pages[2]) == (2, 2)


def expected_pages(document, start: int, end: int) -> tuple[int, int]:
    """The pages the generating script wrote that ``[start, end)`` touches, by their headings."""
    starts = [document.text.index(heading) for heading, _ in SCRIPT.PDF_PAGES]
    touched = [n + 1 for n, first in enumerate(starts)
               if start < (starts[n + 1] if n + 1 < len(starts) else len(document.text)) and first < end]
    return touched[0], touched[-1]


@pytest.mark.parametrize("spec", ["fixed:120", "fixed:400/50", "structured:300", "sentence:200"])
def test_every_chunk_of_the_pdf_knows_its_pages(converted, spec):
    document, analysis = converted["pdf"]
    assert len(document.pages) == len(SCRIPT.PDF_PAGES)
    for start, (heading, _) in zip(document.pages, SCRIPT.PDF_PAGES):
        assert document.text[start:].startswith(heading), "each page starts with the heading written on it"
    from inspector import split_document

    for chunk in split_document(document, spec, analysis).chunks:
        assert document.page_span(chunk.start, chunk.end) == expected_pages(document, chunk.start, chunk.end)


@pytest.mark.parametrize(("paragraph_style", "character_style"), [
    ("Code", "Code Char"), ("HTML Preformatted", "HTML Code"), ("Source Code", "Verbatim Char")])
def test_a_word_listing_in_a_code_style_is_one_code_atom(tmp_path, paragraph_style, character_style):
    write(tmp_path, "deploy.docx", docx_with_code(paragraph_style, character_style))
    (document,) = load_corpus(tmp_path).documents
    analysis = Workspace(load_corpus(tmp_path)).analysis(document)
    (code,) = atom_texts(document, analysis, "code")
    assert code == "```\n" + "\n".join(CODE_LINES) + "\n```", "one block, indentation and asterisks kept"
    assert "Then call `rollback(a_b)` if the check fails." in document.text


def test_a_word_paragraph_in_an_ordinary_style_is_not_code(tmp_path):
    write(tmp_path, "deploy.docx", docx_with_code("Quote", "Emphasis"))
    (document,) = load_corpus(tmp_path).documents
    assert "```" not in document.text and "`rollback" not in document.text


def test_files_that_cannot_become_text_are_listed_and_the_rest_loads(tmp_path):
    bad = unreadable_files()
    for name, (data, _) in bad.items():
        write(tmp_path, f"docs/{name}", data)
    write(tmp_path, "docs/fine.md", "# Fine\n\nThis one loads.\n")
    write(tmp_path, "docs/fine.html", "<h1>Fine too</h1><p>So does this.</p>")
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus.documents] == ["docs/fine.html", "docs/fine.md"]
    found = reasons(corpus)
    assert set(found) == {f"docs/{name}" for name in bad}
    for name, (_, says) in bad.items():
        assert says in found[f"docs/{name}"], (name, found[f"docs/{name}"])


def test_the_seed_mode_reads_markdown_only(tmp_path):
    write(tmp_path, "a.md", "# A\n")
    write(tmp_path, "b.html", "<h1>B</h1>")
    assert [d.id for d in load_corpus(tmp_path, mode="seed").documents] == ["a.md"]


def test_conversions_are_kept_by_content_and_converter_version(tmp_path, monkeypatch):
    pdf = (FORMATS / "sizing-notes.pdf").read_bytes()
    cache = ConversionCache(tmp_path / "conversions")
    first = cache.convert(pdf, "pdf")
    assert cache.converted == 1 and len(list((tmp_path / "conversions").rglob("*.json"))) == 1
    monkeypatch.setattr(convert_module, "_MEMO", {})
    monkeypatch.setattr("inspector.corpus.conversions.to_markdown", None)  # a second run must not convert
    again = ConversionCache(tmp_path / "conversions")
    assert again.convert(pdf, "pdf") == first and again.converted == 0
    monkeypatch.undo()
    monkeypatch.setattr(convert_module, "FORMAT_REVISION", convert_module.FORMAT_REVISION + 1)
    newer = ConversionCache(tmp_path / "conversions")
    assert newer.convert(pdf, "pdf") == first and newer.converted == 1, "a new converter converts again"


def test_a_damaged_cache_entry_is_converted_again(tmp_path):
    html = b"<h1>Title</h1><p>Body text.</p>"
    cache = ConversionCache(tmp_path)
    cache.convert(html, "html")
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text("{not json")
    again = ConversionCache(tmp_path)
    assert again.convert(html, "html").text.startswith("# Title") and again.converted == 1


def test_a_load_with_a_cache_and_progress(tmp_path):
    seen = []
    corpus = load_corpus(FORMATS, conversions=tmp_path, progress=lambda done, total: seen.append((done, total)))
    assert len(corpus.documents) == 4 and seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert len(list(tmp_path.rglob("*.json"))) == 4


def test_converted_text_is_what_convert_returns(converted):
    document, _ = converted["html"]
    raw = (FORMATS / "rotating-the-admin-certificate.html").read_bytes()
    assert to_markdown(raw, "html").text == document.text


def test_a_cache_reads_the_converters_version_once(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr("inspector.corpus.conversions.converter_version",
                        lambda converter: asked.append(converter) or "v1")
    cache = ConversionCache(tmp_path)
    for k in range(3):
        cache.convert(f"<h1>Page {k}</h1><p>Body.</p>".encode(), "html")
    assert asked == ["markitdown"] and cache.converted == 3


def test_the_files_to_convert_are_told_first_and_text_files_before_any_file_converts(tmp_path, monkeypatch):
    write(tmp_path, "a.md", "# A\n\nText.\n")
    write(tmp_path, "b.html", "<h1>B</h1><p>Converted.</p>")
    write(tmp_path, "c.txt", "Plain text.\n")
    write(tmp_path, "d.html", "<h1>D</h1><p>Converted too.</p>")
    write(tmp_path, "bad.md", b"\xff\xfe\x00binary")
    events = []
    real = convert_module.to_markdown
    monkeypatch.setattr(convert_module, "_MEMO", {})
    monkeypatch.setattr(convert_module, "to_markdown", lambda raw, kind, converter="markitdown":
                        events.append("converted") or real(raw, kind, converter))
    monkeypatch.setattr("inspector.corpus.read.to_markdown", convert_module.to_markdown)
    read = []
    monkeypatch.setattr(Reading, "read", lambda self, doc_id, path, real=Reading.read:
                        read.append(doc_id) or real(self, doc_id, path))

    class Ahead:
        def files_listed(self, converting):
            events.append(([doc_id for doc_id, _ in converting], list(read)))

        def texts_read(self, documents):
            events.append([d.id for d in documents])
            return lambda: events.append("waited")

    corpus = load_listing(list_corpus(tmp_path), Reading("markdown"), Ahead())
    assert events == [(["b.html", "d.html"], []), ["a.md", "c.txt"], "waited", "converted", "converted"]
    assert corpus == load_corpus(tmp_path)  # the same corpus, in id order, the unreadable file skipped
    assert [d.id for d in corpus.documents] == ["a.md", "b.html", "c.txt", "d.html"]


# Run in a fresh interpreter: whether a module was imported is a property of the process.
_IMPORTS = """
import io, sys
from pathlib import Path
from inspector.corpus import to_markdown
folder = Path(sys.argv[1])
for kind in ("pdf", "docx", "pptx", "html"):
    to_markdown(next(folder.glob("*." + kind)).read_bytes(), kind)
print(sorted(name for name in sys.modules if name.split(".")[0] in ("markitdown", "pypdfium2", "pdfminer", "docx",
                                                                    "pptx", "pandas", "openpyxl", "magika", "bs4")))
import openpyxl
book = openpyxl.Workbook()
book.active.append(["name", "price"])
book.active.append(["tea", 3])
data = io.BytesIO()
book.save(data)
print(repr(to_markdown(data.getvalue(), "xlsx").text))
"""


def test_this_process_never_parses_what_it_converts():
    """Every conversion runs in the box: converting the four sample formats and an XLSX imports
    no converter and no parser of office files or PDFs in the caller's process."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _IMPORTS, str(FORMATS)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    imported, xlsx = done.stdout.splitlines()
    assert imported == "[]"
    assert xlsx == repr("## Sheet\n| name | price |\n| --- | --- |\n| tea | 3 |\n")


def _unmapped(*args, **kwargs):
    """What a late import fails with when the box's memory limit refuses to map its shared object,
    wrapped in advice as numpy wraps it."""
    try:
        raise ImportError("/lib/_bounded_integers.so: failed to map segment from shared object")
    except ImportError as cause:
        raise ImportError("IMPORTANT: PLEASE READ THIS FOR ADVICE ON HOW TO SOLVE THIS ISSUE!") from cause


@pytest.mark.parametrize(("converter", "target"), [
    ("markitdown", "markitdown.converters.HtmlConverter.convert"),
    ("docling", "inspector.corpus.docling_converter._rule_based"),
])
def test_a_converter_that_cannot_map_a_module_has_run_out_of_memory_not_failed(monkeypatch, converter, target):
    """The box tells the memory limit, not "the converter failed (ImportError ...)"."""
    from inspector.corpus.box import BoxLimits
    from inspector.corpus.convert import converted_in_box

    monkeypatch.setattr(target, _unmapped)
    with pytest.raises(MemoryError):
        converted_in_box({"kind": "html", "converter": converter}, b"<p>Fine.</p>", BoxLimits.default())
