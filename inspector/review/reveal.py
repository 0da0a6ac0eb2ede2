"""What the Orphan Test shows once a reviewer has answered: automatic reasons to suspect the
chunk is an orphan, and what surrounds it in its document.

Kept apart from the rounds (``inspector.review.rounds``) because none of this may be seen before
the answer: a chunk is judged cold, and only then do the hints and the neighbours
("retrieve small, read big") explain the verdict. Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..atoms.analysis import Analysis
from ..errors import ReviewInputError
from ..measure.engine import Engine
from ..measure.workspace import Workspace
from ..model import Chunk, Document, Span, mode_tag
from ..spec import parse_spec

# -- suspect hints -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hint:
    """An automatic reason to suspect a chunk is an orphan (shown after the reviewer answers)."""

    code: str
    """One of ``HINT_CODES``."""

    message: str
    """What was found, in words; may quote the document, so escape it before rendering."""

    span: Span | None = None
    """Where in the document, when the hint points at one place."""


HINT_CODES: dict[str, str] = {
    "dangling_reference": "opens with a dangling reference",
    "headerless_row": "table row without its header",
    "nameless_number": "number with no named subject",
    "no_heading_path": "no heading path",
    "no_document_name": "does not name its document",
}

#: The hints that say a chunk cannot be placed: the Orphan Test's first question (address).
ADDRESS_HINTS: tuple[str, ...] = ("no_heading_path", "no_document_name")

_MARKERS = re.compile(r"(?:\s|>|[-*+](?=\s)|\d{1,3}[.)](?=\s)|\*\*?|__?)*")
_DANGLING = re.compile(r"(this|that|these|those|it|they|the above|as above|see above|the same)\b", re.I)
# "It follows that ..." and the like have no subject to name; they are not flagged.
_PRONOUN_SUBJECT = re.compile(r"(?!it (?:follows|seems|appears|turns out)\b)"
                              r"(it|its|they|their|this|that|these|those|the above|the same)\b", re.I)


def suspects(chunk: Chunk, document: Document, analysis: Analysis) -> list[Hint]:
    """Automatic orphan hints for one chunk, looking only at its span and its prefix."""
    text = document.text
    a, b = chunk.start, chunk.end
    hints: list[Hint] = []
    if not text[a:b].strip():
        return hints  # a whitespace-only chunk says nothing, so there is nothing to suspect
    blocked = [*analysis.fences, *((t.start, t.end) for t in analysis.tables)]
    starts_heading = any(a <= h.start < b and not text[a:h.start].strip() for h in analysis.headings)

    opening = _first_line(text, a, b)
    if opening and not starts_heading and not _inside(opening[0], blocked):
        line = text[opening[0]:opening[1]]
        m = _DANGLING.match(line, _MARKERS.match(line).end())
        if m:
            hints.append(Hint("dangling_reference",
                              f"Opens with \u201c{m.group()}\u201d, which points at something before the chunk.",
                              (opening[0] + m.start(), opening[0] + m.end())))

    for table in analysis.tables:
        rows = [r for r in table.rows if r[0] < b and r[1] > a]
        if not rows:
            continue
        h0 = table.header[0]
        header_row = text[h0:table.header[1]].split("\n", 1)[0]
        if (a <= h0 and h0 + len(header_row) <= b) or (header_row.strip() and header_row in chunk.prefix):
            continue
        line = text.count("\n", 0, table.start) + 1
        hints.append(Hint("headerless_row", f"Holds {len(rows)} row{'s' if len(rows) != 1 else ''} of the table "
                          f"at line {line} but not its header row.", (rows[0][0], rows[-1][1])))

    for s0, s1 in analysis.sentences:
        if s1 <= a or s0 >= b or _inside(max(s0, a), blocked):
            continue
        # Only the chunk's first prose sentence: a pronoun further on may point at an earlier one.
        s0, s1 = max(s0, a), min(s1, b)
        sentence = text[s0:s1]
        m = _PRONOUN_SUBJECT.match(sentence, _MARKERS.match(sentence).end())
        if m and any(ch.isdigit() for ch in sentence):
            quote = " ".join(sentence.split())
            quote = quote if len(quote) <= 70 else quote[:69] + "\u2026"
            hints.append(Hint("nameless_number", f"\u201c{quote}\u201d: a number whose subject is "
                              f"\u201c{m.group()}\u201d, with nothing earlier in the chunk to name it.", (s0, s1)))
        break

    if analysis.headings and not starts_heading and not _path_prefix(chunk, text, analysis):
        hints.append(Hint("no_heading_path", "No heading path: the chunk neither carries a path prefix nor "
                          "starts with a heading, so nothing says which section it is from."))
    title = " ".join(document.title.split()).casefold()
    if title and title not in " ".join((chunk.prefix + text[a:b]).split()).casefold():
        hints.append(Hint("no_document_name", "Nothing in the chunk names its document "
                          f"(\u201c{document.title}\u201d), so a reader cannot tell which document, product or "
                          "version it is from."))
    return hints


def _first_line(text: str, a: int, b: int) -> Span | None:
    """The first line of ``text[a:b]`` holding more than whitespace, clipped to the span."""
    pos = a
    while pos < b:
        end = text.find("\n", pos, b)
        end = b if end < 0 else end
        if text[pos:end].strip():
            return (pos, end)
        pos = end + 1
    return None


def _inside(offset: int, spans: list[Span]) -> bool:
    return any(s <= offset < e for s, e in spans)


def _path_prefix(chunk: Chunk, text: str, analysis: Analysis) -> bool:
    """Whether the prefix holds a heading path (a prefix is path + repeated table header)."""
    prefix = chunk.prefix
    for table in analysis.tables:
        if table.header[1] <= chunk.start < table.end:
            header = text[table.header[0]:table.header[1]]
            header = header if header.endswith("\n") else header + "\n"
            if prefix.endswith(header):
                prefix = prefix[:-len(header)]
            break
    return bool(prefix.strip())


@dataclass(frozen=True, slots=True)
class SuspectSummary:
    """Automatic hints over a whole corpus under one spec."""

    spec: str
    """The splitter spec's short string."""

    chunks: int
    """Chunks looked at."""

    flagged: int
    """Chunks with at least one hint."""

    by_code: dict[str, int]
    """Hints per code (keys: ``HINT_CODES``)."""

    @property
    def hints(self) -> int:
        """Hints in all."""
        return sum(self.by_code.values())

    @property
    def address(self) -> int:
        """Address hints (``ADDRESS_HINTS``): chunks that do not say where they are from."""
        return sum(self.by_code[code] for code in ADDRESS_HINTS)

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"spec": self.spec, "chunks": self.chunks, "flagged": self.flagged,
                "hints": self.hints, "address": self.address, "by_code": dict(self.by_code)}


def suspect_summary(workspace: Engine, spec: str) -> SuspectSummary:
    """Count the automatic hints over every chunk of the corpus under ``spec``, part by part
    (``Engine.per_part``: a streamed corpus's batches)."""
    parts = workspace.per_part("suspects", suspects_held, spec)
    return SuspectSummary(str(parse_spec(spec)), sum(p.chunks for p in parts), sum(p.flagged for p in parts),
                          {code: sum(p.by_code[code] for p in parts) for code in HINT_CODES})


def suspects_held(workspace: Workspace, spec: str) -> SuspectSummary:
    """``suspect_summary`` of a corpus held in ``workspace``."""
    by_code = dict.fromkeys(HINT_CODES, 0)
    flagged = total = 0
    for document, result in zip(workspace.documents, workspace.split(spec)):
        analysis = workspace.analysis(document)
        for chunk in result.chunks:
            found = suspects(chunk, document, analysis)
            total += 1
            flagged += bool(found)
            for hint in found:
                by_code[hint.code] += 1
    return SuspectSummary(str(parse_spec(spec)), total, flagged, by_code)


# -- reveal ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ChunkContext:
    """What surrounds a chunk in its document, for the reveal after answering."""

    title: str
    """The document's title."""

    heading_path: tuple[str, ...]
    """Headings enclosing the chunk's start, outermost first."""

    previous: str | None
    """The previous chunk's span text, or None for the document's first chunk."""


    next: str | None
    """The next chunk's span text, or None for the document's last chunk."""

    pages: tuple[int, int] | None = None
    """The chunk's first and last page (from 1), for documents with pages (PDF, PPTX)."""


def context(chunk: Chunk, workspace: Workspace) -> ChunkContext:
    """The chunk's neighbours (as its splitter produced them) and heading path."""
    index = next((i for i, d in enumerate(workspace.documents) if d.id == chunk.doc_id), None)
    if index is None:
        raise ReviewInputError(f"document {chunk.doc_id!r} is not in this corpus")
    document = workspace.documents[index]
    spec = str(parse_spec(chunk.spec.removesuffix(mode_tag(workspace.mode))))
    # A round is drawn in a worker process: when this workspace holds no split of the spec, its
    # one document is split (each document is split on its own), not the whole corpus.
    siblings = (workspace.split(spec)[index] if spec in workspace.held()
                else workspace.subset([document.id]).split(spec)[0]).chunks
    previous = siblings[chunk.index - 1].text(document) if chunk.index > 0 else None
    following = siblings[chunk.index + 1].text(document) if chunk.index + 1 < len(siblings) else None
    path = workspace.analysis(document).heading_path(chunk.start)
    return ChunkContext(document.title, path, previous, following, document.page_span(chunk.start, chunk.end))
