"""Every size limit on what comes from outside, in one place, so that the app and the command line
refuse the same inputs, and a huge file, a pipe or ``/dev/zero`` is refused before it is parsed.

Sizes are decimal megabytes, as the messages print them.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputTooLarge

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
#: A Hugging Face ``tokenizer.json`` (a unit ``hf:PATH``, or an upload).
MAX_TOKENIZER_BYTES = 64_000_000

_BLOCK = 1 << 20


def human_size(size: int) -> str:
    """``999 bytes``, ``1.5 kB``, ``20 MB``: a limit or a size as the messages print it."""
    if size < 1000:
        return f"{size} bytes"
    value, unit = (size / 1e6, "MB") if size >= 1_000_000 else (size / 1e3, "kB")
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
