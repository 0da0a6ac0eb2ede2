"""Write the sample corpus's PDF, DOCX, HTML and PPTX files (``sample_corpus/formats/``).

Original text written for the project, about the same fictional product as the rest of the
sample corpus. Run it to regenerate the files (needs the dev requirements: fpdf2, python-docx,
python-pptx); ``PDF_PAGES`` records which heading starts each page of the PDF, and the tests
check page ranges against it.

    python scripts/make_sample_formats.py
"""

from __future__ import annotations

import datetime
import html
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "inspector" / "sample_corpus" / "formats"
FIXED_DATE = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)

#: The PDF: per page, its heading, paragraphs and (on page 2) a table.
PDF_PAGES = [
    ("Harborline sizing notes", [
        "These notes size a Harborline cluster for a team that ingests event data all day. They were "
        "written for version 4.2 and assume the recommended hardware profile.",
        "A three-node cluster with 8 vCPU and 32 GiB of memory per node sustains about 180 MB per second "
        "of produce traffic with replication factor 3, measured over a 6-hour soak test.",
    ]),
    ("Disk per node", [
        "Disk needed per node is the retained data of every replica it hosts, plus 25% headroom for "
        "compaction and index rebuilds.",
    ]),
    ("Network", [
        "Replication triples the bytes on the wire: a 40 MB per second ingest becomes 120 MB per second "
        "between brokers, which a 10 GbE link carries with room to spare.",
        "Cross-zone traffic is billed by most clouds at about 0.01 USD per GB in each direction.",
    ]),
]
PDF_TABLE = [("Profile", "vCPU", "Memory", "Disk"), ("small", "4", "16 GiB", "250 GB"),
             ("recommended", "8", "32 GiB", "500 GB"), ("large", "16", "64 GiB", "2 TB")]

DOCX_TITLE = "Expense approval at Quillfeather Labs"
DOCX_SECTIONS = [
    ("Who approves what", ["Claims up to EUR 500 are approved by your manager within 5 working days.",
                           "Claims above EUR 500 also need the budget owner, who answers within 10 working days."]),
    ("Receipts", ["Keep an itemised receipt for every claim. A card slip showing only the total is not enough."]),
]
DOCX_TABLE = [("Amount", "Approver", "Days"), ("up to EUR 500", "manager", "5"),
              ("EUR 500 to 5,000", "manager and budget owner", "10"), ("above EUR 5,000", "finance director", "15")]

HTML_TITLE = "Rotating the admin certificate"
HTML_CODE = "hbl certs rotate --listener admin --days 90\nhbl certs status --listener admin"

PPTX_SLIDES = [
    ("Harborline 4.2 in five minutes", ["Tidewater storage engine by default",
                                        "Tiered storage is generally available"]),
    ("Upgrade path", ["Upgrade from 3.x through 4.0 first", "Rolling restarts keep 2 of 3 replicas online"]),
    ("Numbers to remember", ["p99 produce latency fell by 38% against 4.1", "Segments default to 256 MiB"]),
]


def write_pdf(path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_auto_page_break(False)
    for number, (heading, paragraphs) in enumerate(PDF_PAGES):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 11)
        for paragraph in paragraphs:
            pdf.multi_cell(0, 6, paragraph, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(3)
        if number == 1:
            with pdf.table(col_widths=(40, 25, 30, 30), text_align="LEFT") as table:
                for row in PDF_TABLE:
                    cells = table.row()
                    for value in row:
                        cells.cell(value)
    pdf.set_creation_date(FIXED_DATE)  # the same bytes on every run
    pdf.output(str(path))


def write_docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.created = document.core_properties.modified = FIXED_DATE
    document.add_heading(DOCX_TITLE, level=1)
    for heading, paragraphs in DOCX_SECTIONS:
        document.add_heading(heading, level=2)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
    document.add_heading("Approval limits", level=2)
    table = document.add_table(rows=len(DOCX_TABLE), cols=len(DOCX_TABLE[0]))
    for r, row in enumerate(DOCX_TABLE):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.save(str(path))


def write_html(path: Path) -> None:
    body = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(HTML_TITLE)}</title></head>
<body>
<h1>{html.escape(HTML_TITLE)}</h1>
<p>The admin listener's certificate expires after 90 days. Rotate it at least 14 days before it
expires; the broker keeps serving with the old certificate until the new one is loaded.</p>
<h2>Commands</h2>
<pre><code class="language-bash">{html.escape(HTML_CODE)}</code></pre>
<h2>What to check afterwards</h2>
<ul><li>The status command prints the new expiry date.</li>
<li>Clients reconnect within 30 seconds.</li></ul>
</body></html>
"""
    path.write_text(body, encoding="utf-8")


def write_pptx(path: Path) -> None:
    from pptx import Presentation

    deck = Presentation()
    layout = deck.slide_layouts[1]
    for title, points in PPTX_SLIDES:
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = title
        body = slide.placeholders[1].text_frame
        body.text = points[0]
        for point in points[1:]:
            body.add_paragraph().text = point
    deck.core_properties.created = deck.core_properties.modified = FIXED_DATE
    deck.save(str(path))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    write_pdf(OUT / "sizing-notes.pdf")
    write_docx(OUT / "expense-approval.docx")
    write_html(OUT / "rotating-the-admin-certificate.html")
    write_pptx(OUT / "harborline-4-2-overview.pptx")
    print(f"wrote {len(list(OUT.iterdir()))} files to {OUT}")


if __name__ == "__main__":
    main()
