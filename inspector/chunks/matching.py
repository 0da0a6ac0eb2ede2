"""Finding things exactly: a text's whitespace-insensitive twin with exact maps back, and a
producer's document name resolved to a corpus document (id, source path, path suffix).

Shared by the chunk importer and the golden-set loader, which both place text they were
given (never text they guessed) onto documents.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from pathlib import PurePosixPath

from ..model import Document


class NormalisedText:
    """A text with every whitespace run read as one space, and exact maps back to the original."""

    __slots__ = ("text", "norm", "norm_starts", "orig_starts")

    def __init__(self, text: str) -> None:
        self.text = text
        words = list(re.finditer(r"\S+", text))
        self.orig_starts = [m.start() for m in words]
        self.norm_starts: list[int] = []
        pos = 0
        for m in words:
            self.norm_starts.append(pos)
            pos += len(m.group()) + 1
        self.norm = " ".join(m.group() for m in words)

    def to_norm(self, offset: int) -> int:
        """The normalised position of the first word starting at or after ``offset``."""
        k = bisect_left(self.orig_starts, offset)
        return self.norm_starts[k] if k < len(self.norm_starts) else len(self.norm)

    def to_orig(self, pos: int) -> int:
        """The original offset of normalised position ``pos`` (a non-space character)."""
        k = bisect_right(self.norm_starts, pos) - 1
        return self.orig_starts[k] + (pos - self.norm_starts[k])

    def find(self, needle: str, start: int = 0) -> tuple[int, int] | None:
        """The first whitespace-insensitive match of ``needle`` beginning at or after original
        offset ``start``, as an original ``(start, end)``."""
        wanted = " ".join(needle.split())
        if not wanted:
            return None
        at = self.norm.find(wanted, self.to_norm(start))
        if at < 0:
            return None
        return self.to_orig(at), self.to_orig(at + len(wanted) - 1) + 1

    def find_all(self, needle: str, limit: int | None = None) -> list[tuple[int, int]]:
        """Every whitespace-insensitive match, in order (the first ``limit`` when given)."""
        out, pos = [], 0
        while (limit is None or len(out) < limit) and (found := self.find(needle, pos)) is not None:
            out.append(found)
            pos = found[0] + 1
        return out


class DocumentMatcher:
    """Resolves a producer's document name: exact id, exact source path, then path suffix."""

    def __init__(self, documents: list[Document]) -> None:
        self.by_id = {d.id: d for d in documents}
        self.by_source = {_clean_ref(d.source): d for d in documents if d.source}
        self._cache: dict[str, Document | str] = {}
        self._real: dict[str, Document] | None = None

    def _real_sources(self) -> dict[str, Document]:
        if self._real is None:
            self._real = {os.path.realpath(source): d for source, d in self.by_source.items()}
        return self._real

    def resolve(self, ref: str) -> Document | str:
        """The document, or a message saying why none (unknown or ambiguous)."""
        found = self._cache.get(ref)
        if found is None:
            found = self._cache[ref] = self._resolve(ref)
        return found

    def _resolve(self, ref: str) -> Document | str:
        if ref in self.by_id:
            return self.by_id[ref]
        clean = _clean_ref(ref)
        if clean in self.by_id:
            return self.by_id[clean]
        if clean in self.by_source:
            return self.by_source[clean]
        if clean.startswith("/") and os.path.isfile(clean):
            found = self._real_sources().get(os.path.realpath(clean))
            if found is not None:
                return found
            # A file of this machine the corpus does not hold: its name alone must not pick a
            # corpus document that happens to end the same way (a.md of another folder).
            return f"no document {ref!r} in the corpus: that file is outside it"
        # The producer's path ends with a corpus id (it ran on the files by absolute path).
        tails = [d for i, d in self.by_id.items() if clean.endswith("/" + i)]
        if tails:
            return max(tails, key=lambda d: len(d.id))
        # The producer named a shorter path that ends one corpus id only.
        heads = [d for i, d in self.by_id.items() if i.endswith("/" + clean)]
        if len(heads) == 1:
            return heads[0]
        if not heads:
            # A name without its extension (Chroma's corpus ids: ``finance`` for finance.md).
            heads = [d for i, d in self.by_id.items()
                     if (stem := _without_suffix(i)) != i and (stem == clean or stem.endswith("/" + clean))]
            if len(heads) == 1:
                return heads[0]
        if heads:
            names = ", ".join(sorted(d.id for d in heads)[:4])
            return f"document {ref!r} is ambiguous: it could be {names}"
        return f"no document {ref!r} in the corpus"


def _without_suffix(doc_id: str) -> str:
    path = PurePosixPath(doc_id)
    return str(path.with_suffix("")) if path.suffix else doc_id


def _clean_ref(ref: str) -> str:
    ref = ref.strip().replace("\\", "/")
    if ref.startswith("file://"):
        ref = ref[len("file://"):]
    while ref.startswith("./"):
        ref = ref[2:]
    return str(PurePosixPath(ref)) if ref else ref
