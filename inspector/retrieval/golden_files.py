"""Reading golden sets as the field writes them, and locating every quote once.

Three formats, told apart by their first line:

- **JSON Lines** (ours): one object per line with ``question`` and ``evidence`` (a quote, or a
  list of quotes), or Chroma-style ``references``; optionally ``doc_id`` (or ``corpus_id``)
  and ``folder`` (its group in the breakdown; by default the top folder of its document), and
  ``kind``: what the answer needs besides the quote (``heading``, ``next-paragraph``,
  ``table-header``, ``exception`` or any label), scored apart as boundary questions.
- **Chroma's ``questions_df.csv``** as published: columns ``question``, ``references`` (a JSON
  list of ``{"content", "start_index", "end_index"}``, offsets into the corpus file) and
  ``corpus_id`` (a file name, with or without its extension).
- **CSV** with a header: ``question`` and ``evidence``, optionally ``doc_id``, ``folder`` and ``kind``.

A quote is compared without its leading and trailing whitespace (offsets move with it). With
offsets, the quote must be at them: that occurrence, not another copy, answers the question;
when the text at the offsets differs, the nearest copy is taken and reported. Without offsets a
quote is found verbatim, else with whitespace normalised (reported), and any copy answers. A
question any of whose quotes cannot be found is reported and left out.

The work a set may ask for is bounded, not only its bytes: at most ``MAX_QUESTIONS`` questions,
``MAX_QUOTES`` quotes in one and ``MAX_QUOTES_IN_ALL`` in all (the rest are reported and left
out); a quote shorter than ``MIN_QUOTE_CHARACTERS`` is too short to be evidence and one found in
more than ``MAX_PLACES`` places too common to tell which chunk answers (both reported, never
searched further); JSON is read with ``limits.read_json``'s bounds.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from ..chunks.matching import DocumentMatcher, NormalisedText
from ..chunks.records import iter_lines, read_source
from ..limits import MAX_GOLDEN_BYTES, read_json
from ..model import Document

Location = tuple[str, int, int]
FORMATS: tuple[str, ...] = ("jsonl", "chroma-csv", "csv")
#: The boundary kinds the article names; a golden set may use any other label too.
BOUNDARY_KINDS: tuple[str, ...] = ("heading", "next-paragraph", "table-header", "exception")
MAX_KIND_LENGTH = 40
#: Questions read from one golden set (the rest are left out, as for question files).
MAX_QUESTIONS = 10_000
#: Quotes one question may give, and quotes over the whole set.
MAX_QUOTES = 32
MAX_QUOTES_IN_ALL = 20_000
#: The shortest quote that is evidence: a short sentence (shorter ones are found everywhere).
MIN_QUOTE_CHARACTERS = 12
#: The most places a quote may be found in (a quote found more often answers nothing in particular).
MAX_PLACES = 100
_FORMAT_HELP = ("a golden set is JSON Lines (one {\"question\": ..., \"evidence\": ...} per line), Chroma's "
                "questions_df.csv (question, references, corpus_id) or a CSV with question and evidence columns")


@dataclass(frozen=True, slots=True)
class Quote:
    """One piece of evidence, located."""

    text: str
    """The quote, without leading or trailing whitespace."""

    locations: tuple[Location, ...]
    """Every ``(doc_id, start, end)`` that answers: one when offsets pinned it, else every copy."""

    match: str = "exact"
    """``exact``, ``offsets`` (at the given offsets), ``moved`` (the nearest copy to offsets
    that did not hold it) or ``normalised`` (found only with whitespace normalised)."""


@dataclass(frozen=True, slots=True)
class GoldenItem:
    """One question with its evidence located in the corpus."""

    line: int
    """Line of the golden file (from 1; the CSV's row, its header being line 1)."""

    question: str
    """The question, as a user would ask it."""

    quotes: tuple[Quote, ...]
    """Its evidence: one quote or several."""

    folder: str
    """Group for the per-folder breakdown."""

    kind: str = ""
    """What the answer needs besides the quote (``BOUNDARY_KINDS`` or any label); empty: unlabelled."""

    @property
    def evidence(self) -> str:
        """The first quote."""
        return self.quotes[0].text

    @property
    def locations(self) -> tuple[Location, ...]:
        """Where the first quote is."""
        return self.quotes[0].locations

    @property
    def match(self) -> str:
        """``normalised`` when a quote matched only so, else how the first one was found."""
        return "normalised" if any(q.match == "normalised" for q in self.quotes) else self.quotes[0].match


@dataclass(frozen=True, slots=True)
class GoldenProblem:
    """A golden-set line that was left out or matched loosely."""

    line: int
    """Line of the golden file."""

    kind: str
    """``malformed``, ``unknown-document``, ``not-found``, ``too-short``, ``too-common``,
    ``too-many`` (left out), ``normalised`` or ``moved`` (kept)."""

    message: str
    """What happened, in words."""


@dataclass(frozen=True, slots=True)
class GoldenSet:
    """The questions that could be located, and the lines that could not."""

    name: str
    """File name, for labels."""

    items: tuple[GoldenItem, ...]
    """Located questions, in file order."""

    problems: tuple[GoldenProblem, ...]
    """Lines left out, and quotes found only loosely."""

    format: str = "jsonl"
    """One of ``FORMATS``."""

    @property
    def quotes(self) -> int:
        """Quotes over all located questions."""
        return sum(len(item.quotes) for item in self.items)

    def left_out(self) -> int:
        """Lines that are not among the items."""
        return sum(1 for p in self.problems if p.kind not in ("normalised", "moved"))


def folder_of(doc_id: str) -> str:
    """The top folder of a document id (``"."`` for a document at the root)."""
    return doc_id.split("/", 1)[0] if "/" in doc_id else "."


def locate(evidence: str, documents: list[Document], normalised: dict | None = None,
           limit: int = MAX_PLACES) -> tuple[list[Location], str]:
    """Where a quote is: every verbatim occurrence, else every whitespace-normalised one
    (``normalised`` caches each document's ``NormalisedText`` across calls). The search stops
    at ``limit`` + 1 places: more than ``limit`` is an answer in itself."""
    normalised = {} if normalised is None else normalised
    found: list[Location] = []
    for document in documents:
        at = document.text.find(evidence)
        while at >= 0 and len(found) <= limit:
            found.append((document.id, at, at + len(evidence)))
            at = document.text.find(evidence, at + 1)
    if found:
        return found, "exact"
    for document in documents:
        if len(found) > limit:
            break
        twin = normalised.get(document.id)
        if twin is None:
            twin = normalised[document.id] = NormalisedText(document.text)
        found += [(document.id, a, b) for a, b in twin.find_all(evidence, limit + 1 - len(found))]
    return found, "normalised" if found else "missing"


class _Left(Exception):
    """A line left out, as a problem."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.problem = (kind, message)


def load_golden(source: str | Path | bytes, corpus, *, name: str | None = None,
                searched: list[Document] | None = None) -> GoldenSet:
    """Read a golden set (a path, or its content as ``bytes``) in any of ``FORMATS`` and locate
    every quote in ``corpus`` (a ``Corpus``, ``Workspace`` or list of documents). ``searched``:
    the only documents that may hold a quote (the others are named by the records, never
    searched: a streamed corpus passes them without their text)."""
    text, name = read_source(source, name, "golden set", MAX_GOLDEN_BYTES)
    documents = list(corpus) if isinstance(corpus, (list, tuple)) else list(corpus.documents)
    reader = _Locator(documents, documents if searched is None else searched)
    kind, records = _records(text, name)
    items, problems = [], []
    for line, record in _bounded(records):
        try:
            if isinstance(record, tuple):
                raise _Left(*record)
            if isinstance(record, str):
                raise _Left("malformed", record)
            item, notes = reader.item(line, record)
        except _Left as left:
            problems.append(GoldenProblem(line, *left.problem))
            continue
        items.append(item)
        problems += [GoldenProblem(line, k, m) for k, m in notes]
    return GoldenSet(name, tuple(items), tuple(problems), kind)


def _bounded(records):
    """The records up to ``MAX_QUESTIONS`` and ``MAX_QUOTES_IN_ALL`` quotes, then one
    ``(kind, message)`` saying the rest were left out (they are not parsed)."""
    quotes = 0
    for count, (line, record) in enumerate(records):
        if count == MAX_QUESTIONS:
            yield line, ("too-many", f"more than {MAX_QUESTIONS:,} questions; this one and the rest are left out")
            return
        if isinstance(record, dict):
            quotes += _quote_count(record)
            if quotes > MAX_QUOTES_IN_ALL:
                yield line, ("too-many", f"more than {MAX_QUOTES_IN_ALL:,} quotes in all; this question and "
                                         "the rest are left out")
                return
        yield line, record


def _quote_count(record: dict) -> int:
    found = record.get("references", record.get("evidence"))
    return len(found) if isinstance(found, list) else 1


def _records(text: str, name: str):
    """The format, and ``(line, dict or why not)`` per record."""
    first = next((line for _, line in iter_lines(text)), "")
    if first.lstrip().startswith("{") or not (name.lower().endswith(".csv") or "question" in first.lower()):
        return "jsonl", _json_records(text)
    rows = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(rows, [])]
    if "question" not in header:
        return "csv", [(1, f"the CSV header has no 'question' column; {_FORMAT_HELP}")]
    kind = "chroma-csv" if "references" in header else "csv"
    return kind, _csv_records(rows, header)


def _json_records(text: str):
    for line, raw in iter_lines(text):
        try:
            record = read_json(raw)
        except ValueError as exc:
            yield line, f"not valid JSON ({exc}); {_FORMAT_HELP}"
            continue
        yield line, record if isinstance(record, dict) else f"not a JSON object; {_FORMAT_HELP}"


def _csv_records(rows, header: list[str]):
    csv.field_size_limit(MAX_GOLDEN_BYTES)  # a quote may be long; the file is bounded already
    try:
        for row in rows:
            if not any(cell.strip() for cell in row):
                continue
            line = rows.line_num
            if len(row) != len(header):
                yield line, f"{len(row)} cells where the header has {len(header)}"
                continue
            record: dict = dict(zip(header, row))
            if "references" in record:
                try:
                    record["references"] = read_json(record["references"])
                except ValueError as exc:
                    yield line, ("'references' is not a JSON list of {\"content\", \"start_index\", "
                                 f"\"end_index\"}} ({exc})")
                    continue
            yield line, {k: v for k, v in record.items() if v != "" or k == "references"}
    except csv.Error as exc:
        yield rows.line_num, f"not readable as CSV ({exc}); {_FORMAT_HELP}"


def quote_texts(source: str | Path | bytes, name: str | None = None) -> set[str]:
    """Every quote a golden set's well-formed records give, as it is looked for (stripped)."""
    text, name = read_source(source, name, "golden set", MAX_GOLDEN_BYTES)
    out = set()
    for _, record in _bounded(_records(text, name)[1]):
        if isinstance(record, dict):
            try:
                quotes = [content.strip() for content, _ in _wanted_quotes(record)]
            except _Left:
                continue
            out.update(quote for quote in quotes if len(quote) >= MIN_QUOTE_CHARACTERS)
    return out


class _Locator:
    """Turns records into located questions."""

    def __init__(self, documents: list[Document], searched: list[Document]) -> None:
        self.documents = documents
        self.searched = searched
        self.matcher = DocumentMatcher(documents)
        self.twins: dict = {}

    def item(self, line: int, record: dict) -> tuple[GoldenItem, list[tuple[str, str]]]:
        question = record.get("question")
        if not isinstance(question, str) or not question.strip():
            raise _Left("malformed", "needs a non-empty 'question' string")
        wanted = _wanted_quotes(record)
        scope = self.searched
        doc_ref = record.get("doc_id", record.get("corpus_id"))
        if isinstance(doc_ref, str) and doc_ref.strip():
            target = self.matcher.resolve(doc_ref)
            if isinstance(target, str):
                raise _Left("unknown-document", target)
            scope = [target]
        quotes, notes = [], []
        for number, (content, offsets) in enumerate(wanted, 1):
            quote, note = self.quote(content, offsets, scope, number if len(wanted) > 1 else 0)
            quotes.append(quote)
            if note:
                notes.append(note)
        folder = record.get("folder")
        folder = folder if isinstance(folder, str) and folder else folder_of(quotes[0].locations[0][0])
        return GoldenItem(line, question, tuple(quotes), folder, _kind(record.get("kind"))), notes

    def quote(self, content: str, offsets: tuple[int, int] | None, scope: list[Document], number: int):
        what = f"quote {number}" if number else "evidence"
        text = content.strip()
        if len(text) < MIN_QUOTE_CHARACTERS:
            raise _Left("too-short", f"{what} {text[:MIN_QUOTE_CHARACTERS]!r} is {len(text)} character"
                                     f"{'s' * (len(text) != 1)}: too short to be evidence (at least "
                                     f"{MIN_QUOTE_CHARACTERS}, a short sentence); question left out")
        lead, trail = len(content) - len(content.lstrip()), len(content) - len(content.rstrip())
        if offsets is not None:
            start, end = offsets[0] + lead, offsets[1] - trail
            pinned = [(d.id, start, end) for d in scope if d.text[start:end] == text]
            if len(pinned) == 1:
                return Quote(text, tuple(pinned), "offsets"), None
        found, how = locate(text, scope, self.twins)
        if len(found) > MAX_PLACES:
            raise _Left("too-common", f"{what} is found in more than {MAX_PLACES} places: too common to tell "
                                      "which chunk answers; question left out")
        if how == "missing":
            where = (scope[0].id if scope is not self.searched else
                     self.documents[0].id if len(self.documents) == 1 else "the corpus")
            raise _Left("not-found", f"{what} not in {where}, verbatim or with whitespace normalised; "
                                     "question left out")
        if offsets is not None:
            nearest = min(found, key=lambda loc: (abs(loc[1] - start), loc[1]))
            return Quote(text, (nearest,), "moved"), (
                "moved", f"{what} is not at its offsets {offsets[0]}–{offsets[1]}; the nearest copy, at "
                         f"{nearest[1]}–{nearest[2]} of {nearest[0]}, is used")
        if how == "normalised":
            return Quote(text, tuple(found), how), ("normalised", f"{what} found only with whitespace normalised")
        return Quote(text, tuple(found), how), None


def _kind(kind) -> str:
    """A question's boundary kind as written (spaces and case folded: ``Table header`` is
    ``table-header``), or why it is refused."""
    if kind is None:
        return ""
    if not isinstance(kind, str) or len(kind) > MAX_KIND_LENGTH:
        raise _Left("malformed", f"'kind' is a label of at most {MAX_KIND_LENGTH} characters, e.g. "
                                 + ", ".join(BOUNDARY_KINDS))
    return "-".join(kind.lower().replace("_", " ").split())


def _wanted_quotes(record: dict) -> list[tuple[str, tuple[int, int] | None]]:
    """The record's quotes with their offsets, when it gives them."""
    evidence, references = record.get("evidence"), record.get("references")
    if references is not None:
        if not isinstance(references, list) or not references:
            raise _Left("malformed", "'references' must be a non-empty list of {\"content\", \"start_index\", "
                                     "\"end_index\"}")
        out = []
        for ref in references:
            content = ref.get("content") if isinstance(ref, dict) else None
            if not isinstance(content, str) or not content.strip():
                raise _Left("malformed", "every reference needs a non-empty 'content' string")
            out.append((content, _offsets(ref)))
        return _few(out)
    quotes = [evidence] if isinstance(evidence, str) else evidence
    if not isinstance(quotes, list) or not quotes or not all(isinstance(q, str) and q.strip() for q in quotes):
        raise _Left("malformed", "needs non-empty 'question' and 'evidence' strings (or a list of quotes, "
                                 "or Chroma's 'references')")
    return _few([(q, None) for q in quotes])


def _few(quotes: list) -> list:
    if len(quotes) > MAX_QUOTES:
        raise _Left("malformed", f"{len(quotes):,} quotes; a question gives at most {MAX_QUOTES}")
    return quotes


def _offsets(reference: dict) -> tuple[int, int] | None:
    start, end = reference.get("start_index"), reference.get("end_index")
    if start is None and end is None:
        return None
    try:
        start, end = int(start), int(end)
    except (TypeError, ValueError):
        raise _Left("malformed", f"offsets must be whole numbers, got {str(start)[:20]!r}–{str(end)[:20]!r}") from None
    if not 0 <= start < end:
        raise _Left("malformed", f"offsets {start}–{end} do not make a span")
    return start, end
