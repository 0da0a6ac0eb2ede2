"""Files of each converted format that cannot become text, made on the spot: damaged, encrypted,
empty and image-only (HTML has no encryption: a page of script alone stands in), made with the
dev requirements fpdf2, python-docx and python-pptx."""

from __future__ import annotations

import io
import struct
import zlib

#: What a password-protected Office file starts with (an OLE compound file, not a zip archive).
OLE_HEADER = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def png(width: int = 8, height: int = 8) -> bytes:
    """A small grey PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def pdf_with(text: str | None = None, *, password: str | None = None, image: bool = False) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    if text:
        pdf.set_font("Helvetica", size=12)
        pdf.cell(0, 10, text)
    if image:
        pdf.image(io.BytesIO(png()), x=20, y=20, w=80)
    if password:
        pdf.set_encryption(owner_password="owner", user_password=password)
    return bytes(pdf.output())


def docx_with_only_an_image() -> bytes:
    import docx

    document = docx.Document()
    document.add_picture(io.BytesIO(png()))
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


CODE_LINES = ("def deploy(env):", "    if env == '*prod*':", "        return limits[env] < 2")


def docx_with_code(paragraph_style: str, character_style: str) -> bytes:
    """A Word file whose listing is written in ``paragraph_style``, one paragraph per line, and
    whose prose names a function in ``character_style``."""
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    document = docx.Document()
    document.add_heading("Deploying", 1)
    document.add_paragraph("Run this before the release:")
    for name, kind in ((paragraph_style, WD_STYLE_TYPE.PARAGRAPH), (character_style, WD_STYLE_TYPE.CHARACTER)):
        if name not in [s.name for s in document.styles]:
            document.styles.add_style(name, kind)
    for line in CODE_LINES:
        document.add_paragraph(line, style=paragraph_style)
    said = document.add_paragraph("Then call ")
    said.add_run("rollback(a_b)", style=character_style)
    said.add_run(" if the check fails.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_with_only_an_image() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank
    slide.shapes.add_picture(io.BytesIO(png()), Inches(1), Inches(1))
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def unreadable_files() -> dict[str, tuple[bytes, str]]:
    """File name -> (content, words its skip reason must hold), four per format."""
    return {
        "damaged.pdf": (b"%PDF-1.4\nthis is not really a PDF", "not a readable PDF"),
        "encrypted.pdf": (pdf_with("secret figures", password="hunter2"), "encrypted PDF"),
        "empty.pdf": (b"", "not a readable PDF"),
        "scan.pdf": (pdf_with(image=True), "needs OCR"),
        "damaged.docx": (b"PK\x03\x04 a zip header and nothing else", "not a readable DOCX file"),
        "encrypted.docx": (OLE_HEADER + b"\x00" * 504, "encrypted"),
        "empty.docx": (b"", "not a readable DOCX file"),
        "picture.docx": (docx_with_only_an_image(), "needs OCR"),
        "damaged.pptx": (b"PK\x03\x04 not a presentation", "not a readable PPTX file"),
        "encrypted.pptx": (OLE_HEADER + b"\x00" * 504, "encrypted"),
        "empty.pptx": (b"", "not a readable PPTX file"),
        "picture.pptx": (pptx_with_only_an_image(), "needs OCR"),
        "damaged.html": (b"<html>\xff\xfe\x00\x00 binary", "binary file"),
        "script-only.html": (b"<html><body><script>var s='...';</script></body></html>", "no text"),
        "empty.html": (b"", "no text"),
        "picture.html": (b"<html><body><img src='scan.png' alt=''></body></html>", "needs OCR"),
    }
