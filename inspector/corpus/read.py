"""Reading one corpus file: from a path or bytes to a ``Document``, or the reason it cannot be one.

Everything here is about a single file, whichever way it arrived (folder walk, chosen file,
upload): the size cap and the one read, refusing binary and non-UTF-8 content, newline
normalisation, front matter and its fields, the title, and handing PDF, DOCX, PPTX, XLSX,
HTML and EPUB files to ``convert``. Folder walks and building the
``Corpus`` live in ``corpus``, whose docstring describes the two reading modes. A problem
raises ``UnreadableFile`` with its reason in words, which the caller turns into a skip.
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import PurePosixPath

from ..errors import SpecError, UnreadableFile
from ..limits import MAX_DOCUMENT_BYTES, human_size
from ..model import MODES, Document
from .convert import kind_of, to_markdown

Meta = tuple[tuple[str, str], ...]

# The reference script's pattern, verbatim. Without re.M "^" only matches at offset 0, so
# re.sub can replace at most this one match: ``match`` + slicing is the same operation.
_SEED_FRONT_MATTER = re.compile(r"^---\n.*?\n---\n", flags=re.S)
# Markdown mode: the opening fence is the first line; the body (possibly empty) ends at the
# first line that is a closing fence. Lazy matching finds the first closer, not the last.
_YAML_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<body>.*?\n)??(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(?P<body>.*?\n)??\+\+\+[ \t]*(?:\n|\Z)", re.S)
_YAML_PAIR = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*\Z")
_TOML_PAIR = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*=[ \t]*(.*?)[ \t]*\Z")
_ATX_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*\Z")
_FENCE = re.compile(r" {0,3}(```|~~~)")


def read_text(raw: bytes, mode: str = "markdown") -> tuple[str, Meta]:
    """Decode one file's bytes into (text, front-matter fields) the way ``mode`` reads files.

    Raises ``UnreadableFile`` for binary or non-UTF-8 content.
    """
    text, meta, _ = read_file_text(raw, mode)
    return text, meta


def read_file_text(raw: bytes, mode: str = "markdown", keep_front_matter: bool = False) -> tuple[str, Meta, int]:
    """``read_text``, and where the text starts in the file's own text (after a byte-order
    mark and front matter were removed): an offset counted in the file is this much larger.
    With ``keep_front_matter`` the front matter stays in the text (its fields are still read)."""
    check_mode(mode)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise UnreadableFile("not UTF-8 text (UTF-16 byte-order mark)")
    if b"\0" in raw:
        raise UnreadableFile("binary file (contains NUL bytes)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(
            f"not UTF-8 text (invalid byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None
    skipped = 0
    if mode != "seed" and text.startswith("\ufeff"):
        text, skipped = text[1:], 1
    # open()'s universal newlines, as the seed mode needs, and the markdown mode's rule too.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if mode == "seed":
        match = _SEED_FRONT_MATTER.match(text)
        if not match:
            return text, (), skipped
        return text[match.end():], _yaml_meta(match.group()[4:-4]), skipped + match.end()
    for pattern, fields in ((_YAML_FRONT_MATTER, _yaml_meta), (_TOML_FRONT_MATTER, _toml_meta)):
        match = pattern.match(text)
        if match:
            meta = fields(match.group("body") or "")
            return (text, meta, skipped) if keep_front_matter else (text[match.end():], meta, skipped + match.end())
    return text, (), skipped


def read_bytes(path: str, limit: int) -> bytes:
    """The one read of a file: at most ``limit`` bytes (a separate function so tests can fail it)."""
    with open(path, "rb") as handle:
        return handle.read(limit)


def read_file(path: str, max_bytes: int) -> bytes:
    """A file's bytes, or ``UnreadableFile`` saying why not."""
    if "\x00" in path:
        raise UnreadableFile("not a valid path (it contains a NUL character)")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UnreadableFile("broken symbolic link" if os.path.islink(path) else "unreadable: file not found") from None
    except OSError as exc:
        raise UnreadableFile(f"unreadable: {os_reason(exc)}") from None
    # Checked before opening: opening a FIFO would block forever.
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile("not a regular file")
    if info.st_size > max_bytes:
        raise UnreadableFile(too_large(info.st_size, max_bytes))
    try:
        raw = read_bytes(path, max_bytes + 1)  # +1: notices a file that grew since stat
    except OSError as exc:
        raise UnreadableFile(f"unreadable: {os_reason(exc)}") from None
    if len(raw) > max_bytes:
        raise UnreadableFile(too_large(len(raw), max_bytes))
    return raw


def read_document(doc_id: str, raw: bytes, mode: str, source: str, conversions=None,
                  keep_front_matter: bool = False, converter: str = "markitdown") -> Document:
    """One file's bytes as a ``Document`` (``UnreadableFile`` when they cannot be one). In the
    markdown mode a PDF, DOCX, PPTX, XLSX, HTML or EPUB file is converted to markdown first
    (through ``conversions``, a ``ConversionCache``, when given)."""
    kind = kind_of(doc_id) if mode != "seed" else None
    if kind is None:
        text, meta, start = read_file_text(raw, mode, keep_front_matter)
        return Document(id=doc_id, text=text, title=_title(text, meta, doc_id), source=source, meta=meta,
                        start_in_file=start)
    if conversions is not None:
        converted = conversions.convert(raw, kind)
    else:
        converted = to_markdown(raw, kind, converter)
    size = len(converted.text.encode("utf-8", "surrogatepass"))
    if size > MAX_DOCUMENT_BYTES:
        raise UnreadableFile(f"its converted text is {too_large(size, MAX_DOCUMENT_BYTES)}")
    return Document(id=doc_id, text=converted.text, title=_title(converted.text, (), doc_id), source=source,
                    pages=converted.pages, source_format=converted.kind)


def _title(text: str, meta: Meta, doc_id: str) -> str:
    """Front-matter title, else the first level-1 ATX heading, else the first heading, else the stem."""
    for key, value in meta:
        if key.lower() == "title" and value:
            return value
    first = ""
    in_fence = ""
    for line in text.split("\n"):
        fence = _FENCE.match(line)
        if fence:
            # A "# comment" inside a shell code block is not a heading.
            if not in_fence:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = ""
            continue
        if in_fence:
            continue
        heading = _ATX_HEADING.match(line)
        if heading:
            if len(heading.group(1)) == 1:
                return heading.group(2)
            first = first or heading.group(2)
    return first or PurePosixPath(doc_id).stem or doc_id


def _yaml_meta(body: str) -> Meta:
    """Top-level ``key: value`` scalars; nested maps, lists and block scalars are ignored."""
    pairs: dict[str, str] = {}
    for line in body.split("\n"):
        match = _YAML_PAIR.match(line)
        if not match or not match.group(2):
            continue
        value = match.group(2)
        if value[0] in "[{|>&*!":
            continue  # flow collections, block scalars, anchors, aliases, tags: not scalars
        if value[0] not in "\"'":
            value = value.split(" #", 1)[0].rstrip()  # YAML comment
        pairs.setdefault(match.group(1), _unquote(value))
    return tuple(pairs.items())


def _toml_meta(body: str) -> Meta:
    """Top-level ``key = value`` scalars, up to the first ``[table]``."""
    pairs: dict[str, str] = {}
    for line in body.split("\n"):
        if line.lstrip().startswith("["):
            break
        match = _TOML_PAIR.match(line)
        if match and match.group(2) and match.group(2)[0] not in "[{":
            value = match.group(2)
            if value[0] not in "\"'":
                value = value.split(" #", 1)[0].rstrip()
            pairs.setdefault(match.group(1), _unquote(value))
    return tuple(pairs.items())


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def too_large(size: int, limit: int) -> str:
    """The reason given for a file of ``size`` bytes over the ``limit``."""
    return f"larger than the {human_size(limit)} limit ({human_size(size)})"


def os_reason(exc: OSError) -> str:
    """What went wrong with a file, in words, without the path."""
    if isinstance(exc, PermissionError):
        return "permission denied"
    if exc.strerror:
        return exc.strerror[0].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def check_mode(mode: str) -> None:
    """``SpecError`` unless ``mode`` is a reading mode."""
    if mode not in MODES:
        raise SpecError(f"unknown reading mode {mode!r}; choose one of {', '.join(MODES)}")
