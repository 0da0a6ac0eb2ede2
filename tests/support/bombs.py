"""Hostile inputs, made when a test or a benchmark asks for them (never kept as files): golden
sets that ask for unbounded work in a few kilobytes, and office files, PDFs and EPUBs that once
took a converter (and the server with it) down."""

from __future__ import annotations

import io
import json
import zipfile
import zlib


def letter_golden_set(questions: int = 1_000) -> bytes:
    """``questions`` questions whose evidence is the one letter ``e`` (32 KB for 1,000): found
    tens of thousands of times in any English corpus."""
    return "".join(json.dumps({"question": f"q{n}", "evidence": "e"}) + "\n"
                   for n in range(questions)).encode()


def many_quotes_golden_set(quotes: int = 900_000) -> bytes:
    """One question giving ``quotes`` quotes (3.6 MB for 900,000)."""
    return (json.dumps({"question": "Everything?", "evidence": ["e"] * quotes}) + "\n").encode()


def common_quote_golden_set(quote: str, questions: int = 1_000) -> bytes:
    """``questions`` questions quoting a long phrase that many pages share."""
    return "".join(json.dumps({"question": f"Where is it said, {n}?", "evidence": quote}) + "\n"
                   for n in range(questions)).encode()


def deep_json(depth: int = 100_000) -> bytes:
    """A question record nested ``depth`` levels deep (Python's parser recurses once a level)."""
    return ('{"question": "deep", "evidence": ' + "[" * depth + '"x"' + "]" * depth + "}\n").encode()


# -- files that once took a converter (and the server with it) down ----------------------

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _office(kind: str) -> bytes:
    """A small, valid office file of ``kind`` to rewrite parts of."""
    buffer = io.BytesIO()
    if kind == "docx":
        import docx

        document = docx.Document()
        document.add_heading("A harmless title", 1)
        document.add_paragraph("A harmless paragraph of text.")
        document.save(buffer)
    elif kind == "pptx":
        import pptx

        deck = pptx.Presentation()
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = "A harmless slide"
        deck.save(buffer)
    else:
        raise ValueError(kind)
    return buffer.getvalue()


def _rewritten(original: bytes, parts: dict[str, object]) -> bytes:
    """``original`` (a zip) with each named part replaced by bytes, or by an iterable of blocks
    deflated as they come (so a part of a gigabyte never exists in memory here)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        names = [info.filename for info in source.infolist()]
        for name in names + [n for n in parts if n not in names]:
            content = parts.get(name, None)
            if content is None:
                target.writestr(name, source.read(name))
            elif isinstance(content, bytes):
                target.writestr(name, content)
            else:
                with target.open(_deflated(name), "w", force_zip64=True) as stream:
                    for block in content:
                        stream.write(block)
    return out.getvalue()


def _deflated(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _repeated(head: bytes, block: bytes, size: int, tail: bytes):
    yield head
    for _ in range(size // len(block)):
        yield block
    yield tail


def zip_bomb_docx(inflated: int = 200_000_000) -> bytes:
    """A DOCX whose document part inflates to ``inflated`` bytes (about 200 kB on disk for 200 MB)."""
    body = (b"<w:p><w:r><w:t>" + b"A" * 4000 + b"</w:t></w:r></w:p>") * 16
    head = f'<?xml version="1.0"?><w:document {_W}><w:body>'.encode()
    part = _repeated(head, body, inflated, b"</w:body></w:document>")
    return _rewritten(_office("docx"), {"word/document.xml": part})


def zip_bomb_pptx(inflated: int = 200_000_000) -> bytes:
    """A PPTX whose first slide inflates to ``inflated`` bytes."""
    part = _repeated(b"<?xml version='1.0'?><p:sld xmlns:p='urn:x'>", b"<p:x/>" * 4096, inflated, b"</p:sld>")
    return _rewritten(_office("pptx"), {"ppt/slides/slide1.xml": part})


def ratio_bomb_docx(inflated: int = 60_000_000) -> bytes:
    """A DOCX with an extra part of ``inflated`` bytes that deflate a thousandfold: under the part
    size bound, over the ratio bound."""
    return _rewritten(_office("docx"), {"word/media/padding.xml": _repeated(b"<a>", b" " * 65536, inflated, b"</a>")})


def deep_docx(depth: int = 100_000) -> bytes:
    """A DOCX whose document nests ``depth`` elements: 47 kB for 100,000 (MarkItDown's XML reading
    is quadratic in the depth)."""
    xml = (f'<?xml version="1.0"?><w:document {_W}><w:body>' + "<w:sdt><w:sdtContent>" * depth + "<w:p/>"
           + "</w:sdtContent></w:sdt>" * depth + "</w:body></w:document>").encode()
    return _rewritten(_office("docx"), {"word/document.xml": xml})


def rows_xlsx(rows: int = 1_000_000) -> bytes:
    """An XLSX of one sheet of ``rows`` rows of three cells, written part by part (no spreadsheet
    library: a million rows through one would take minutes)."""
    sheet = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
        "_rels/.rels": (f'<?xml version="1.0"?><Relationships xmlns="{rel[:-36]}package/2006/relationships">'
                        f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/>'
                        "</Relationships>"),
        "xl/workbook.xml": (f'<?xml version="1.0"?><workbook {sheet} xmlns:r="{rel}"><sheets>'
                            '<sheet name="Rows" sheetId="1" r:id="rId1"/></sheets></workbook>'),
        "xl/_rels/workbook.xml.rels": (
            f'<?xml version="1.0"?><Relationships xmlns="{rel[:-36]}package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name, text in parts.items():
            target.writestr(name, text)
        with target.open(_deflated("xl/worksheets/sheet1.xml"), "w", force_zip64=True) as stream:
            stream.write(f'<?xml version="1.0"?><worksheet {sheet}><sheetData>'.encode())
            for first in range(1, rows + 1, 10_000):
                stream.write("".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}"><v>{r * 7 % 1000}</v></c>'
                                     f'<c r="C{r}"><v>{r % 97}</v></c></row>'
                                     for r in range(first, min(first + 10_000, rows + 1))).encode())
            stream.write(b"</sheetData></worksheet>")
    return out.getvalue()


def huge_stream_pdf(inflated: int = 1_000_000_000) -> bytes:
    """A one-page PDF whose content stream inflates to ``inflated`` bytes (about 6 MB on disk for
    1 GB): text-drawing operators, so both PDF readers decode all of it. Deflated at the fastest
    level: 2 s to write instead of 5 at the smallest (3 MB), the same gigabyte to a reader."""
    squeeze = zlib.compressobj(1)
    block = b"BT /F1 12 Tf 72 720 Td (a) Tj ET\n" * 2048
    stream = b"".join(squeeze.compress(block) for _ in range(inflated // len(block))) + squeeze.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" /Filter /FlateDecode >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def huge_epub(inflated: int = 300_000_000) -> bytes:
    """An EPUB whose one chapter inflates to ``inflated`` bytes."""
    container = ('<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:'
                 'container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>'
                 "</rootfiles></container>")
    opf = ('<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest>'
           '<item id="c1" href="chapter.xhtml" media-type="application/xhtml+xml"/></manifest>'
           '<spine><itemref idref="c1"/></spine></package>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        target.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        target.writestr("META-INF/container.xml", container)
        target.writestr("content.opf", opf)
        with target.open(_deflated("chapter.xhtml"), "w", force_zip64=True) as stream:
            for block in _repeated(b"<html><body>", b"<p>A sentence of the chapter.</p>" * 2000, inflated,
                                   b"</body></html>"):
                stream.write(block)
    return out.getvalue()
