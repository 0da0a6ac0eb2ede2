"""Reading a corpus: a folder, a list of files or browser uploads, into ``Document`` values.

Two reading modes share one decoding path (``read.read_text``; that module reads and
checks one file, ``listing`` finds the files, this one builds the ``Corpus``):

``seed``
    Exactly what the article's reference script does: every non-hidden ``*.md`` file found
    by ``glob("**/*.md", recursive=True)``, read as ``open(p, encoding="utf-8").read()``
    (universal newlines, a BOM kept as ``"\\ufeff"``), then
    ``re.sub(r"^---\\n.*?\\n---\\n", "", text, flags=re.S)``. Nothing else changes the text,
    so offsets and counts match the article's numbers.
``markdown``
    What a careful reader does: ``.md``, ``.markdown`` and ``.txt`` files, a leading BOM
    dropped, all newlines made ``"\\n"``, YAML (``---``) or TOML (``+++``) front matter removed
    from the very start, its scalar fields kept in ``Document.meta``; and PDF, DOCX, PPTX,
    XLSX, HTML and EPUB files converted to markdown (``convert``), pages kept, each conversion
    kept in ``conversions`` (a folder or a ``ConversionCache``) when one is given.

A bad file never stops a load; it is listed in ``Corpus.skipped`` with a reason in words.
Deliberate differences from the reference script, all of which only affect files the
script would crash on or should never read: skipped files (non-UTF-8, NUL bytes, over the
size cap, unreadable), symbolic links leaving the root, and symbolic-link loops.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import SpecError, UnreadableFile
from ..limits import MAX_CONVERTED_BYTES, MAX_DOCUMENT_BYTES
from ..model import Document
from .conversions import ConversionCache
from .convert import check_converter, kind_of
from .listing import Listing, SkippedFile, list_corpus, list_files
from .read import check_mode, read_document, read_file, too_large


@dataclass(frozen=True, slots=True)
class Corpus:
    """The documents of one load, in id order, plus the files that could not be read."""

    root: str
    """The folder ids are relative to (absolute); empty for uploads."""

    documents: tuple[Document, ...]
    """The loaded documents, sorted by id (for folders: the reference script's order)."""

    skipped: tuple[SkippedFile, ...] = ()
    """Files found but not loaded, sorted by path."""

    mode: str = "markdown"
    """The reading mode: ``"markdown"`` or ``"seed"``."""

    _index: dict[str, Document] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Id lookup, built once so ``by_id`` stays O(1) for callers that look up per chunk."""

    _fingerprint: str = field(default="", init=False, repr=False, compare=False)
    """Cache of ``fingerprint``; hashing every text again on each access would be wasteful."""

    def __post_init__(self) -> None:
        # Frozen, so the cache is written with object.__setattr__; first id wins on clashes.
        object.__setattr__(self, "_index", {d.id: d for d in reversed(self.documents)})

    def by_id(self, doc_id: str) -> Document:
        """The document with this id; ``KeyError`` when there is none."""
        try:
            return self._index[doc_id]
        except KeyError:
            raise KeyError(f"no document with id {doc_id!r} in this corpus") from None

    def __len__(self) -> int:
        return len(self.documents)

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents)

    @property
    def characters(self) -> int:
        """Total length of all texts, in characters."""
        return sum(len(d.text) for d in self.documents)

    @property
    def fingerprint(self) -> str:
        """A stable hex digest of the ids and texts (in order), for cache keys."""
        if not self._fingerprint:
            digest = Fingerprint()
            for doc in self.documents:
                digest.add(doc)
            object.__setattr__(self, "_fingerprint", digest.hexdigest())
        return self._fingerprint


class Fingerprint:
    """``Corpus.fingerprint`` made as the documents come, one at a time, in corpus order."""

    def __init__(self) -> None:
        self._digest = hashlib.blake2b(digest_size=16)

    def add(self, document: Document) -> None:
        # Length prefixes keep ("ab", "c") and ("a", "bc") apart.
        for part in (document.id.encode("utf-8"), document.text.encode("utf-8", "surrogatepass")):
            self._digest.update(len(part).to_bytes(8, "little"))
            self._digest.update(part)

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


def load_corpus(path: str | os.PathLike[str], *, mode: str = "markdown", max_bytes: int = MAX_DOCUMENT_BYTES,
                conversions=None, progress=None, keep_front_matter: bool = False,
                converter: str = "markitdown") -> Corpus:
    """Load a folder (recursively) or a single file (root: its folder, id: its name).

    ``conversions`` (a folder or a ``ConversionCache``) keeps converted files between runs;
    ``progress(done, total)`` is called as files that need converting are read;
    ``keep_front_matter`` leaves front matter in the text (as a pipeline reading raw files sees it);
    ``converter`` is ``markitdown`` (the default) or ``docling`` (when installed)."""
    check_converter(converter)
    _check_max_bytes(max_bytes)
    listing = list_corpus(path, mode=mode)
    return load_listing(listing, Reading(mode, max_bytes, _cache(conversions, converter), progress, keep_front_matter,
                                  converter))


def load_files(
    paths: Iterable[str | os.PathLike[str]],
    *,
    root: str | os.PathLike[str] | None = None,
    mode: str = "markdown",
    max_bytes: int = MAX_DOCUMENT_BYTES,
    conversions=None,
    progress=None,
    keep_front_matter: bool = False,
    converter: str = "markitdown",
) -> Corpus:
    """Load a list of files (a listing, chosen files); ids are relative to ``root`` (default:
    their deepest common folder), relative paths are taken from ``root`` too.

    The files were named explicitly, so the extension and hidden-name rules of folder walks do
    not apply; their symbolic-link rule does: a path whose resolved file lies outside ``root`` is
    skipped. A path that is not an existing file or lies outside ``root`` is
    skipped with that reason, like bad content; the rest loads.
    """
    check_mode(mode)
    check_converter(converter)
    _check_max_bytes(max_bytes)
    listing = list_files(paths, root=root)
    return load_listing(listing, Reading(mode, max_bytes, _cache(conversions, converter), progress, keep_front_matter,
                                  converter))


def load_uploads(items: Iterable[tuple[str, bytes]], *, mode: str = "markdown",
                 max_bytes: int = MAX_DOCUMENT_BYTES, conversions=None, keep_front_matter: bool = False) -> Corpus:
    """Load (name, bytes) pairs, e.g. Streamlit uploads; clashing names get `` (2)``, `` (3)``."""
    check_mode(mode)
    _check_max_bytes(max_bytes)
    items = [(name, bytes(data)) for name, data in items]
    # Unique names keep their name even when a generated one would have taken it.
    taken = {name for name, _ in items}
    seen: set[str] = set()
    named = []
    for name, data in items:
        doc_id = name
        if name in seen:
            stem, dot, suffix = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
            n = 2
            while (doc_id := f"{stem} ({n}){dot}{suffix}") in taken:
                n += 1
            taken.add(doc_id)
        seen.add(name)
        named.append((doc_id, data))
    return load_objects(named, mode=mode, max_bytes=max_bytes, conversions=conversions,
                        keep_front_matter=keep_front_matter)


def load_objects(items: Iterable[tuple[str, bytes]], *, mode: str = "markdown", max_bytes: int = MAX_DOCUMENT_BYTES,
                 conversions=None, keep_front_matter: bool = False) -> Corpus:
    """Load (key, bytes) pairs taken one at a time from any iterable, such as a generator over
    an object store's listing: each object is read as a file of that name and its bytes let go,
    so only the documents' texts are held. A key given twice is skipped with the reason."""
    check_mode(mode)
    conversions = _cache(conversions)
    _check_max_bytes(max_bytes)
    documents: list[Document] = []
    skipped: list[SkippedFile] = []
    seen: set[str] = set()
    for key, data in items:
        try:
            if key in seen:
                raise UnreadableFile("the same key was given twice; the first object was read")
            seen.add(key)
            limit = _limit(key, mode, max_bytes)
            if len(data) > limit:
                raise UnreadableFile(too_large(len(data), limit))
            documents.append(read_document(key, bytes(data), mode, source=key, conversions=conversions,
                                           keep_front_matter=keep_front_matter))
        except UnreadableFile as exc:
            skipped.append(SkippedFile(key, exc.reason))
        del data  # before the next object is fetched
    return _corpus("", documents, skipped, mode)


@dataclass(frozen=True, slots=True)
class Reading:
    """How one load reads its files."""

    mode: str
    max_bytes: int = MAX_DOCUMENT_BYTES
    conversions: ConversionCache | None = None
    progress: object = None
    keep_front_matter: bool = False
    converter: str = "markitdown"

    def read(self, doc_id: str, path: str) -> Document | SkippedFile:
        """One file of a listing as a document, or skipped with the reason."""
        try:
            raw = read_file(path, _limit(doc_id, self.mode, self.max_bytes))
            return read_document(doc_id, raw, self.mode, source=path, conversions=self.conversions,
                                 keep_front_matter=self.keep_front_matter, converter=self.converter)
        except UnreadableFile as exc:
            return SkippedFile(doc_id, exc.reason)


class Ahead(Protocol):
    """Work started while a listing is read (``measure.workers.EarlyAnalysis``)."""

    def files_listed(self, converting: list[tuple[str, str]]) -> None:
        """Called before any file is read, with the files to convert (``(id, path)`` pairs)."""

    def texts_read(self, documents: list[Document]) -> Callable[[], None] | None:
        """Called with the documents read as text, before any file is converted. A function
        returned is called before this process converts anything: it may have had them converted
        elsewhere into ``reading.conversions``, where they are read."""


def load_listing(listing: Listing, reading: Reading, ahead: Ahead | None = None) -> Corpus:
    """Read a listing's files into a corpus (in id order); failures join ``skipped``. The files
    read as text come first, the converted ones after; ``ahead`` is told of both (``Ahead``)."""
    check_mode(reading.mode)
    _check_max_bytes(reading.max_bytes)
    mode = reading.mode
    documents, skipped = [], list(listing.skipped)
    converted = [(doc_id, path) for doc_id, path in listing.entries if mode != "seed" and kind_of(doc_id)]
    if ahead is not None:
        ahead.files_listed(list(converted))
    for doc_id, path in listing.entries:
        if not (mode != "seed" and kind_of(doc_id)):
            found = reading.read(doc_id, path)
            (skipped if isinstance(found, SkippedFile) else documents).append(found)
    wait = ahead.texts_read(list(documents)) if ahead is not None else None
    if wait is not None:
        wait()
    for done, (doc_id, path) in enumerate(converted, 1):
        found = reading.read(doc_id, path)
        (skipped if isinstance(found, SkippedFile) else documents).append(found)
        if reading.progress is not None:
            reading.progress(done, len(converted))
    return _corpus(listing.root, documents, skipped, mode)


def _limit(doc_id: str, mode: str, max_bytes: int) -> int:
    """The size a file may have: converted formats carry images and packaging, text does not."""
    return max(max_bytes, MAX_CONVERTED_BYTES) if mode != "seed" and kind_of(doc_id) else max_bytes


def _cache(conversions, converter: str = "markitdown") -> ConversionCache | None:
    if conversions is None or isinstance(conversions, ConversionCache):
        return conversions
    return ConversionCache(conversions, converter)


def _corpus(root: str, documents: list[Document], skipped: list[SkippedFile], mode: str) -> Corpus:
    return Corpus(
        root=root,
        documents=tuple(sorted(documents, key=lambda d: d.id)),
        skipped=tuple(sorted(skipped, key=lambda s: (s.path, s.reason))),
        mode=mode,
    )


def _check_max_bytes(max_bytes: int) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise SpecError(f"max_bytes must be a positive whole number of bytes, not {max_bytes!r}")
