"""Bring your own chunks: place chunks made by another tool onto the corpus as exact spans.

Records come from ``inspector.chunks.records`` (JSONL, JSON, CSV; LangChain and Chonkie dumps).
Each is placed in its document by ``inspector.chunks.placement``: its offsets when they
check out, else its text found verbatim, else its text with whitespace normalised, mapped
back to exact original offsets.

Offsets that do not check out are reported, then the text is placed as if none were given.
Every record that cannot be placed, every duplicate span, every chunk found only behind its
predecessor, every placement with an overlapping rival match (repetitive text) and every
stretch of a document no chunk covers is reported by line number or offsets; nothing is
guessed silently. ``inspector.chunks.sets`` keeps the placed chunks as a chunk set, which
a ``Workspace`` measures, probes and draws like any splitter's chunks (spec ``imported:ID``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import ImportChunksError
from ..limits import MAX_CHUNK_FILE_BYTES
from ..model import Chunk, Document, ImportProblem
from .matching import DocumentMatcher
from .placement import DocumentPlacement, Headings, place_record, placed_chunks
from .records import ChunkRecord, detect_format, read_records, read_source

#: How a chunk was placed, most trusted first.
PLACEMENTS = ("offsets", "exact", "normalised", "realigned")


@dataclass(frozen=True, slots=True)
class Gap:
    """A stretch of a document that no imported chunk covers."""

    doc_id: str
    """The document."""

    start: int
    """First uncovered offset."""

    end: int
    """One past the last uncovered offset."""

    blank: bool
    """True when the stretch is only whitespace (splitters that strip chunks leave these)."""


@dataclass(frozen=True, slots=True)
class ChunkOrigin:
    """Where one placed chunk came from and how it was placed."""

    line: int
    """Line of the chunk file."""

    chunk_id: str
    """The producer's chunk id (or ``"line N"``)."""

    doc_id: str
    """The corpus document it was placed in."""

    start: int
    """Placed span start."""

    end: int
    """Placed span end."""

    how: str
    """One of ``PLACEMENTS``."""

    text: str | None = None
    """The text the producer emitted for the chunk, when it gave one (it may differ from the
    span's text by whitespace the producer dropped)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    """Chunks placed on a corpus, and everything that did not go as given."""

    name: str
    """The chunk file's name (used in the spec label)."""

    chunks: dict[str, tuple[Chunk, ...]]
    """Per document (corpus order), its chunks sorted by span and re-indexed from 0."""

    problems: tuple[ImportProblem, ...]
    """Every record not taken as given, in line order."""

    gaps: tuple[Gap, ...]
    """Uncovered stretches of the documents that received chunks."""

    origins: tuple[ChunkOrigin, ...]
    """One entry per placed chunk, in file order."""

    records: int
    """Records in the file, readable or not."""

    missing_documents: tuple[str, ...] = ()
    """Corpus documents that received no chunk at all."""

    repeats: tuple[ChunkOrigin, ...] = ()
    """Records whose span repeats an earlier chunk's, with that span (imported once; a store's
    search may still answer their ids)."""

    @property
    def spec(self) -> str:
        """The label imported chunks carry in place of a splitter spec."""
        return f"imported:{self.name}"

    @property
    def imported(self) -> int:
        """Number of chunks placed."""
        return len(self.origins)

    @property
    def placements(self) -> dict[str, int]:
        """Placed chunks per way of placing (``PLACEMENTS``)."""
        counts = Counter(o.how for o in self.origins)
        return {how: counts.get(how, 0) for how in PLACEMENTS}

    @property
    def duplicates(self) -> tuple[ImportProblem, ...]:
        """Records whose span repeats an earlier chunk's (not imported twice)."""
        return tuple(p for p in self.problems if p.kind == "duplicate")

    @property
    def unplaced(self) -> tuple[ImportProblem, ...]:
        """Records that did not become a chunk (duplicates aside)."""
        placed = {o.line for o in self.origins}
        return tuple(p for p in self.problems if p.line and p.line not in placed and p.kind != "duplicate")

    @property
    def shifted(self) -> tuple[ImportProblem, ...]:
        """Records placed by their text at a shift from their offsets (``ImportProblem.is_shift``)."""
        return tuple(p for p in self.problems if p.is_shift)

    @property
    def reviewable(self) -> tuple[ImportProblem, ...]:
        """The problems a person should read: every one but duplicates and harmless shifts."""
        return tuple(p for p in self.problems if p.kind != "duplicate" and not p.is_shift)

    def over_budget(self, length, documents, budget: int) -> tuple[int, int]:
        """Chunks over ``budget`` in ``length``'s unit, judged on what the producer emitted and,
        beside it, on the span in the document (which holds whitespace the producer dropped)."""
        sizes = self.emitted_sizes(length, documents)
        return sum(e > budget for e, _ in sizes), sum(s > budget for _, s in sizes)

    def emitted_sizes(self, length, documents) -> list[tuple[int, int]]:
        """Per placed chunk, ``(size of what the producer emitted, size of the span)`` in
        ``length``'s unit, prefix included; the span stands in where no text was given."""
        texts = {d.id: d.text for d in documents}
        prefixes = {(c.doc_id, c.start, c.end): c.prefix for c in self.all_chunks()}
        spans, emitted = [], []
        for origin in self.origins:
            prefix = prefixes.get((origin.doc_id, origin.start, origin.end), "")
            span = prefix + texts[origin.doc_id][origin.start:origin.end]
            spans.append(span)
            emitted.append(span if origin.text is None else
                           origin.text if prefix and origin.text.startswith(prefix) else prefix + origin.text)
        return list(zip(length.count_many(emitted), length.count_many(spans)))

    def all_chunks(self) -> list[Chunk]:
        """Every placed chunk in corpus order."""
        return [c for chunks in self.chunks.values() for c in chunks]

    def summary(self) -> str:
        """One line for people: how many placed, how, and what went wrong."""
        how = ", ".join(f"{n:,} by {k}" for k, n in self.placements.items() if n)
        kinds = Counter(p.kind for p in self.problems)
        trouble = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no problems"
        solid = sum(1 for g in self.gaps if not g.blank)
        return (f"{self.imported:,} of {self.records:,} records placed ({how or 'none'}); {trouble}; "
                f"{len(self.gaps)} uncovered stretches ({solid} with text)")


def import_chunks(source: str | Path | bytes, corpus, *, name: str | None = None, fmt: str | None = None,
                  default_doc: str | None = None, workspace=None, raw_offsets: bool = False) -> ImportResult:
    """Read a chunk file (a path, or its content as ``bytes`` with ``name``) and place its
    chunks on ``corpus`` (a ``Corpus``, a ``Workspace`` or a list of documents).

    ``fmt`` (``jsonl``, ``json``, ``csv``) defaults to the name's suffix, else the content.
    ``default_doc`` names the document of records that name none (Chonkie dumps); a corpus
    of one document is its own default. A ``workspace`` supplies heading paths (and the
    documents, when ``corpus`` is None). ``raw_offsets``: the file's offsets count in the raw
    files, front matter included. Raises ``ImportChunksError`` only when the file itself cannot
    be read; bad records become ``ImportResult.problems``.
    """
    text, name = read_source(source, name, "chunk file", MAX_CHUNK_FILE_BYTES)
    fmt = fmt or detect_format(name, text)
    try:
        records, bad, _ = read_records(text, fmt)
    except ValueError as exc:
        raise ImportChunksError(str(exc)) from None
    problems = [ImportProblem(p.line, "", "malformed", p.message) for p in bad]
    documents = _documents_of(workspace if corpus is None else corpus)
    headings = workspace.headings if workspace is not None else None
    result = place_records(records, documents, name=name, default_doc=default_doc, headings=headings,
                           raw_offsets=raw_offsets)
    return ImportResult(name, result.chunks, tuple(sorted(problems + list(result.problems), key=_order)),
                        result.gaps, result.origins, len(records) + len(bad), result.missing_documents)


def _documents_of(corpus) -> list[Document]:
    """A ``Corpus``'s or ``Workspace``'s documents, or a plain sequence of them."""
    return list(corpus) if isinstance(corpus, (list, tuple)) else list(corpus.documents)


def _order(problem: ImportProblem) -> tuple[int, str]:
    return (problem.line, problem.kind)


def place_records(records: Iterable[ChunkRecord], documents: list[Document], *, name: str = "chunks",
                  label: str | None = None, default_doc: str | None = None,
                  headings: Headings | None = None, raw_offsets: bool = False, ordered: bool = True,
                  keep_text: bool = True) -> ImportResult:
    """Place already-read records on ``documents`` (in the order ``placement`` describes);
    the chunks' ``spec`` is ``label`` (default ``imported:<name>``), their heading paths come
    from ``headings`` unless a record gives its own.

    ``ordered=False``: the records come in no particular order (a store's id order), so a text
    is searched from the document's start each time and a text that occurs more than once is
    reported as a guess. ``keep_text=False``: an origin keeps the producer's text only where it
    differs from its span's (records read one at a time from a store, memory flat)."""
    matcher = DocumentMatcher(documents)
    fallback: Document | str | None = None
    if default_doc is not None:
        fallback = matcher.resolve(default_doc)
    elif len(documents) == 1:
        fallback = documents[0]
    states: dict[str, DocumentPlacement] = {}
    problems: list[ImportProblem] = []
    origins: list[ChunkOrigin] = []
    seen_ids: dict[str, int] = {}
    repeats: list[ChunkOrigin] = []
    count = 0
    for record in records:
        count += 1
        report = _reporter(problems, record)
        target = matcher.resolve(record.doc_ref) if record.doc_ref is not None else fallback
        if target is None:
            report("no-document", f"the record names no document and the corpus has {len(documents)}: add a "
                                  "'doc_id' field (or source, path, file_path in its metadata), or pass a default "
                                  "document (--default-doc)")
            continue
        if isinstance(target, str):
            report("ambiguous-document" if "ambiguous" in target else "unknown-document", target)
            continue
        state = states.setdefault(target.id, DocumentPlacement(target, raw_offsets=raw_offsets))
        if not ordered:
            state.cursor = -1
        placed = place_record(record, state, report)
        if placed is None:
            continue
        start, end, how, lead = placed
        if lead:
            record = replace(record, prefix=lead)
        first = state.spans.get((start, end))
        if first is not None:
            report("duplicate", f"same span {start}:{end} of {target.id} as {first[1]} (line {first[0]}); "
                                "imported once")
            repeats.append(ChunkOrigin(record.line, record.chunk_id, target.id, start, end, how))
            continue
        if not ordered and how in ("exact", "normalised"):
            _another_copy(record, state, start, end, report)
        if record.chunk_id in seen_ids and not record.chunk_id.startswith("line "):
            report("duplicate-id", f"chunk id already used on line {seen_ids[record.chunk_id]}; imported anyway")
        seen_ids.setdefault(record.chunk_id, record.line)
        state.spans[(start, end)] = (record.line, record.chunk_id)
        state.placed.append((record if keep_text else replace(record, text=None), start, end))
        state.cursor = start
        text = record.text
        if not keep_text and text is not None and record.prefix + target.text[start:end] == text:
            text = None
        origins.append(ChunkOrigin(record.line, record.chunk_id, target.id, start, end, how, text))
    label = label or f"imported:{name}"
    chunks: dict[str, tuple[Chunk, ...]] = {}
    gaps: list[Gap] = []
    for document in documents:
        state = states.get(document.id)
        if state is None or not state.placed:
            continue
        chunks[document.id] = placed_chunks(state, label, headings)
        gaps += _gaps(document, [(c.start, c.end) for c in chunks[document.id]])
    missing = tuple(d.id for d in documents if d.id not in chunks)
    return ImportResult(name, chunks, tuple(sorted(problems, key=_order)), tuple(gaps), tuple(origins),
                        count, missing, tuple(repeats))


def _another_copy(record: ChunkRecord, state: DocumentPlacement, start: int, end: int, report) -> None:
    """Say so when a chunk of a store without order was put on one of several copies of its text."""
    text = state.document.text
    needle = text[start:end]
    other = text.find(needle, end)
    if other < 0:
        other = text.find(needle, 0, start + len(needle) - 1)
        other = -1 if other == start else other
    if other >= 0:
        report("ambiguous", f"placed at {start}:{end}, the first copy of its text, which occurs again at {other}; "
                            "the store keeps no order or offset that says which copy it was cut from")


def _reporter(problems: list[ImportProblem], record: ChunkRecord):
    def report(kind: str, message: str) -> None:
        problems.append(ImportProblem(record.line, record.chunk_id, kind, message))
    return report


def _gaps(document: Document, spans: list[tuple[int, int]]) -> list[Gap]:
    text = document.text
    out, pos = [], 0
    for start, end in sorted(spans):
        if start > pos:
            out.append(Gap(document.id, pos, start, not text[pos:start].strip()))
        pos = max(pos, end)
    if pos < len(text):
        out.append(Gap(document.id, pos, len(text), not text[pos:].strip()))
    return out

