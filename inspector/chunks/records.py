"""Reading chunk files made elsewhere: JSONL, JSON or CSV records, each with its line number.

Several producers are understood without configuration: Chunk Inspector's own export,
LangChain ``Document`` dumps (``page_content`` + ``metadata.source`` / ``metadata.start_index``,
plain ``model_dump()`` or the ``dumpd`` constructor form), Haystack ``Document.to_dict()``
(``content`` + ``file_path`` / ``split_idx_start``, flat or under ``meta``), Chonkie chunks
(``text``, ``start_index``, ``end_index``), and any flat record naming a document, its text and
optionally its offsets. A record that cannot be read becomes a ``RecordProblem`` carrying its
line number; reading always goes on with the next record.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import ImportChunksError, InputRefused, InputTooLarge
from ..limits import JSON_DECODER, human_size, read_json, read_limited

#: Field names tried in order, first on the record, then on its ``metadata`` (Haystack's ``meta``).
TEXT_FIELDS = ("text", "page_content", "content", "chunk", "chunk_text")
DOC_FIELDS = ("doc_id", "document_id", "document", "source", "path", "file_path", "file", "filename")
START_FIELDS = ("start", "start_index", "start_char_idx", "split_idx_start", "start_char", "char_start", "begin")
END_FIELDS = ("end", "end_index", "end_char_idx", "end_char", "char_end")
ID_FIELDS = ("chunk_id", "id")
FORMATS = ("jsonl", "json", "csv")

_SUFFIX_FORMAT = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}
_NEXT_OBJECT = re.compile(r"\n[ \t]*\{")


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """One chunk as a producer described it, before it is placed in a document."""

    line: int
    """Line of the file where the record starts (from 1)."""

    chunk_id: str
    """The producer's chunk id, or ``"line N"`` when it gave none."""

    doc_ref: str | None
    """How the producer named the document (an id, a path, a URL-ish source), if at all."""

    text: str | None
    """The chunk's text, if given."""

    start: Any = None
    """The given start offset (anything the producer wrote; checked later)."""

    end: Any = None
    """The given end offset (anything the producer wrote; checked later)."""

    prefix: str = ""
    """Text prepended for embedding (Chunk Inspector's own exports carry it)."""

    heading_path: tuple[str, ...] | None = None
    """Heading path given by the producer, when it is a list of strings."""


@dataclass(frozen=True, slots=True)
class RecordProblem:
    """A record that could not be read at all."""

    line: int
    """Line number (from 1) where the bad record starts."""

    message: str
    """What is wrong, in words."""


def detect_format(name: str, text: str) -> str:
    """``jsonl``, ``json`` or ``csv`` from the file name, else from the content."""
    lowered = name.lower()
    for suffix, fmt in _SUFFIX_FORMAT.items():
        if lowered.endswith(suffix):
            return fmt
    head = text.lstrip()
    if head.startswith("["):
        return "json"
    if head.startswith("{"):
        first = head.split("\n", 1)[0].strip()
        try:
            json.loads(first)
            return "jsonl"
        except ValueError:
            return "json"
    return "csv"


def read_records(text: str, fmt: str) -> tuple[list[ChunkRecord], list[RecordProblem], dict]:
    """Every readable record of ``text`` in file order, the unreadable ones, and file-level
    fields (a top-level object's ``doc_id``/``source`` applies to all of its chunks)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown chunk file format {fmt!r}; use one of {', '.join(FORMATS)}")
    raw: Iterable[tuple[int, Any]] = []
    problems: list[RecordProblem] = []
    shared: dict = {}
    if fmt == "jsonl":
        raw = _jsonl_items(text, problems)  # read line by line as the records are made
    elif fmt == "json":
        raw, problems, shared = _json_items(text)
    else:
        raw, problems = _csv_rows(text)
    records = []
    for number, item in raw:
        record = to_record(number, item, shared)
        if isinstance(record, RecordProblem):
            problems.append(record)
        else:
            records.append(record)
    problems.sort(key=lambda p: p.line)
    return records, problems, shared


def _reason(exc: ValueError) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)


def _jsonl_items(text: str, problems: list[RecordProblem]) -> Iterator[tuple[int, Any]]:
    """Each JSON Lines value with its line number, one at a time; unreadable lines become
    ``problems``."""
    start, number = 0, 0
    while start <= len(text):  # one line at a time, never a list of them all
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        line, start, number = text[start:end], end + 1, number + 1
        if line.strip():
            try:
                yield number, read_json(line)
            except ValueError as exc:
                problems.append(RecordProblem(number, f"not valid JSON ({_reason(exc)})"))
            except RecursionError:
                problems.append(RecordProblem(number, "the JSON is nested too deeply to read"))


class _Lines:
    """Line numbers of increasing offsets, counted incrementally (linear over a whole file)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            self.pos, self.line = 0, 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


def _json_items(text: str) -> tuple[list[tuple[int, Any]], list[RecordProblem], dict]:
    """Elements of a JSON array (or of an object's ``chunks`` array) decoded one at a time,
    so one malformed element costs only itself: reading resumes at the next line opening
    an object."""
    decoder = JSON_DECODER
    error: json.JSONDecodeError | None = None
    try:
        whole = read_json(text)
    except json.JSONDecodeError as exc:
        whole, error = None, exc
    except InputRefused as exc:
        if "nested" in str(exc):
            return [], [RecordProblem(1, f"the JSON is nested too deeply to read ({exc})")], {}
        whole, error = None, json.JSONDecodeError(str(exc), text, 0)  # a bad number: read element by element
    if isinstance(whole, dict):
        items = whole.get("chunks")
        if not isinstance(items, list):
            return [(1, whole)], [], {}
        shared = {k: whole[k] for k in DOC_FIELDS if isinstance(whole.get(k), str)}
        return _numbered(text, items), [], shared
    if isinstance(whole, list):
        return _numbered(text, whole), [], {}
    if error is None:
        return [], [RecordProblem(1, "the JSON file holds neither a list of chunks nor an object")], {}
    # Malformed somewhere: walk the array element by element.
    lines = _Lines(text)
    out: list[tuple[int, Any]] = []
    problems: list[RecordProblem] = []
    pos = len(text) - len(text.lstrip())
    if text[pos:pos + 1] != "[":
        return [], [RecordProblem(error.lineno, f"not valid JSON ({error.msg})")], {}
    pos += 1
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, stop = decoder.raw_decode(text, pos)
            out.append((lines.at(pos), item))
            pos = stop
        except RecursionError:
            problems.append(RecordProblem(lines.at(pos), "the JSON is nested too deeply to read"))
            break
        except InputRefused as exc:
            problems.append(RecordProblem(lines.at(pos), str(exc)))
            found = _NEXT_OBJECT.search(text, pos + 1)
            if not found:
                break
            pos = found.end() - 1
        except json.JSONDecodeError as exc:
            problems.append(RecordProblem(lines.at(exc.pos), f"not valid JSON ({exc.msg})"))
            found = _NEXT_OBJECT.search(text, exc.pos)
            if not found:
                break
            pos = found.end() - 1
    return out, problems, {}


def _numbered(text: str, items: list) -> list[tuple[int, Any]]:
    """Pair each element with the line it starts on (found by decoding in order)."""
    decoder = json.JSONDecoder()
    stripped = text.lstrip()
    if not stripped.startswith("["):
        start = text.find("[", max(0, text.find('"chunks"')))
    else:
        start = len(text) - len(stripped)
    pos = start + 1
    lines = _Lines(text)
    out = []
    for item in items:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        line = lines.at(pos) if 0 < pos < len(text) else 1
        try:
            _, pos = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, ValueError):
            line = 1  # layout unusual; the record is still read, the line is approximate
        out.append((line, item))
    return out


def _csv_rows(text: str) -> tuple[list[tuple[int, Any]], list[RecordProblem]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return [], []
    except csv.Error as exc:
        return [], [RecordProblem(1, f"unreadable CSV header ({exc})")]
    names = [h.strip().lstrip("\ufeff") for h in header]
    out, problems = [], []
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problems.append(RecordProblem(line, f"unreadable CSV row ({exc})"))
            line = reader.line_num + 1
            continue
        if any(cell.strip() for cell in row):
            if len(row) != len(names):
                problems.append(RecordProblem(line, f"{len(row)} cells where the header has {len(names)}"))
            else:
                out.append((line, dict(zip(names, row))))
        line = reader.line_num + 1
    return out, problems


def _first(mapping: dict, names: tuple[str, ...]) -> Any:
    for name in names:
        value = mapping.get(name)
        if value is not None and value != "":
            return value
    return None


def to_record(line: int, item: Any, shared: dict | None = None) -> ChunkRecord | RecordProblem:
    """Normalise one decoded record; ``shared`` holds file-level fields."""
    if not isinstance(item, dict):
        return RecordProblem(line, f"expected an object, found {type(item).__name__}")
    if isinstance(item.get("kwargs"), dict) and "page_content" in item["kwargs"]:
        item = item["kwargs"]  # LangChain's dumpd() constructor form
    meta = next((item[k] for k in ("metadata", "meta") if isinstance(item.get(k), dict)), {})
    text = _first(item, TEXT_FIELDS)
    if text is not None and not isinstance(text, str):
        return RecordProblem(line, f"the chunk text is a {type(text).__name__}, not a string")
    doc_ref = _first(item, DOC_FIELDS)
    if doc_ref is None:
        doc_ref = _first(meta, DOC_FIELDS)
    if doc_ref is None and shared:
        doc_ref = _first(shared, DOC_FIELDS)
    if doc_ref is not None and not isinstance(doc_ref, str):
        return RecordProblem(line, f"the document name is a {type(doc_ref).__name__}, not a string")
    start = _first(item, START_FIELDS)
    if start is None:
        start = _first(meta, START_FIELDS)
    end = _first(item, END_FIELDS)
    if end is None:
        end = _first(meta, END_FIELDS)
    chunk_id = _first(item, ID_FIELDS)
    if chunk_id is None:
        chunk_id = _first(meta, ID_FIELDS)
    prefix = item.get("prefix") if isinstance(item.get("prefix"), str) else ""
    path = item.get("heading_path", meta.get("heading_path"))
    heading_path = tuple(path) if isinstance(path, list) and all(isinstance(p, str) for p in path) else None
    if isinstance(path, str) and path.strip():
        # The article's chunk_markdown() form: "A > B" as a string, prepended to the text.
        heading_path = tuple(part.strip() for part in path.split(" > "))
        if not prefix and isinstance(text, str) and text.startswith(path + "\n"):
            prefix = path + "\n"
    if text is None and start is None:
        return RecordProblem(line, "no chunk text and no offsets (expected a 'text' or 'page_content' field)")
    return ChunkRecord(line, str(chunk_id) if chunk_id is not None else f"line {line}", doc_ref, text,
                       start, end, prefix, heading_path)


def as_offset(value: Any) -> int | None:
    """An offset as an int (CSV gives strings), or None when it is not a whole number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """Non-blank lines with their numbers (for JSONL-like inputs such as golden sets)."""
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield number, line


def read_source(source: str | Path | bytes, name: str | None, what: str, limit: int) -> tuple[str, str]:
    """The text of a file given as a path or as its bytes, and a name to report it by.

    ``what`` names the kind of file in messages (``chunk file``, ``golden set``); a file over
    ``limit`` bytes, unreadable or non-UTF-8 input raises ``ImportChunksError`` with the
    reason. A path is read no further than the limit (a pipe or a device may never end).
    """
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
        if len(data) > limit:
            raise ImportChunksError(f"{name or what} is {human_size(len(data))}, larger than the {human_size(limit)} "
                                    f"limit for a {what}")
    else:
        path = Path(source)
        try:
            data = read_limited(path, limit, what)
        except InputTooLarge as exc:
            raise ImportChunksError(str(exc)) from None
        except OSError as exc:
            raise ImportChunksError(f"cannot read {what} {path.name}: {exc.strerror or exc}") from None
        name = name or path.name
    name = name or what.replace(" ", "-")
    try:
        return data.decode("utf-8-sig"), name
    except UnicodeDecodeError as exc:
        raise ImportChunksError(f"{name} is not UTF-8 text (bad byte at offset {exc.start})") from None
