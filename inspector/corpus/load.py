"""Reading a corpus: a folder, a list of files or browser uploads, into ``Document`` values.

Two reading modes share one decoding path (``read.read_text``; that module reads and
checks one file, this one finds the files and builds the ``Corpus``):

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

import fnmatch
import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import CorpusError, SpecError, UnreadableFile
from ..limits import MAX_CONVERTED_BYTES, MAX_DOCUMENT_BYTES, MAX_LISTING_BYTES, read_limited
from ..model import Document
from .conversions import ConversionCache
from .convert import check_converter, kind_of
from .read import check_mode, os_reason, read_document, read_file, too_large

#: Extensions the markdown mode reads, compared lower-cased.
MARKDOWN_SUFFIXES: tuple[str, ...] = (".md", ".markdown", ".txt")


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that was found but not loaded."""

    path: str
    """The path relative to the corpus root (``/`` separators), or the upload name."""

    reason: str
    """Why, in words, e.g. ``"binary file (contains NUL bytes)"``."""


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


@dataclass(frozen=True, slots=True)
class Listing:
    """The files a load would read, found but not yet read: what ``--engine ray`` hands its
    cluster, which reads them (``Reading.read``) where they are measured."""

    root: str
    """The folder ids are relative to (absolute)."""

    entries: tuple[tuple[str, str], ...]
    """``(id, path)`` of each file, in id order (the order of the corpus's documents)."""

    skipped: tuple[SkippedFile, ...]
    """Files found but refused before reading (links leaving the root, loops, not found)."""


def list_corpus(path: str | os.PathLike[str], *, mode: str = "markdown") -> Listing:
    """The files ``load_corpus`` reads under a folder (or the one file given), unread."""
    check_mode(mode)
    path = os.fspath(path)
    if "\x00" in str(path):
        raise CorpusError(f"a corpus path cannot contain a NUL character: {path!r}")
    if not os.path.exists(path):
        raise CorpusError(f"corpus path not found: {path}")
    if os.path.isfile(path):
        return Listing(os.path.dirname(os.path.abspath(path)), ((os.path.basename(path), path),), ())
    if not os.path.isdir(path):
        raise CorpusError(f"corpus path is neither a folder nor a file: {path}")
    root = os.path.abspath(path)
    skipped: list[SkippedFile] = []
    entries = _walk(root, mode, skipped)
    return Listing(root, tuple(sorted(entries)), tuple(skipped))


def list_files(paths: Iterable[str | os.PathLike[str]], *, root: str | os.PathLike[str] | None = None) -> Listing:
    """The files ``load_files`` reads from a list of paths, unread (see there)."""
    base = os.path.abspath(os.fspath(root)) if root is not None else None
    files = [os.path.abspath(os.path.join(base or "", os.fspath(p))) for p in paths]
    if base is None:
        base = os.path.commonpath([os.path.dirname(f) for f in files]) if files else ""
    entries: dict[str, str] = {}
    skipped: list[SkippedFile] = []
    for file in files:
        if "\x00" in file:
            skipped.append(SkippedFile(repr(file), "a path cannot contain a NUL character"))
            continue
        rel = os.path.relpath(file, base).replace(os.sep, "/")
        if rel == os.pardir or rel.startswith(os.pardir + "/"):
            skipped.append(SkippedFile(file, f"not inside the corpus folder {base}"))
        elif not os.path.isfile(file):
            skipped.append(SkippedFile(rel, "not found" if not os.path.exists(file) else "not a file"))
        else:
            entries.setdefault(rel, file)
    return Listing(base, tuple(sorted(entries.items())), tuple(skipped))


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

    The files were named explicitly, so the extension, hidden-name and symbolic-link rules of
    folder walks do not apply. A path that is not an existing file or lies outside ``root`` is
    skipped with that reason, like bad content; the rest loads.
    """
    check_mode(mode)
    check_converter(converter)
    _check_max_bytes(max_bytes)
    listing = list_files(paths, root=root)
    return load_listing(listing, Reading(mode, max_bytes, _cache(conversions, converter), progress, keep_front_matter,
                                  converter))


def read_listing(path: str | os.PathLike[str]) -> list[str]:
    """The paths a listing names, one per line (blank lines and ``#`` comments left out); ``-``
    reads standard input. ``CorpusError`` says why a listing cannot be read."""
    try:
        raw = read_limited("/dev/stdin" if os.fspath(path) == "-" else path, MAX_LISTING_BYTES, "file list")
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = "not UTF-8" if isinstance(exc, UnicodeDecodeError) else os_reason(exc)
        raise CorpusError(f"cannot read the file list {os.fspath(path)}: {reason}") from None
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


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


def load_listing(listing: Listing, reading: Reading) -> Corpus:
    """Read a listing's files in id order into a corpus; failures join ``skipped``."""
    check_mode(reading.mode)
    _check_max_bytes(reading.max_bytes)
    mode = reading.mode
    documents, skipped = [], list(listing.skipped)
    converting = sum(1 for doc_id, _ in listing.entries if mode == "markdown" and kind_of(doc_id))
    done = 0
    for doc_id, path in listing.entries:
        found = reading.read(doc_id, path)
        (skipped if isinstance(found, SkippedFile) else documents).append(found)
        if reading.progress is not None and mode == "markdown" and kind_of(doc_id):
            done += 1
            reading.progress(done, converting)
    return _corpus(listing.root, documents, skipped, mode)


def _limit(doc_id: str, mode: str, max_bytes: int) -> int:
    """The size a file may have: converted formats carry images and packaging, text does not."""
    return max(max_bytes, MAX_CONVERTED_BYTES) if mode == "markdown" and kind_of(doc_id) else max_bytes


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


def _walk(root: str, mode: str, skipped: list[SkippedFile]) -> list[tuple[str, str]]:
    """(id, path) of every file below ``root`` the mode reads, as glob's ``**`` finds them.

    Like glob: names starting with "." are neither listed nor entered, and symbolic links to
    folders are followed. Unlike glob: links leaving the root are skipped, and a link back to
    an enclosing folder is not entered (glob would recurse until the OS refuses).
    """
    real_root = os.path.realpath(root)
    found: list[tuple[str, str]] = []
    # An explicit stack, so deep trees cannot hit Python's recursion limit. Each folder
    # carries its resolved path and those of its ancestors, for loop detection.
    stack: list[tuple[str, str, str, frozenset[str]]] = [(root, "", real_root, frozenset({real_root}))]
    while stack:
        folder, prefix, folder_real, ancestors = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            if not prefix:
                raise CorpusError(f"cannot list the corpus folder {root}: {os_reason(exc)}") from exc
            skipped.append(SkippedFile(prefix.rstrip("/"), f"unreadable folder: {os_reason(exc)}"))
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = prefix + entry.name
            link = entry.is_symlink()
            # Only links need a system call to resolve; anything else sits in its folder.
            real = os.path.realpath(entry.path) if link else os.path.join(folder_real, entry.name)
            if link and not _inside(real, real_root):
                skipped.append(SkippedFile(rel, "symbolic link pointing outside the corpus folder"))
                continue
            try:
                is_dir = entry.is_dir()  # follows links, as glob does
            except OSError:
                is_dir = False
            if is_dir:
                if real in ancestors:
                    skipped.append(SkippedFile(rel, "symbolic link loop (points to an enclosing folder)"))
                    continue
                stack.append((entry.path, rel + "/", real, ancestors | {real}))
                if mode == "seed" and fnmatch.fnmatch(entry.name, "*.md"):
                    # glob lists it too; the reference script would crash opening it.
                    skipped.append(SkippedFile(rel, "a folder, not a file"))
            elif _wanted(entry.name, mode):
                found.append((rel, entry.path))
    return found


def _wanted(name: str, mode: str) -> bool:
    if mode == "seed":
        return fnmatch.fnmatch(name, "*.md")  # glob's own test, case rules included
    return name.lower().endswith(MARKDOWN_SUFFIXES) or kind_of(name) is not None


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _check_max_bytes(max_bytes: int) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise SpecError(f"max_bytes must be a positive whole number of bytes, not {max_bytes!r}")
