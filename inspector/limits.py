"""Every size limit on what comes from outside, in one place, so that the app and the command line
refuse the same inputs, and a huge file, a pipe or ``/dev/zero`` is refused before it is parsed.

Sizes are decimal megabytes, as the messages print them.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from .errors import InputRefused, InputTooLarge

#: One document of a corpus (a file found, chosen or uploaded).
MAX_DOCUMENT_BYTES = 5_000_000
#: One PDF, DOCX, PPTX, XLSX, HTML or EPUB file to convert (images make these larger than text).
MAX_CONVERTED_BYTES = 50_000_000
#: All the files of one upload together.
MAX_UPLOAD_BYTES = 50_000_000
#: A file listing a corpus's documents (``--files-from``): a million paths of 50 bytes.
MAX_LISTING_BYTES = 50_000_000
#: A chunk file to import (``check --chunks``, the Import page).
MAX_CHUNK_FILE_BYTES = 20_000_000
#: A golden set (``check --golden``, the Import page).
MAX_GOLDEN_BYTES = 5_000_000
#: A baseline written by ``check --write-baseline``.
MAX_BASELINE_BYTES = 1_000_000
#: A tune space file (TOML): a few axes and named specs.
MAX_SPACE_BYTES = 100_000
#: A Hugging Face ``tokenizer.json`` (a unit ``hf:PATH``, or an upload).
MAX_TOKENIZER_BYTES = 64_000_000
#: A store folder copied so that its client writes only to the copy (``stores.private_copy``).
MAX_STORE_COPY_BYTES = 20_000_000_000
#: The widest embedding taken from a model or a server (the field's largest are 4,096).
MAX_EMBEDDING_DIMENSIONS = 8_192

# Converting a file (``corpus.box``): each conversion runs in a process of its own, killed when
# it goes over these.
#: Memory a conversion may take (beyond the converter's own, already loaded).
MAX_CONVERSION_MEMORY = 1_000_000_000
#: CPU seconds, and seconds on the clock, one conversion may take.
MAX_CONVERSION_CPU_SECONDS = 60
MAX_CONVERSION_SECONDS = 60.0
#: An office file or EPUB (a zip archive), read from its directory before anything is inflated:
#: members, one member's and all members' inflated bytes, and how much a member may inflate.
MAX_ZIP_MEMBERS = 10_000
MAX_ZIP_MEMBER_BYTES = 100_000_000
MAX_ZIP_BYTES = 400_000_000
MAX_ZIP_RATIO = 200
#: How deep an XML part of an office file may nest (a real document's are tens deep).
MAX_XML_DEPTH = 256

#: How deep JSON from outside may nest (the deepest record read is three levels deep): deeper
#: documents are refused before the parser recurses.
MAX_JSON_DEPTH = 64
#: Digits a JSON number from outside may have (offsets and counts have a dozen at most).
MAX_JSON_DIGITS = 40

_BLOCK = 1 << 20
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def human_size(size: int) -> str:
    """``999 bytes``, ``1.5 kB``, ``20 MB``, ``1 GB``: a limit or a size as the messages print it."""
    if size < 1000:
        return f"{size} bytes"
    value, unit = ((size / 1e9, "GB") if size >= 1_000_000_000 else (size / 1e6, "MB") if size >= 1_000_000
                   else (size / 1e3, "kB"))
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


def read_limited(path: str | os.PathLike, limit: int, what: str) -> bytes:
    """The bytes of ``path``, read block by block and never more than ``limit`` + 1 of them.

    ``InputTooLarge`` names ``what`` (``chunk file``, ``golden set``...) and the limit when the
    file is larger, however it arrives (a regular file, a pipe, a device); ``OSError`` as
    ``open`` raises it."""
    path = Path(path)
    if "\x00" in str(path):
        raise InputTooLarge(f"{what} {str(path)[:80]!r}: a path cannot contain a NUL character")
    chunks: list[bytes] = []
    size = 0
    with open(path, "rb") as stream:
        while size <= limit:
            block = stream.read(min(_BLOCK, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
    if size > limit:
        raise InputTooLarge(f"{what} {path.name} is larger than the {human_size(limit)} limit for a {what}")
    return b"".join(chunks)


def read_json(text: str | bytes | bytearray):
    """``json.loads`` for JSON from outside: nesting deeper than ``MAX_JSON_DEPTH``, numbers of
    more than ``MAX_JSON_DIGITS`` digits and numbers that are not finite (``NaN``, ``Infinity``,
    ``1e999``) are refused with ``InputRefused``; malformed JSON raises ``json.JSONDecodeError``.
    Both are ``ValueError``."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    check_json_depth(text)
    return JSON_DECODER.decode(text)


def check_json_depth(text: str) -> None:
    """``InputRefused`` when ``text`` nests deeper than ``MAX_JSON_DEPTH`` (before a parser recurses)."""
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:
        _check_depth(text)


def _check_depth(text: str) -> None:
    depth = 0
    for bracket in _JSON_BRACKET.finditer(_JSON_STRING.sub("", text) if '"' in text else text):
        if bracket.group() in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise InputRefused(f"JSON nested more than {MAX_JSON_DEPTH} levels deep")
        else:
            depth -= 1


def _whole(digits: str) -> int:
    if len(digits) > MAX_JSON_DIGITS + 1:
        raise InputRefused(f"a number of {len(digits.lstrip('-')):,} digits (at most {MAX_JSON_DIGITS})")
    return int(digits)


def _real(digits: str) -> float:
    if len(digits) > 2 * MAX_JSON_DIGITS:
        raise InputRefused(f"a number written with {len(digits):,} characters (at most {2 * MAX_JSON_DIGITS})")
    value = float(digits)
    if not math.isfinite(value):
        raise InputRefused(f"{digits[:20]} is out of range for a number")
    return value


def _constant(name: str):
    raise InputRefused(f"{name} is not a number to compute with")


#: A JSON decoder refusing the numbers ``read_json`` refuses (for ``raw_decode`` of one element
#: at a time; ``check_json_depth`` first).
JSON_DECODER = json.JSONDecoder(parse_int=_whole, parse_float=_real, parse_constant=_constant)
