"""Converted files kept between runs: a corpus of 500 PDFs converts once.

One JSON file per conversion in the data folder's ``conversions/``, named by the file's SHA-256
and the converter's version (``convert.converter_version``), so a changed file or a new
converter converts again and nothing else does. A file refused (a zip bomb, a conversion over
its limits) is remembered the same way, under the limits it was refused with, in an entry of
its own that holds the reason and no text: it is never converted twice, and raising a limit
tries it again. Each entry carries a digest of its name and content, checked on read: an entry
damaged or moved from another name is dropped and the file converted again. Writes are atomic
(a temporary file renamed), so several processes may share the folder. The folder is a cache:
past ``MAX_BYTES`` the oldest entries are removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ..errors import UnreadableFile
from .box import BoxLimits
from .convert import Converted, converter_version, to_markdown

#: The data folder's subfolder of kept conversions.
CONVERSIONS = FOLDER_NAME = "conversions"
#: Bytes the kept conversions may take; past them the oldest quarter goes.
MAX_BYTES = 2_000_000_000
#: Writes between two looks at the folder's size.
_TRIM_EVERY = 200


class ConversionCache:
    """Conversions on disk, by content and converter version."""

    def __init__(self, folder: str | os.PathLike, converter: str = "markitdown") -> None:
        self.folder = Path(folder)
        self.converter = converter
        self.converted = 0
        """Files this cache had to convert (the others came from disk)."""
        self.dropped = 0
        """Entries found damaged and converted again."""
        self._version: str | None = None
        self._writes = 0

    def _path(self, digest: str, kind: str, refused: str = "") -> Path:
        if self._version is None:  # read once: each reading parses the distribution's metadata
            self._version = converter_version(self.converter)
        version = hashlib.blake2b(f"{kind}/{self._version}".encode(), digest_size=6).hexdigest()
        if refused:
            limits = hashlib.blake2b(refused.encode(), digest_size=4).hexdigest()
            return self.folder / digest[:2] / f"{digest}-{version}-{limits}.refused.json"
        return self.folder / digest[:2] / f"{digest}-{version}.json"

    def holds(self, raw: bytes, kind: str) -> bool:
        """Whether this content's conversion (or its refusal) is kept (so ``convert`` reads it)."""
        digest = hashlib.sha256(raw).hexdigest()
        return (self._path(digest, kind).is_file()
                or self._path(digest, kind, BoxLimits.default().key).is_file())

    def convert(self, raw: bytes, kind: str) -> Converted:
        """``convert.to_markdown``, answered from disk when this content was converted (or refused)
        before; ``UnreadableFile`` for a refusal, kept or new."""
        digest = hashlib.sha256(raw).hexdigest()
        limits = BoxLimits.default()
        done, refused = self._path(digest, kind), self._path(digest, kind, limits.key)
        kept = self._read(done) or self._read(refused)
        if kept is not None:
            if "refused" in kept:
                raise UnreadableFile(kept["refused"])
            return Converted(kept["text"], tuple(kept["pages"]), kept["kind"])
        try:
            converted = to_markdown(raw, kind, self.converter, limits)
        except UnreadableFile as exc:
            self._write(refused, {"refused": exc.reason})
            raise
        finally:
            self.converted += 1
        self._write(done, {"text": converted.text, "pages": list(converted.pages), "kind": converted.kind})
        return converted

    def _read(self, path: Path) -> dict | None:
        """A kept entry whose digest holds; a damaged one is removed (None either way)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and data.get("check") == _check(path.name, data):
            return data
        self.dropped += 1
        try:
            path.unlink()
        except OSError:
            pass
        return None

    def _write(self, path: Path, data: dict) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({**data, "check": _check(path.name, data)}, stream)
            os.replace(temporary, path)
        except OSError:
            return  # a read-only data folder: the conversion is used, just not kept
        self._writes += 1
        if self._writes % _TRIM_EVERY == 1:
            trim(self.folder)


def _check(name: str, data: dict) -> str:
    """The digest an entry carries: of its file name (so it cannot move to another file's) and
    of what it holds."""
    content = {key: value for key, value in data.items() if key != "check"}
    payload = json.dumps([name, content], ensure_ascii=False, sort_keys=True).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


def trim(folder: Path, most: int | None = None) -> None:
    """Past ``most`` bytes (``MAX_BYTES``) of entries in ``folder``, remove the oldest until a
    quarter is free."""
    most = MAX_BYTES if most is None else most
    entries = []
    try:
        for sub in os.scandir(folder):
            if sub.is_dir():
                for entry in os.scandir(sub.path):
                    info = entry.stat()
                    entries.append((info.st_mtime, info.st_size, entry.path))
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    if total <= most:
        return
    for _, size, path in sorted(entries):
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        if total <= most * 3 // 4:
            return
