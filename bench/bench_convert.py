"""Conversion's cost: PDF pages per second, DOCX and HTML files per second through MarkItDown,
and the time to load the same folder again with its conversions kept.

    python bench/bench_convert.py
"""

from __future__ import annotations

import io
import shutil
import tempfile
import time
from pathlib import Path

from common import ROOT  # noqa: F401  (puts the project on sys.path)

from inspector import load_corpus
from inspector.corpus import ConversionCache

PARAGRAPH = ("Replication triples the bytes on the wire: a 40 MB per second ingest becomes 120 MB per second "
             "between brokers, which a 10 GbE link carries with room to spare. ")


def write_pdf(path: Path, pages: int) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    for number in range(pages):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.cell(0, 10, f"Section {number + 1}", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for _ in range(6):
            pdf.multi_cell(0, 6, PARAGRAPH * 2, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))


def write_docx(path: Path, number: int) -> None:
    import docx

    document = docx.Document()
    document.add_heading(f"Policy {number}", level=1)
    for section in range(5):
        document.add_heading(f"Part {section}", level=2)
        document.add_paragraph(PARAGRAPH * 3)
    table = document.add_table(rows=4, cols=3)
    for r in range(4):
        for c in range(3):
            table.cell(r, c).text = f"cell {r}.{c}"
    out = io.BytesIO()
    document.save(out)
    path.write_bytes(out.getvalue())


def write_html(path: Path, number: int) -> None:
    body = "".join(f"<h2>Part {s}</h2><p>{PARAGRAPH * 3}</p><pre><code>hbl status --node {s}</code></pre>"
                   for s in range(5))
    path.write_text(f"<html><body><h1>Guide {number}</h1>{body}</body></html>", encoding="utf-8")


def timed(folder: Path, cache: Path) -> tuple[float, int]:
    start = time.perf_counter()
    conversions = ConversionCache(cache)
    corpus = load_corpus(folder, conversions=conversions)
    return time.perf_counter() - start, len(corpus.documents)


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="ci-bench-convert-"))
    try:
        load_corpus(ROOT / "sample_corpus" / "formats")  # imports MarkItDown outside the timings
        pdf_folder, docx_folder, html_folder = work / "pdf", work / "docx", work / "html"
        for folder in (pdf_folder, docx_folder, html_folder):
            folder.mkdir()
        pages = 60
        write_pdf(pdf_folder / "long.pdf", pages)
        for n in range(40):
            write_docx(docx_folder / f"policy-{n}.docx", n)
            write_html(html_folder / f"guide-{n}.html", n)
        cold = 0.0
        seconds, _ = timed(pdf_folder, work / "cache-pdf")
        cold += seconds
        print(f"PDF   {pages} pages in {seconds:.2f} s: {pages / seconds:.1f} pages/s")
        for name, folder in (("DOCX", docx_folder), ("HTML", html_folder)):
            seconds, count = timed(folder, work / f"cache-{name}")
            cold += seconds
            print(f"{name}  {count} files in {seconds:.2f} s: {count / seconds:.1f} files/s")
        warm = sum(timed(folder, work / f"cache-{name}")[0]
                   for name, folder in (("pdf", pdf_folder), ("DOCX", docx_folder), ("HTML", html_folder)))
        print(f"reload the 81 files: {cold:.2f} s converting, {warm:.2f} s with the conversions kept "
              f"({cold / warm:.0f}x faster)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
