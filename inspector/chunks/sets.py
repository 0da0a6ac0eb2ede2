"""Chunk sets: imported chunks frozen into something every page can choose like a splitter.

An import (``inspector.chunks.importer``) places another tool's chunks on a corpus as exact spans.
A ``ChunkSet`` keeps that placement (spans, prefixes and heading paths per document) under an
id hashed from the corpus fingerprint and the spans, so the spec ``imported:ID`` names the same
chunks everywhere. Registered with a ``Workspace`` (or found through its ``chunk_set_store``)
it is split, measured, probed, drawn and reviewed like any built-in splitter's chunks.

``ChunkSetStore`` keeps sets as JSON files in the app's data folder, so a shared link or an
Orphan Test round over imported chunks still works for a colleague and after a restart. A
stored set is checked again when read: a file that was edited, damaged or made for another
corpus is refused with the reason, never half-used.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ..errors import ChunkSetError
from ..model import Chunk, Document, SplitResult
from ..spec import CHUNK_SET_ID, IMPORTED, SplitterSpec

FORMAT, VERSION = "chunk-inspector/chunk-set", 1
#: Folder of the store inside the data folder (beside the review store).
STORE_FOLDER = "chunk-sets"
MAX_NAME = 200


@dataclass(frozen=True, slots=True)
class ChunkSetInfo:
    """What a listing shows of a stored chunk set (without its chunks)."""

    id: str
    """16 hex digits (``imported:ID`` is its spec)."""

    name: str
    """Where the chunks came from, usually the imported file's name."""

    corpus: str
    """Fingerprint of the corpus the chunks were placed on."""

    chunks: int
    """Number of chunks."""

    documents: int
    """Number of documents holding at least one chunk."""

    created: str
    """When the set was made (ISO 8601, UTC)."""

    @property
    def spec(self) -> str:
        """The spec string that names the set."""
        return f"{IMPORTED}:{self.id}"

    @property
    def title(self) -> str:
        """A short name for menus: the source and the size."""
        return f"imported: {self.name} ({self.chunks:,} chunk{'s' * (self.chunks != 1)})"

    def coverage(self, documents: int) -> str | None:
        """What a corpus-wide measure of this set means when it covers fewer than the corpus's
        ``documents``; None when it covers them all."""
        if self.documents >= documents:
            return None
        return (f"These chunks cover {self.documents} of the {documents} documents: corpus-wide measures count "
                "the other documents' atoms as lost and their questions as missed.")


@dataclass(frozen=True, slots=True)
class ChunkSet:
    """Chunks made elsewhere, placed on one corpus, under a content-derived id."""

    id: str
    """16 hex digits hashed from the corpus fingerprint and every chunk's place and prefix."""

    name: str
    """Where the chunks came from, usually the imported file's name."""

    corpus: str
    """Fingerprint of the corpus (``Corpus.fingerprint``) the spans index into."""

    chunks: Mapping[str, tuple[Chunk, ...]]
    """Per document id (corpus order), its chunks by span, indexed from 0, spec ``imported:ID``."""

    created: str = ""
    """When the set was made (ISO 8601, UTC)."""

    @property
    def spec(self) -> SplitterSpec:
        """The spec naming this set (sizes in characters)."""
        return SplitterSpec.imported(self.id)

    @property
    def info(self) -> ChunkSetInfo:
        """The set without its chunks."""
        count = sum(len(c) for c in self.chunks.values())
        return ChunkSetInfo(self.id, self.name, self.corpus, count, sum(1 for c in self.chunks.values() if c),
                            self.created)

    def split_results(self, documents: Sequence[Document], spec: SplitterSpec, mode: str) -> list[SplitResult]:
        """One result per document, in ``documents``' order (documents without chunks get none)."""
        return [SplitResult(d.id, spec, mode, self.chunks.get(d.id, ())) for d in documents]

    def to_json(self) -> str:
        """The stored form (``from_json`` reads it back, checked)."""
        return json.dumps({
            "format": FORMAT, "version": VERSION, "id": self.id, "name": self.name, "corpus": self.corpus,
            "created": self.created,
            "chunks": {doc: [[c.start, c.end, c.prefix, list(c.heading_path)] for c in chunks]
                       for doc, chunks in self.chunks.items()},
        }, ensure_ascii=False, separators=(",", ":"))


def make_chunk_set(name: str, corpus: str, documents: Sequence[Document],
                   chunks_by_doc: Mapping[str, Iterable[Chunk]], *, created: str | None = None) -> ChunkSet:
    """A chunk set of ``chunks_by_doc`` (spans into ``documents``, which hold the corpus ``corpus``).

    ``ChunkSetError`` when a chunk names a document not in ``documents`` or a span outside its
    text, or when there is no chunk at all."""
    texts = {d.id: d.text for d in documents}
    stray = sorted(set(chunks_by_doc) - set(texts))
    if stray:
        raise ChunkSetError(f"chunks for documents not in the corpus: {', '.join(map(repr, stray[:5]))}")
    order = [d.id for d in documents if chunks_by_doc.get(d.id)]
    if not order:
        raise ChunkSetError("a chunk set needs at least one chunk")
    places: dict[str, list[tuple[int, int, str, tuple[str, ...]]]] = {}
    for doc_id in order:
        size = len(texts[doc_id])
        rows = sorted({(c.start, c.end, c.prefix, tuple(c.heading_path)) for c in chunks_by_doc[doc_id]})
        for start, end, _, _ in rows:
            if not 0 <= start < end <= size:
                raise ChunkSetError(f"chunk {start}-{end} is not a span of {doc_id!r} ({size} characters)")
        places[doc_id] = rows
    digest = hashlib.blake2b(digest_size=8)
    digest.update(corpus.encode("utf-8"))
    for doc_id, rows in places.items():
        digest.update(json.dumps([doc_id, rows], ensure_ascii=False).encode("utf-8"))
    set_id = digest.hexdigest()
    label = f"{IMPORTED}:{set_id}"
    chunks = {doc_id: tuple(Chunk(doc_id, i, a, b, prefix, label, path) for i, (a, b, prefix, path) in enumerate(rows))
              for doc_id, rows in places.items()}
    name = " ".join(str(name).split())[:MAX_NAME] or "chunks"
    return ChunkSet(set_id, name, corpus, chunks, created or _now())


def chunk_set_from_import(result, workspace) -> ChunkSet:
    """The chunks of an ``ImportResult`` placed on ``workspace``'s corpus, as a chunk set."""
    return make_chunk_set(result.name, workspace.fingerprint, workspace.documents, result.chunks)


def from_json(text: str | bytes, documents: Sequence[Document], corpus: str) -> ChunkSet:
    """Read a stored set back, checking it against the corpus it claims (``ChunkSetError``)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a chunk set file")
        if data.get("version") != VERSION:
            raise ValueError(f"chunk set format version {data.get('version')!r} is not {VERSION}")
        claimed, name, created = str(data["id"]), str(data["name"]), str(data.get("created", ""))
        if data["corpus"] != corpus:
            raise ChunkSetError(f"chunk set {claimed} was made for another corpus ({str(data['corpus'])[:12]}…); "
                                "load the corpus it was imported on")
        chunks = {str(doc): [_chunk(str(doc), row) for row in rows] for doc, rows in dict(data["chunks"]).items()}
    except ChunkSetError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        raise ChunkSetError(f"damaged chunk set file: {exc}") from None
    found = make_chunk_set(name, corpus, documents, chunks, created=created)
    if found.id != claimed:
        raise ChunkSetError(f"chunk set {claimed} does not match its own chunks (edited or damaged); import it again")
    return found


def _chunk(doc_id: str, row) -> Chunk:
    start, end, prefix, path = row
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)):
        raise ValueError(f"offsets of a chunk in {doc_id!r} are not whole numbers")
    if not isinstance(prefix, str) or not isinstance(path, list) or not all(isinstance(p, str) for p in path):
        raise ValueError(f"prefix or heading path of a chunk in {doc_id!r} is not text")
    return Chunk(doc_id, 0, start, end, prefix, "", tuple(path))


class ChunkSetStore:
    """Chunk sets as ``ID.json`` files in one folder, written atomically, read back checked."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)
        self._infos: dict[str, tuple[tuple[int, int], ChunkSetInfo | None]] = {}
        self._lock = threading.Lock()

    def _path(self, set_id: str) -> Path:
        if not isinstance(set_id, str) or not CHUNK_SET_ID.match(set_id):
            raise ChunkSetError(f"a chunk set id is 16 hex digits, got {set_id!r}")
        return self.folder / f"{set_id}.json"

    def save(self, chunk_set: ChunkSet) -> Path:
        """Write the set (a no-op when it is already stored: ids are content hashes)."""
        target = self._path(chunk_set.id)
        if target.exists():
            return target
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=".chunk-set-", suffix=".tmp", dir=self.folder)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    stream.write(chunk_set.to_json())
                    stream.flush()
                    os.fsync(stream.fileno())
                os.replace(temporary, target)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except OSError as exc:
            raise ChunkSetError(f"cannot save the chunk set in {self.folder}: {exc.strerror or exc}") from None
        return target

    def load(self, set_id: str, documents: Sequence[Document], corpus: str) -> ChunkSet:
        """The stored set ``set_id``, checked against the corpus (``ChunkSetError`` otherwise)."""
        path = self._path(set_id)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ChunkSetError(f"no imported chunk set {set_id} on this server; import the chunk file again "
                                "on the Import page") from None
        except OSError as exc:
            raise ChunkSetError(f"cannot read chunk set {set_id}: {exc.strerror or exc}") from None
        return from_json(data, documents, corpus)

    def delete(self, set_id: str) -> bool:
        """Remove a stored set; False when there was none."""
        try:
            self._path(set_id).unlink()
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise ChunkSetError(f"cannot delete chunk set {set_id}: {exc.strerror or exc}") from None
        return True

    def infos(self, corpus: str | None = None) -> list[ChunkSetInfo]:
        """Stored sets (newest first), optionally only those of one corpus. Damaged files are
        left out here; ``load`` says what is wrong with one."""
        try:
            entries = [e for e in os.scandir(self.folder) if e.name.endswith(".json") and
                       CHUNK_SET_ID.match(e.name[:-5])]
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise ChunkSetError(f"cannot list the chunk sets in {self.folder}: {exc.strerror or exc}") from None
        found = []
        for entry in entries:
            info = self._info(entry)
            if info is not None and (corpus is None or info.corpus == corpus):
                found.append(info)
        return sorted(found, key=lambda i: (i.created, i.id), reverse=True)

    def _info(self, entry: os.DirEntry) -> ChunkSetInfo | None:
        # Listing runs on every page view: a file is parsed again only when it changes.
        try:
            stat = entry.stat()
        except OSError:
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._infos.get(entry.name)
        if cached is not None and cached[0] == key:
            return cached[1]
        info = None
        try:
            data = json.loads(Path(entry.path).read_bytes())
            chunks = dict(data["chunks"])
            if data.get("format") == FORMAT and data.get("id") == entry.name[:-5]:
                info = ChunkSetInfo(data["id"], str(data["name"]), str(data["corpus"]),
                                    sum(len(rows) for rows in chunks.values()),
                                    sum(1 for rows in chunks.values() if rows), str(data.get("created", "")))
        except (OSError, ValueError, KeyError, TypeError):
            info = None
        with self._lock:
            self._infos[entry.name] = (key, info)
        return info


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
