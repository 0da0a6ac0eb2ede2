"""Bring your own chunks: place chunks made by another tool onto the corpus as exact spans.

Records come from ``inspector.records`` (JSONL, JSON, CSV; LangChain and Chonkie dumps).
Each is placed in its document by, in order of trust:

1. its offsets, when given and ``document.text[start:end]`` equals its text;
2. its text found verbatim, searching forward from the previous chunk's start (overlap
   allowed), so repeated passages are matched in order;
3. its text found with every whitespace run treated as one space, mapped back to exact
   original offsets (no character outside the match is taken).

Offsets that do not check out are reported, then the text is placed as if none were given.
Every record that cannot be placed, every duplicate span, every chunk found only behind its
predecessor, every placement with an overlapping rival match (repetitive text) and every
stretch of a document no chunk covers is reported by line number or offsets; nothing is
guessed silently. ``ImportedSplits`` makes the placed chunks usable
wherever a built-in splitter's are (measures, probe, rendering).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ImportChunksError
from .lengths import get_length
from .matching import DocumentMatcher, NormalisedText
from .measures import HeaderCarry, header_carry, survival_pair
from .model import ATOM_KINDS, Chunk, Document
from .probe import ProbeResult, run_probe
from .records import ChunkRecord, as_offset, detect_format, read_records, read_source
from .spec import MAX_BUDGET, SplitterSpec
from .splitters import SplitResult
from .workspace import SplitSummary

_FRONT_MATTER = re.compile(r"\A(?:---|\+\+\+)[ \t]*\n.*?\n(?:---|\.\.\.|\+\+\+)[ \t]*\n", re.S)
#: How a chunk was placed, most trusted first.
PLACEMENTS = ("offsets", "exact", "normalised", "realigned")


@dataclass(frozen=True, slots=True)
class ImportProblem:
    """One record (or document) the import could not take as given."""

    line: int
    """Line of the chunk file (from 1); 0 for problems of a whole document."""

    chunk_id: str
    """The producer's chunk id, ``"line N"`` when it gave none, or ``""``."""

    kind: str
    """``malformed``, ``no-document``, ``unknown-document``, ``ambiguous-document``,
    ``bad-offsets``, ``offset-mismatch``, ``not-found``, ``empty``, ``duplicate``,
    ``duplicate-id``, ``out-of-order``, ``ambiguous`` or ``front-matter``."""

    message: str
    """What happened, in words, naming what was done about it."""


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

    def splits(self, workspace, *, budget: int | None = None, unit: str = "chars") -> "ImportedSplits":
        """These chunks ready for measures and the probe (see ``ImportedSplits``)."""
        return ImportedSplits(workspace, self.chunks, label=self.spec, budget=budget, unit=unit)

    def all_chunks(self) -> list[Chunk]:
        """Every placed chunk in corpus order."""
        return [c for chunks in self.chunks.values() for c in chunks]

    def summary(self) -> str:
        """One line for people: how many placed, how, and what went wrong."""
        how = ", ".join(f"{n} by {k}" for k, n in self.placements.items() if n)
        kinds = Counter(p.kind for p in self.problems)
        trouble = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "no problems"
        solid = sum(1 for g in self.gaps if not g.blank)
        return (f"{self.imported} of {self.records} records placed ({how or 'none'}); {trouble}; "
                f"{len(self.gaps)} uncovered stretches ({solid} with text)")


@dataclass(slots=True)
class _DocState:
    """Placement state of one document while records are read (mutable, private)."""

    document: Document
    """The document chunks are placed in."""

    cursor: int = -1
    """Start of the last chunk placed; the next search begins just after it."""

    spans: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    """Spans placed so far, with the line and id that placed them (to name duplicates)."""

    placed: list[tuple[ChunkRecord, int, int]] = field(default_factory=list)
    """Placed records with their spans, in file order."""

    normalised: NormalisedText | None = None
    """The whitespace-insensitive twin of the text, built on first need."""

    def norm(self) -> NormalisedText:
        if self.normalised is None:
            self.normalised = NormalisedText(self.document.text)
        return self.normalised


def import_chunks(source: str | Path | bytes, corpus, *, name: str | None = None, fmt: str | None = None,
                  default_doc: str | None = None, workspace=None) -> ImportResult:
    """Read a chunk file (a path, or its content as ``bytes`` with ``name``) and place its
    chunks on ``corpus`` (a ``Corpus``, a ``Workspace`` or a list of documents).

    ``fmt`` (``jsonl``, ``json``, ``csv``) defaults to the name's suffix, else the content.
    ``default_doc`` names the document of records that name none (Chonkie dumps); a corpus
    of one document is its own default. A ``workspace`` supplies heading paths (and the
    documents, when ``corpus`` is None). Raises ``ImportChunksError`` only when the file
    itself cannot be read; bad records become ``ImportResult.problems``.
    """
    text, name = read_source(source, name, "chunks")
    fmt = fmt or detect_format(name, text)
    try:
        records, bad, _ = read_records(text, fmt)
    except ValueError as exc:
        raise ImportChunksError(str(exc)) from None
    problems = [ImportProblem(p.line, "", "malformed", p.message) for p in bad]
    documents = _documents_of(workspace if corpus is None else corpus)
    result = place_records(records, documents, name=name, default_doc=default_doc, workspace=workspace)
    return ImportResult(name, result.chunks, tuple(sorted(problems + list(result.problems), key=_order)),
                        result.gaps, result.origins, len(records) + len(bad), result.missing_documents)


def _documents_of(corpus) -> list[Document]:
    """A ``Corpus``'s or ``Workspace``'s documents, or a plain sequence of them."""
    return list(corpus.documents) if hasattr(corpus, "documents") else list(corpus)


def _order(problem: ImportProblem) -> tuple[int, str]:
    return (problem.line, problem.kind)


def place_records(records: list[ChunkRecord], documents: list[Document], *, name: str = "chunks",
                  label: str | None = None, default_doc: str | None = None, workspace=None) -> ImportResult:
    """Place already-read records on ``documents`` (see the module docstring for the order);
    the chunks' ``spec`` is ``label`` (default ``imported:<name>``)."""
    matcher = DocumentMatcher(documents)
    fallback: Document | str | None = None
    if default_doc is not None:
        fallback = matcher.resolve(default_doc)
    elif len(documents) == 1:
        fallback = documents[0]
    states: dict[str, _DocState] = {}
    problems: list[ImportProblem] = []
    origins: list[ChunkOrigin] = []
    seen_ids: dict[str, int] = {}
    for record in records:
        report = _reporter(problems, record)
        target = matcher.resolve(record.doc_ref) if record.doc_ref is not None else fallback
        if target is None:
            report("no-document", "the record names no document; pass a default document")
            continue
        if isinstance(target, str):
            report("ambiguous-document" if "ambiguous" in target else "unknown-document", target)
            continue
        state = states.setdefault(target.id, _DocState(target))
        placed = _place(record, state, report)
        if placed is None:
            continue
        start, end, how = placed
        first = state.spans.get((start, end))
        if first is not None:
            report("duplicate", f"same span {start}:{end} of {target.id} as {first[1]} (line {first[0]}); "
                                "imported once")
            continue
        if record.chunk_id in seen_ids and not record.chunk_id.startswith("line "):
            report("duplicate-id", f"chunk id already used on line {seen_ids[record.chunk_id]}; imported anyway")
        seen_ids.setdefault(record.chunk_id, record.line)
        state.spans[(start, end)] = (record.line, record.chunk_id)
        state.placed.append((record, start, end))
        state.cursor = start
        origins.append(ChunkOrigin(record.line, record.chunk_id, target.id, start, end, how))
    label = label or f"imported:{name}"
    chunks: dict[str, tuple[Chunk, ...]] = {}
    gaps: list[Gap] = []
    for document in documents:
        state = states.get(document.id)
        if state is None or not state.placed:
            continue
        chunks[document.id] = _chunks_of(state, label, workspace)
        gaps += _gaps(document, [(c.start, c.end) for c in chunks[document.id]])
    missing = tuple(d.id for d in documents if d.id not in chunks)
    return ImportResult(name, chunks, tuple(sorted(problems, key=_order)), tuple(gaps), tuple(origins),
                        len(records), missing)


def _reporter(problems: list[ImportProblem], record: ChunkRecord):
    def report(kind: str, message: str) -> None:
        problems.append(ImportProblem(record.line, record.chunk_id, kind, message))
    return report


def _check_offsets(record: ChunkRecord, text: str) -> tuple[int, int] | tuple[str, str]:
    """The given span when it checks out, else ``(kind, reason)``."""
    start, end = as_offset(record.start), as_offset(record.end)
    if (record.start is not None and start is None) or (record.end is not None and end is None):
        return "bad-offsets", f"offsets {record.start!r}:{record.end!r} are not whole numbers"
    if start is None:
        return "bad-offsets", "an end offset without a start"
    if end is None:
        if record.text is None:
            return "bad-offsets", "a start offset without an end or a text"
        end = start + len(record.text)
    if not 0 <= start <= end <= len(text):
        return "bad-offsets", f"offsets {start}:{end} lie outside the text (0:{len(text)})"
    if record.text is not None and text[start:end] != record.text:
        return "offset-mismatch", f"the text at {start}:{end} differs from the chunk's text"
    return start, end


def _place(record: ChunkRecord, state: _DocState, report) -> tuple[int, int, str] | None:
    """``(start, end, how)`` for one record, or None after reporting why not."""
    kind = reason = ""
    if record.start is not None or record.end is not None:
        checked = _check_offsets(record, state.document.text)
        if isinstance(checked[0], int):
            start, end = checked
            if start == end:
                report("empty", f"empty span {start}:{end}; skipped")
                return None
            return start, end, "offsets"
        kind, reason = checked
        if record.text is None:
            report(kind, reason + "; the record has no text to place instead")
            return None
    if not record.text.strip():
        report(kind or "empty", (reason + "; " if reason else "") + "the chunk text is empty or blank; skipped")
        return None
    found = _find_text(record, state, report)
    if found is None:
        lead = f"{reason}, and its text" if reason else "its text"
        report(kind or "not-found", f"{lead} is not in {state.document.id}, verbatim or with whitespace "
                                    "normalised; not imported")
        return None
    start, end, how = found
    if kind:
        given = as_offset(record.start)
        shift = f" ({_shift_words(start - given)})" if given is not None and given != start else ""
        report(kind, f"{reason}; placed at {start}:{end} by its text{shift}")
        how = "realigned"
    return start, end, how


def _shift_words(delta: int) -> str:
    return f"{abs(delta)} characters {'later' if delta > 0 else 'earlier'} than given"


def _find_text(record: ChunkRecord, state: _DocState, report) -> tuple[int, int, str] | None:
    needle = record.text
    candidates = [(needle, "")]
    if record.prefix and needle.startswith(record.prefix) and len(needle) > len(record.prefix):
        candidates.append((needle[len(record.prefix):], "after its prefix"))
    stripped = _FRONT_MATTER.sub("", needle, count=1)
    if stripped != needle and stripped.strip():
        candidates.append((stripped, "front-matter"))
    for wanted, note in candidates:
        found = _search(wanted, state)
        if found is not None:
            start, end, how, behind = found
            if note == "front-matter":
                report("front-matter", f"the chunk starts with front matter the corpus removed; "
                                       f"placed the rest at {start}:{end}")
            if behind:
                report("out-of-order", f"found only before the previous chunk, at {start}:{end}; placed there")
            rival = _rival(wanted, state, start, end, how)
            if rival is not None:
                report("ambiguous", f"placed at {start}:{end}, the first match, but the same text also starts at "
                                    f"{rival}, overlapping it (repetitive text)")
            return start, end, how
    return None


def _rival(needle: str, state: _DocState, start: int, end: int, how: str) -> int | None:
    """Another match starting inside the chosen span: the placement is then a guess between
    overlapping candidates, which a repetitive text makes possible."""
    if how == "exact":
        at = state.document.text.find(needle, start + 1, end + len(needle) - 1)
        return at if at >= 0 else None
    found = state.norm().find(needle, start + 1)
    return found[0] if found is not None and found[0] < end else None


def _search(needle: str, state: _DocState) -> tuple[int, int, str, bool] | None:
    """Exact then whitespace-normalised, forward from just after the previous start (the same
    start last, for a repeated chunk), then anywhere in the document (flagged ``behind``)."""
    text = state.document.text
    after = state.cursor + 1
    at = text.find(needle, after)
    if at >= 0:
        return at, at + len(needle), "exact", False
    if state.cursor >= 0 and text.startswith(needle, state.cursor):
        return state.cursor, state.cursor + len(needle), "exact", False
    norm = state.norm()
    found = norm.find(needle, max(0, after))
    if found is None and state.cursor >= 0:
        found = norm.find(needle, state.cursor)
    if found is not None:
        return found[0], found[1], "normalised", False
    if state.cursor > 0:
        at = text.find(needle)
        if at >= 0:
            return at, at + len(needle), "exact", True
        found = norm.find(needle, 0)
        if found is not None:
            return found[0], found[1], "normalised", True
    return None


def _chunks_of(state: _DocState, label: str, workspace) -> tuple[Chunk, ...]:
    placed = sorted(state.placed, key=lambda item: (item[1], item[2]))
    paths = workspace.analysis(state.document).heading_index if workspace is not None else None
    out = []
    for index, (record, start, end) in enumerate(placed):
        if record.heading_path is not None:
            path = record.heading_path
        else:
            path = paths.path(start) if paths is not None else ()
        out.append(Chunk(state.document.id, index, start, end, record.prefix, label, path))
    return tuple(out)


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


class ImportedSplits:
    """Chunks from elsewhere (an import, an adapter) presented like ``Workspace.split``'s, so
    survival, the probe, header carry and rendering treat them as any splitter's.

    Only documents that received chunks take part. ``budget`` (in ``unit``) is the size the
    producer aimed at: chunks over it are reported as oversized and ``summarize``'s fit
    survival counts atoms up to it; without one nothing is oversized and every atom counts.
    """

    def __init__(self, workspace, chunks_by_doc, *, label: str = "imported", budget: int | None = None,
                 unit: str = "chars") -> None:
        known = {d.id for d in workspace.documents}
        stray = sorted(set(chunks_by_doc) - known)
        if stray:
            raise ImportChunksError(f"chunks for documents the workspace lacks: {', '.join(stray[:5])}")
        self.workspace = workspace
        self.label = label
        self.budget = budget
        self.documents: list[Document] = [d for d in workspace.documents if chunks_by_doc.get(d.id)]
        self.chunks_by_doc: dict[str, tuple[Chunk, ...]] = {
            d.id: tuple(sorted(chunks_by_doc[d.id], key=lambda c: (c.start, c.end))) for d in self.documents}
        self.length = get_length(unit)
        texts = {d.id: d.text for d in self.documents}
        flat = self.chunks()
        self._sizes = self.length.count_many([c.prefix + texts[c.doc_id][c.start:c.end] for c in flat])
        largest = max(self._sizes, default=1)
        self.spec = SplitterSpec("ext-imported", min(MAX_BUDGET, max(1, budget or largest)), unit)

    def chunks(self) -> list[Chunk]:
        """Every chunk in corpus order (the order ``run_probe`` needs)."""
        return [c for chunks in self.chunks_by_doc.values() for c in chunks]

    def sizes(self) -> list[int]:
        """Embedded size (prefix + span) of every chunk, in ``unit``, in ``chunks()`` order."""
        return list(self._sizes)

    def split(self) -> list[SplitResult]:
        """One ``SplitResult`` per document that has chunks, in corpus order."""
        out, k = [], 0
        for document in self.documents:
            chunks = self.chunks_by_doc[document.id]
            sizes = self._sizes[k:k + len(chunks)]
            k += len(chunks)
            over = tuple(i for i, s in enumerate(sizes) if self.budget is not None and s > self.budget)
            out.append(SplitResult(document.id, self.spec, self.workspace.mode, chunks, over))
        return out

    def summarize(self, *, fits: int | None = None) -> SplitSummary:
        """Counts and survival, as ``Workspace.summarize`` gives them for a splitter."""
        fits = self.budget if fits is None else fits
        size = None
        if fits is not None and self.length.unit != "characters":
            length = self.length
            size = lambda text: (lambda a, b: length.count(text[a:b]))  # noqa: E731
        fit = {k: [0, 0] for k in ATOM_KINDS}
        every = {k: [0, 0] for k in ATOM_KINDS}
        chunks = chars = oversized = 0
        for document, result in zip(self.documents, self.split()):
            spans = result.spans
            chunks += len(spans)
            chars += sum(b - a for a, b in spans)
            oversized += len(result.oversized)
            atoms = self.workspace.analysis(document).atoms
            measure = size(document.text) if size else None
            for target, part in zip((fit, every), survival_pair(atoms, spans, fits, measure)):
                for kind, (intact, counted) in part.items():
                    target[kind][0] += intact
                    target[kind][1] += counted
        return SplitSummary(self.spec, chunks, chars, {k: tuple(v) for k, v in fit.items()},
                            {k: tuple(v) for k, v in every.items()}, oversized)

    def probe(self, *, k: int = 5) -> ProbeResult:
        """The lexical probe over these chunks; queries of documents without chunks are left out."""
        present = set(self.chunks_by_doc)
        queries = [q for q in self.workspace.queries() if q.doc_id in present]
        counter = None if self.workspace.mode == "seed" else get_length("o200k").count_many
        return run_probe(queries, self.chunks(), self.workspace.term_table(), k=k, token_count=counter)

    def header_carry(self) -> HeaderCarry:
        """Rows that keep or lose their table header."""
        total = HeaderCarry()
        for document in self.documents:
            total.add(header_carry(document.text, self.workspace.analysis(document),
                                   list(self.chunks_by_doc[document.id])))
        return total


def summarize_chunks(workspace, chunks_by_doc, **options) -> SplitSummary:
    """``Workspace.summarize`` for chunks from elsewhere (options as ``ImportedSplits``)."""
    return ImportedSplits(workspace, chunks_by_doc, **options).summarize()
