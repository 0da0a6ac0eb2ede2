"""What a converter is never handed: a zip archive (DOCX, PPTX, XLSX, EPUB) that inflates past
its limits, or whose XML nests too deeply. Read from the archive's directory and by streaming
each XML part through expat, in the conversion's own process (``box``), before the converter
parses anything."""

from __future__ import annotations

import io
import zipfile
from xml.parsers import expat

from ..errors import UnreadableFile
from ..limits import human_size

#: The kinds that are zip archives.
ARCHIVES = frozenset({"docx", "pptx", "xlsx", "epub"})
#: Members whose nesting is checked.
_MARKUP = (".xml", ".rels", ".xhtml", ".html", ".htm", ".opf", ".ncx")
#: A member this small may inflate by any ratio (a ratio says nothing about a few bytes).
_SMALL = 1_000_000


def check_archive(raw: bytes, kind: str, limits) -> None:
    """``UnreadableFile`` with the reason when ``raw`` (a file of ``kind``) is an archive over
    ``limits`` (a ``box.BoxLimits``); nothing for other kinds, or for bytes that are no zip
    (the converter says what they are)."""
    if kind not in ARCHIVES:
        return
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, OSError, ValueError):
        return
    with archive:
        members = archive.infolist()
        if len(members) > limits.zip_members:
            raise UnreadableFile(f"a {kind.upper()} of {len(members):,} parts (at most {limits.zip_members:,})")
        total = 0
        for member in members:
            size = member.file_size
            total += size
            if size > limits.zip_member_bytes:
                raise UnreadableFile(f"its part {member.filename[:80]} inflates to {human_size(size)} (at most "
                                     f"{human_size(limits.zip_member_bytes)} a part): a zip bomb, or too large to "
                                     "convert")
            ratio = size // max(member.compress_size, 1)
            if size > _SMALL and ratio > limits.zip_ratio:
                raise UnreadableFile(f"its part {member.filename[:80]} inflates {ratio:,} times (at most "
                                     f"{limits.zip_ratio}): a zip bomb")
        if total > limits.zip_bytes:
            raise UnreadableFile(f"its parts inflate to {human_size(total)} (at most {human_size(limits.zip_bytes)})")
        for member in members:
            if member.filename.lower().endswith(_MARKUP):
                _check_depth(archive, member, limits.xml_depth)


def _check_depth(archive: zipfile.ZipFile, member: zipfile.ZipInfo, most: int) -> None:
    depth = 0

    def opened(name, attributes):
        nonlocal depth
        depth += 1
        if depth > most:
            raise UnreadableFile(f"its part {member.filename[:80]} nests more than {most} elements deep")

    def closed(name):
        nonlocal depth
        depth -= 1

    parser = expat.ParserCreate()
    parser.StartElementHandler, parser.EndElementHandler = opened, closed
    try:
        with archive.open(member) as stream:
            while block := stream.read(1 << 20):
                parser.Parse(block, False)
            parser.Parse(b"", True)
    except UnreadableFile:
        raise  # a ValueError too: not to be taken for a damaged member
    except (expat.ExpatError, zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError):
        return  # not well-formed XML, or a damaged member: the converter says what it makes of it
