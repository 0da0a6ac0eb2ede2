"""Listing a corpus: the files a load reads, found but not read (a folder walked as glob's
``**`` finds them, or a list of paths), and the files refused before reading.

The listing is what ``--engine ray`` hands its cluster, which reads the files where they are
measured; ``load`` lists and reads them in one go.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import CorpusError
from ..limits import MAX_LISTING_BYTES, read_limited
from .convert import kind_of
from .read import check_mode, os_reason

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
class Listing:
    """The files a load would read, found but not yet read: what ``--engine ray`` hands its
    cluster, which reads them (``Reading.read``) where they are measured."""

    root: str
    """The folder ids are relative to (absolute)."""

    entries: tuple[tuple[str, str], ...]
    """``(id, path)`` of each file, in id order (the order of the corpus's documents)."""

    skipped: tuple[SkippedFile, ...]
    """Files found but refused before reading (links leaving the root, loops, not found)."""

    def sizes(self) -> list[int]:
        """Each file's size in bytes, in the entries' order (0 for one that cannot be looked at)."""
        return [_size(path) for _, path in self.entries]


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


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
    real_base = os.path.realpath(base) if base else ""
    for file in files:
        if "\x00" in file:
            skipped.append(SkippedFile(repr(file), "a path cannot contain a NUL character"))
            continue
        rel = os.path.relpath(file, base).replace(os.sep, "/")
        if rel == os.pardir or rel.startswith(os.pardir + "/"):
            skipped.append(SkippedFile(file, f"not inside the corpus folder {base}"))
        elif not _inside(os.path.realpath(file), real_base):
            # The folder walk's rule, on the resolved path: a link (or a linked folder on the way)
            # may not lead a listing out of the corpus folder.
            skipped.append(SkippedFile(rel, "symbolic link pointing outside the corpus folder"))
        elif not os.path.isfile(file):
            skipped.append(SkippedFile(rel, "not found" if not os.path.exists(file) else "not a file"))
        else:
            entries.setdefault(rel, file)
    return Listing(base, tuple(sorted(entries.items())), tuple(skipped))


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
