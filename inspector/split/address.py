"""Address stamps: a chunk's document named before it (title › heading path · version · updated).

The Orphan Test's first question is whether a reader can tell the document, the product and
the version from the chunk alone; the stamp answers it deterministically from what the corpus
already knows: the title (front matter, first heading or file name), the heading path at the
chunk's start, and the front matter's version and date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Document
from ..spec import DEFAULT_STAMP

#: Front-matter keys read as the document's date, first found wins.
DATE_KEYS: tuple[str, ...] = ("updated", "last_modified", "last-modified", "lastmod", "modified", "date")
VERSION_KEYS: tuple[str, ...] = ("version", "edition")
PATH_SEPARATOR = " > "
_TEMPLATE_PART = re.compile(r"\[([^\]]*)\]|([^\[]+)")
_FIELD = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Address:
    """What a stamp says about one document, besides the heading path."""

    title: str = ""
    version: str = ""
    updated: str = ""

    @classmethod
    def of(cls, document: Document) -> "Address":
        """The document's title and, from its front matter, version and date."""
        meta = {key.lower(): " ".join(value.split()) for key, value in document.meta}
        return cls(" ".join(document.title.split()), next((meta[k] for k in VERSION_KEYS if meta.get(k)), ""),
                   next((meta[k] for k in DATE_KEYS if meta.get(k)), ""))

    def stamp(self, path: tuple[str, ...] | list[str], template: str = DEFAULT_STAMP) -> str:
        """The stamp for a chunk under ``path`` (outermost heading first); a first heading
        that only repeats the title (or begins it) is left out of the path."""
        path = list(path)
        title = self.title.casefold()
        if path and title and title.startswith(" ".join(path[0].split()).casefold()):
            path = path[1:]
        values = {"title": self.title, "path": PATH_SEPARATOR.join(path), "version": self.version,
                  "updated": self.updated}
        parts = []
        for optional, plain in _TEMPLATE_PART.findall(template):
            part = optional or plain
            fields = _FIELD.findall(part)
            if optional and not all(values.get(f) for f in fields):
                continue
            parts.append(_FIELD.sub(lambda m: values.get(m[1], ""), part))
        # Without a title (a bare text) the default's path would open with its separator.
        return " ".join("".join(parts).split()).lstrip(">· ")

    def fitted(self, path: tuple[str, ...], template: str, fits) -> str:
        """The fullest stamp ``fits`` accepts: outer headings go first, then the path, then
        everything but the title; empty when not even the title fits."""
        path = tuple(path)
        for k in range(len(path) + 1):
            stamp = self.stamp(path[k:], template)
            if fits(stamp):
                return stamp
        title_only = Address(self.title).stamp((), template)
        return title_only if title_only and fits(title_only) else ""
