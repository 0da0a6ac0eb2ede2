"""What a stored chunk says about itself: its text, its document and its offsets, read by the
metadata conventions of the libraries that filled the store.

- LangChain: the text as ``page_content``, ``metadata.source`` (a path) and ``metadata.start_index``
  when its splitter ran with ``add_start_index=True``.
- LlamaIndex: ``file_path`` (or ``file_name``, ``doc_id``, ``ref_doc_id``), ``start_char_idx`` and
  ``end_char_idx``, often inside the node kept whole as JSON in ``_node_content``.
- Haystack: ``content`` and ``meta`` with ``file_path`` and ``split_idx_start``.
- Chonkie: ``start_index`` and ``end_index``.

``StoreFields`` (``--store-field doc=…,start=…,end=…,text=…``) names the fields when a pipeline
wrote its own. A stored chunk becomes a ``ChunkRecord`` which the import placement puts on the
corpus; the record's line is the chunk's place in the store's reading order, from 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..chunks.records import ChunkRecord, RecordProblem
from ..errors import InputRefused, StoreAddressError
from ..limits import read_json

#: The conventions recognised, in the order they are tried.
CONVENTIONS: tuple[str, ...] = ("llamaindex", "haystack", "chonkie", "langchain", "fields", "other")
#: Where a convention keeps a chunk's document, start and end (first found wins).
_DOC = ("source", "file_path", "path", "doc_id", "document_id", "file_name", "filename", "ref_doc_id", "source_id")
_START = ("start_index", "start_char_idx", "split_idx_start", "start", "start_char")
_END = ("end_index", "end_char_idx", "end", "end_char")
#: Where a row keeps its text and its metadata, when a store gives a row rather than both apart.
TEXT_KEYS = ("page_content", "text", "content", "document", "chunk", "chunk_text")
METADATA_KEYS = ("metadata", "meta", "cmetadata", "metadata_", "$meta")
_KEY = re.compile(r"^[A-Za-z0-9_$][A-Za-z0-9_.$-]{0,99}$")
#: The longest ``_node_content`` read (the whole node as JSON; a bigger one is left unread).
MAX_NODE_JSON = 1_000_000


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """One chunk as the store holds it (never its vector)."""

    id: str
    """The store's id for it."""

    text: str | None
    """The stored text, exactly as stored."""

    metadata: dict
    """Everything else the store keeps with it."""


@dataclass(frozen=True, slots=True)
class StoreFields:
    """Metadata keys that override the conventions: ``doc=KEY,start=KEY,end=KEY,text=KEY``."""

    doc: str = ""
    start: str = ""
    end: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise StoreAddressError(problem)

    def problem(self) -> str | None:
        for name in ("doc", "start", "end", "text"):
            value = getattr(self, name)
            if value and not _KEY.match(value):
                return f"--store-field {name}= names a metadata key, not {value[:60]!r}"
        return None

    def __bool__(self) -> bool:
        return bool(self.doc or self.start or self.end or self.text)

    def __str__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in (("doc", self.doc), ("start", self.start), ("end", self.end),
                                                 ("text", self.text)) if v)

    @classmethod
    def parse(cls, text: str) -> "StoreFields":
        found: dict[str, str] = {}
        for part in (p.strip() for p in (text or "").split(",") if p.strip()):
            name, equals, key = part.partition("=")
            name = name.strip()
            if not equals or name not in ("doc", "start", "end", "text"):
                raise StoreAddressError("--store-field takes doc=KEY, start=KEY, end=KEY and text=KEY, "
                                        f"not {part[:60]!r}")
            if name in found:
                raise StoreAddressError(f"--store-field names {name}= twice")
            found[name] = key.strip()
        return cls(**found)


def split_row(row: dict, skip: tuple[str, ...] = ()) -> tuple[str | None, dict]:
    """A row or payload as ``(text, metadata)``: the text from the first of ``TEXT_KEYS``, the
    metadata from a nested metadata field (a dict or JSON text) merged under the row's other
    scalar fields (``skip`` left out: ids, vectors)."""
    text = next((row[k] for k in TEXT_KEYS if isinstance(row.get(k), str)), None)
    metadata: dict = {}
    for key in METADATA_KEYS:
        value = row.get(key)
        if isinstance(value, str) and value.lstrip().startswith("{"):
            value = json_object(value)
        if isinstance(value, dict):
            metadata = {**value, **metadata}
    for key, value in row.items():
        if key in skip or key in METADATA_KEYS or (text is not None and row.get(key) is text):
            continue
        if value is None or isinstance(value, (str, int, float, bool)):
            metadata.setdefault(key, value)
    return text, metadata


def json_object(value: Any) -> dict:
    """A JSON object from outside (text, bytes or already a dict), read within ``limits.read_json``'s
    bounds; ``{}`` when it is none or too large."""
    if isinstance(value, dict):
        return value
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str) or len(value) > MAX_NODE_JSON:
        return {}
    try:
        value = read_json(value)
    except (ValueError, InputRefused, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def record_of(chunk: StoredChunk, line: int, fields: StoreFields) -> tuple[ChunkRecord | RecordProblem, str]:
    """The chunk as an import record, and the convention it was read by."""
    meta = dict(chunk.metadata)
    node = json_object(meta.get("_node_content"))
    if node:
        inner = node.get("metadata") if isinstance(node.get("metadata"), dict) else {}
        meta = {**inner, **{k: v for k, v in node.items() if k in ("start_char_idx", "end_char_idx")}, **meta}
    text = chunk.text
    if fields.text:
        text = meta.get(fields.text)
    elif not text and isinstance(node.get("text"), str) and node["text"]:
        text = node["text"]
    if text is not None and not isinstance(text, str):
        return RecordProblem(line, f"the stored text is a {type(text).__name__}, not a string"), "other"
    convention = "fields" if fields else _convention(meta, node)
    doc = meta.get(fields.doc) if fields.doc else _first(meta, _DOC)
    start = meta.get(fields.start) if fields.start else _first(meta, _START)
    end = meta.get(fields.end) if fields.end else _first(meta, _END)
    if fields.start and start is None:
        return RecordProblem(line, f"no {fields.start!r} in the chunk's metadata (--store-field start=)"), convention
    if doc is not None and not isinstance(doc, str):
        doc = str(doc) if isinstance(doc, int) and not isinstance(doc, bool) else None
    if text is None and start is None:
        return RecordProblem(line, "the stored chunk has no text and no offsets"), convention
    return ChunkRecord(line, chunk.id or f"line {line}", doc, text, start, end), convention


def _convention(meta: dict, node: dict) -> str:
    if node or "start_char_idx" in meta or "ref_doc_id" in meta:
        return "llamaindex"
    if "split_idx_start" in meta or "split_id" in meta:
        return "haystack"
    if "end_index" in meta and "start_index" in meta:
        return "chonkie"
    if "source" in meta or "start_index" in meta:
        return "langchain"
    return "other"


def _first(meta: dict, names: tuple[str, ...]) -> Any:
    for name in names:
        value = meta.get(name)
        if value is not None and value != "":
            return value
    return None
