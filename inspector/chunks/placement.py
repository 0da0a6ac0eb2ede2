"""Finding where one imported chunk lies in its document, as an exact span.

Kept apart from ``importer`` (which reads the file, runs the records through here and
reports) because this is the one part that must never guess: each record is placed by, in
order of trust:

1. its offsets, when given and ``document.text[start:end]`` equals its text;
2. its text found verbatim, searching forward from the previous chunk's start (overlap
   allowed), so repeated passages are matched in order;
3. its text found with every whitespace run treated as one space, mapped back to exact
   original offsets (no character outside the match is taken).

Offsets that do not check out are reported, then the text is placed as if none were given.
Anything doubtful (a chunk found only behind its predecessor, a rival overlapping match in
repetitive text, front matter the corpus removed) is reported through the caller's
``report`` callback rather than decided silently.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..atoms.analysis import HeadingIndex
from ..model import Chunk, Document
from .matching import NormalisedText
from .records import ChunkRecord, as_offset

#: Where heading paths come from: a document's heading index (``Workspace.headings``).
Headings = Callable[[Document], HeadingIndex]

_FRONT_MATTER = re.compile(r"\A(?:---|\+\+\+)[ \t]*\n.*?\n(?:---|\.\.\.|\+\+\+)[ \t]*(?:\n|\Z)", re.S)


@dataclass(slots=True)
class DocumentPlacement:
    """Placement state of one document while records are read (mutable)."""

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

    raw_offsets: bool = False
    """Given offsets count in the file's own text (front matter included): they are moved by
    ``Document.start_in_file`` before they are checked."""

    shift: int = 0
    """How far the last chunk placed by its text sat from its given offset: the next chunk of
    repeated text is looked for as far from its own."""

    def norm(self) -> NormalisedText:
        if self.normalised is None:
            self.normalised = NormalisedText(self.document.text)
        return self.normalised


def _check_offsets(record: ChunkRecord, text: str, moved: int = 0) -> tuple[int, int] | tuple[str, str]:
    """The given span (less ``moved``) when it checks out, else ``(kind, reason)``."""
    start, end = as_offset(record.start), as_offset(record.end)
    start, end = (None if start is None else start - moved), (None if end is None else end - moved)
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


def place_record(record: ChunkRecord, state: DocumentPlacement, report) -> tuple[int, int, str, str] | None:
    """``(start, end, how, lead)`` for one record, or None after reporting why not; ``lead`` is
    text the producer put before the document's own (found only when the whole text is not in
    the document), which the chunk keeps as its prefix."""
    kind = reason = ""
    moved = state.document.start_in_file if state.raw_offsets else 0
    if record.start is not None or record.end is not None:
        checked = _check_offsets(record, state.document.text, moved)
        if isinstance(checked[0], int):
            start, end = checked
            if start == end:
                report("empty", f"empty span {start}:{end}; skipped")
                return None
            return start, end, "offsets", ""
        kind, reason = checked
        if record.text is None:
            report(kind, reason + "; the record has no text to place instead")
            return None
    if not record.text.strip():
        report(kind or "empty", (reason + "; " if reason else "") + "the chunk text is empty or blank; skipped")
        return None
    given = as_offset(record.start)
    given = None if given is None else given - moved
    found = _near_given(record.text, state, given) if kind and given is not None else None
    if found is not None:
        start, end, copies, searched = found
        state.shift = start - given
        if searched is not None and searched != start:
            report("other-occurrence", f"{reason}; its text occurs {copies} times: placed at {start}:{end}, the "
                                       f"copy its offset points to ({_shift_words(start - given)}, as the chunks "
                                       f"before it), not at {searched} where a search would have put it")
            return start, end, "realigned", ""
        # Whole-number offsets past the text are shifted offsets too (the file had front matter).
        report("offset-mismatch", f"{reason}; placed at {start}:{end} by its text ({_shift_words(start - given)})")
        return start, end, "realigned", ""
    found = _find_text(record, state, report)
    if found is None:
        if _only_front_matter(record.text):
            report("front-matter-only", "the chunk holds only the file's front matter, which the corpus removed; "
                                        "read the corpus with front matter kept (--keep-front-matter) to place it")
            return None
        lead = f"{reason}, and its text" if reason else "its text"
        report(kind or "not-found", f"{lead} is not in {state.document.id}, verbatim or with whitespace "
                                    "normalised; not imported")
        return None
    start, end, how, lead = found
    if kind:
        shift = f" ({_shift_words(start - given)})" if given is not None and given != start else ""
        report(kind, f"{reason}; placed at {start}:{end} by its text{shift}")
        how = "realigned"
    return start, end, how, lead


def _only_front_matter(text: str) -> bool:
    stripped = _FRONT_MATTER.sub("", text, count=1)
    return stripped != text and not stripped.strip()


#: Copies of a chunk's text looked at when choosing the one its offset points to.
_MAX_COPIES = 1_000


def _near_given(needle: str, state: DocumentPlacement, given: int) -> tuple[int, int, int, int | None] | None:
    """For a chunk whose offset does not hold its text: the verbatim copy nearest to where the
    offset points once the shift of the chunks before it is allowed for, with how many copies
    there are and where a forward search would have placed it. None when the text is not there
    verbatim (the search by normalised whitespace takes over)."""
    text = state.document.text
    copies, at = [], text.find(needle)
    while at >= 0 and len(copies) < _MAX_COPIES:
        copies.append(at)
        at = text.find(needle, at + 1)
    if not copies:
        return None
    wanted = given + state.shift
    start = min(copies, key=lambda c: (abs(c - wanted), c))
    searched = next((c for c in copies if c > state.cursor), copies[0])
    return start, start + len(needle), len(copies), (searched if len(copies) > 1 else None)


def _shift_words(delta: int) -> str:
    return f"{abs(delta)} characters {'later' if delta > 0 else 'earlier'} than given"


#: Lines at the head of a chunk's text tried as a prefix its producer put before the document's text.
_LEAD_LINES = 3
#: The shortest rest of a chunk placed after such a prefix (shorter rests match too easily).
_MIN_REST = 16


def _find_text(record: ChunkRecord, state: DocumentPlacement, report) -> tuple[int, int, str, str] | None:
    needle = record.text
    candidates = [(needle, "", "")]
    if record.prefix and needle.startswith(record.prefix) and len(needle) > len(record.prefix):
        candidates.append((needle[len(record.prefix):], "after its prefix", record.prefix))
    stripped = _FRONT_MATTER.sub("", needle, count=1)
    if stripped != needle and stripped.strip():
        candidates.append((stripped, "front-matter", ""))
    candidates += _after_leads(needle)
    for wanted, note, lead in candidates:
        found = _search(wanted, state)
        if found is not None:
            start, end, how, behind = found
            if note == "front-matter":
                report("front-matter", f"the chunk starts with front matter the corpus removed; "
                                       f"placed the rest at {start}:{end}")
            elif note == "lead":
                shown = " ".join(lead.split())
                report("prefixed", f"placed at {start}:{end} after {len(lead)} characters its producer put before "
                                   f"the document's text ({shown[:60]!r}{'…' if len(shown) > 60 else ''}); they "
                                   "are measured as the chunk's prefix")
            if behind:
                report("out-of-order", f"found only before the previous chunk, at {start}:{end}; placed there")
            rival = _rival(wanted, state, start, end, how)
            if rival is not None:
                report("ambiguous", f"placed at {start}:{end}, the first match, but the same text also starts at "
                                    f"{rival}, overlapping it (repetitive text)")
            return start, end, how, lead
    return None


def _after_leads(needle: str) -> list[tuple[str, str, str]]:
    """The chunk's text after each of its first lines: a title, a heading path or a context line
    the producer wrote before the document's own text."""
    out, at = [], -1
    for _ in range(_LEAD_LINES):
        at = needle.find("\n", at + 1)
        if at < 0:
            break
        rest = needle[at + 1:].lstrip()
        if len(rest.strip()) < _MIN_REST:
            break
        out.append((rest, "lead", needle[:len(needle) - len(rest)]))
    return out


def _rival(needle: str, state: DocumentPlacement, start: int, end: int, how: str) -> int | None:
    """Another match starting inside the chosen span: the placement is then a guess between
    overlapping candidates, which a repetitive text makes possible."""
    if how == "exact":
        at = state.document.text.find(needle, start + 1, end + len(needle) - 1)
        return at if at >= 0 else None
    found = state.norm().find(needle, start + 1)
    return found[0] if found is not None and found[0] < end else None


def _search(needle: str, state: DocumentPlacement) -> tuple[int, int, str, bool] | None:
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


def placed_chunks(state: DocumentPlacement, label: str, headings: Headings | None) -> tuple[Chunk, ...]:
    """The document's placed chunks sorted by span and indexed from 0; a record's own heading
    path wins over the one ``headings`` gives (none without it)."""
    placed = sorted(state.placed, key=lambda item: (item[1], item[2]))
    paths = headings(state.document) if headings is not None else None
    out = []
    for index, (record, start, end) in enumerate(placed):
        if record.heading_path is not None:
            path = record.heading_path
        else:
            path = paths.path(start) if paths is not None else ()
        out.append(Chunk(state.document.id, index, start, end, record.prefix, label, path))
    return tuple(out)

