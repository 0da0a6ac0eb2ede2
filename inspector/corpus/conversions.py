"""Converted files kept between runs: a corpus of 500 PDFs converts once.

One JSON file per conversion in the data folder's ``conversions/``, named by the file's SHA-256
and the converter's version (``convert.converter_version``), so a changed file or a new
converter converts again and nothing else does. Writes are atomic (a temporary file renamed),
so several processes may share the folder; an entry that cannot be read is converted again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .convert import Converted, converter_version, to_markdown

#: The data folder's subfolder of kept conversions.
CONVERSIONS = FOLDER_NAME = "conversions"


class ConversionCache:
    """Conversions on disk, by content and converter version."""

    def __init__(self, folder: str | os.PathLike, converter: str = "markitdown") -> None:
        self.folder = Path(folder)
        self.converter = converter
        self.converted = 0
        """Files this cache had to convert (the others came from disk)."""
        self._version: str | None = None

    def _path(self, digest: str, kind: str) -> Path:
        if self._version is None:  # read once: each reading parses the distribution's metadata
            self._version = converter_version(self.converter)
        version = hashlib.blake2b(f"{kind}/{self._version}".encode(), digest_size=6).hexdigest()
        return self.folder / digest[:2] / f"{digest}-{version}.json"

    def holds(self, raw: bytes, kind: str) -> bool:
        """Whether this content's conversion is kept (so ``convert`` reads it)."""
        return self._path(hashlib.sha256(raw).hexdigest(), kind).is_file()

    def convert(self, raw: bytes, kind: str) -> Converted:
        """``convert.to_markdown``, answered from disk when this content was converted before."""
        path = self._path(hashlib.sha256(raw).hexdigest(), kind)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Converted(data["text"], tuple(data["pages"]), data["kind"])
        except (OSError, ValueError, KeyError, TypeError):
            pass  # not converted yet, or an entry damaged: convert again
        converted = to_markdown(raw, kind, self.converter)
        self.converted += 1
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump({"text": converted.text, "pages": list(converted.pages), "kind": converted.kind}, stream)
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only data folder: the conversion is used, just not kept
        return converted
