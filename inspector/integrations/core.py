"""One text, as a pipeline hands it over, split by a spec: offsets into that very text.

A pipeline's text is taken as it is (no front matter removed, no newlines changed), so every
chunk's ``start`` and ``end`` slice the caller's own string; the title an address stamp names
comes from the caller's metadata (``title``, else ``source`` or ``file_name``), else the first
heading. Version and date for the stamp come from the same metadata keys the front matter uses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import SpecError
from ..model import Chunk, Document
from ..spec import SplitterSpec, parse_spec
from ..split.splitters import split_document

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)


def source_document(text: str, metadata: Mapping | None = None, default_id: str = "text") -> Document:
    """``text`` as a ``Document`` whose offsets are the caller's, named from ``metadata``."""
    metadata = metadata or {}
    doc_id = str(metadata.get("source") or metadata.get("file_name") or metadata.get("file_path") or default_id)
    heading = _HEADING.search(text)
    title = str(metadata.get("title") or (heading[1] if heading else "") or doc_id.rsplit("/", 1)[-1])
    meta = tuple((str(k), str(v)) for k, v in metadata.items() if isinstance(v, (str, int, float)))
    return Document(doc_id, text, title=title, meta=meta)


def split_source(text: str, spec: SplitterSpec | str, metadata: Mapping | None = None,
                 mode: str = "markdown") -> tuple[Document, tuple[Chunk, ...]]:
    """The document ``text`` makes and its chunks under ``spec`` (a built-in splitter)."""
    spec = parse_spec(spec)
    if not spec.is_built_in:
        raise SpecError(f"{spec} cannot split new text here: drop-in splitters take a built-in splitter "
                        "without +context, e.g. structured:800 or heading:256t+address")
    document = source_document(text, metadata)
    return document, split_document(document, spec, mode=mode).chunks
