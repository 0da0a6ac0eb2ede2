"""A user's vector store as a source of chunks: read a page at a time, each chunk placed on the
corpus by the import placement, everything not placed exactly reported by kind.

The text a stored chunk is measured by is the stored text: a span found for the part of it the
document holds, and whatever the pipeline put before it (a title, a heading path, a context line)
kept as the chunk's prefix. Only spans and ids are kept while reading, and a chunk's text only
where it differs from its span's, so memory follows the chunks placed, not the collection.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..chunks.importer import ImportResult, place_records
from ..chunks.placement import Headings
from ..chunks.records import ChunkRecord
from ..errors import StoreError
from ..model import Document, ImportProblem
from .address import StoreAddress, StoreCredentials
from .fields import StoreFields, record_of
from .readers import NO_CREDENTIALS, open_reader
from .reading import PAGE_SIZE, StoreReader

NO_FIELDS = StoreFields()

#: Problems of one kind printed one by one; the rest are counted.
SHOWN_PER_KIND = 5


@dataclass(frozen=True, slots=True)
class StoreImport:
    """A store's chunks placed on a corpus."""

    address: StoreAddress
    """Where they were read from."""

    result: ImportResult
    """The placement, as for a chunk file (line N is the N-th chunk read)."""

    conventions: dict[str, int] = field(default_factory=dict)
    """Chunks per metadata convention they were read by (``fields.CONVENTIONS``)."""

    unreadable: tuple[ImportProblem, ...] = ()
    """Stored chunks that could not become a record at all (no text and no offsets)."""

    note: str = ""
    """What the reader said about how the store was read ("" when nothing)."""

    @property
    def name(self) -> str:
        """What the chunk set is called: the store's short label."""
        return self.address.label

    @property
    def stored(self) -> int:
        """Chunks read from the store."""
        return self.result.records

    @property
    def problems(self) -> tuple[ImportProblem, ...]:
        return tuple(sorted(self.unreadable + self.result.problems, key=lambda p: (p.line, p.kind)))

    def places(self) -> dict[str, tuple[str, int, int]]:
        """Where each stored chunk id was placed: ``(document, start, end)`` (repeats of a span too)."""
        return {o.chunk_id: (o.doc_id, o.start, o.end) for o in (*self.result.origins, *self.result.repeats)}

    def strays(self) -> dict[str, int]:
        """Chunks per document the corpus does not hold (or cannot tell apart), by the name the store gave."""
        counts: Counter[str] = Counter()
        for problem in self.result.problems:
            if problem.kind in ("unknown-document", "ambiguous-document"):
                counts[_document_named(problem.message)] += 1
        return dict(counts.most_common())

    def summary(self) -> str:
        """One line for people."""
        how = ", ".join(f"{n:,} {k}" for k, n in sorted(self.conventions.items(), key=lambda kv: -kv[1]) if n)
        return (f"{self.address}: {self.stored:,} stored chunks read ({how or 'none'} metadata); "
                f"{self.result.summary()}")

    def lines(self, shown: int = SHOWN_PER_KIND, named: bool = True) -> list[str]:
        """What was not taken as stored, a few lines per kind and the rest counted; chunks of
        documents not in the corpus counted per document; each line begins with the store's
        label when ``named`` (a page about one store leaves it out)."""
        label = self.address.label if named else "stored chunk"
        out: list[str] = []
        by_kind: dict[str, list[ImportProblem]] = {}
        for problem in self.problems:
            if problem.kind not in ("unknown-document", "ambiguous-document"):
                by_kind.setdefault(problem.kind, []).append(problem)
        for kind, problems in sorted(by_kind.items()):
            for problem in problems[:shown]:
                out.append(f"{label} #{problem.line} ({problem.chunk_id}): {kind}: {problem.message}")
            if len(problems) > shown:
                out.append(f"... and {len(problems) - shown:,} more {kind} ({len(problems):,} in all)")
        for document, count in self.strays().items():
            out.append(f"{self.address.label + ': ' if named else ''}{count:,} stored chunk{'s' * (count != 1)} of "
                       f"{document}: not a document of the corpus (read the folder the store was filled from)")
        return out


def _document_named(message: str) -> str:
    # The placement's messages name the producer's document first: "no document 'x' in the corpus".
    start = message.find("'")
    end = message.find("'", start + 1)
    return message[start + 1:end] if 0 <= start < end else message[:80]


def read_store(address: StoreAddress, documents: list[Document], *, fields: StoreFields = NO_FIELDS,
               headings: Headings | None = None, raw_offsets: bool = False,
               credentials: StoreCredentials = NO_CREDENTIALS,
               progress: Callable[[str, int, int], None] | None = None, page_size: int = PAGE_SIZE,
               reader: StoreReader | None = None) -> StoreImport:
    """Every chunk of the store at ``address`` placed on ``documents``. ``StoreError`` (naming the
    store) when it cannot be opened or read; chunks that cannot be placed are problems."""
    opened = reader or open_reader(address, credentials)
    try:
        total = opened.count()
        conventions: Counter[str] = Counter()
        unreadable: list[ImportProblem] = []
        records = _records(opened, fields, conventions, unreadable, total, progress, page_size)
        result = place_records(records, documents, name=address.label, default_doc=None, headings=headings,
                               raw_offsets=raw_offsets, ordered=opened.ordered, keep_text=False)
    except (StoreError, MemoryError):
        raise
    except Exception as exc:  # a client's own error while paging
        raise StoreError(f"reading {address} failed: {' '.join(str(exc).split())[:300] or type(exc).__name__}") \
            from None
    finally:
        if reader is None:
            opened.close()
    result = ImportResult(result.name, result.chunks, result.problems, result.gaps, result.origins,
                          result.records + len(unreadable), result.missing_documents, result.repeats)
    return StoreImport(address, result, dict(conventions), tuple(unreadable), opened.note)


def _records(reader: StoreReader, fields: StoreFields, conventions: Counter, unreadable: list[ImportProblem],
             total: int | None, progress, page_size: int) -> Iterator[ChunkRecord]:
    line = 0
    for page in reader.pages(page_size):
        for chunk in page:
            line += 1
            record, convention = record_of(chunk, line, fields)
            conventions[convention] += 1
            if isinstance(record, ChunkRecord):
                yield record
            else:
                unreadable.append(ImportProblem(line, chunk.id, "unreadable", record.message))
        if progress is not None:
            progress("stored chunks read", line, max(total or 0, line))
