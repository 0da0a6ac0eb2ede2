"""The user's own questions: read from a file, kept by id, asked instead of the probe's queries.

A question file holds questions as the user's system is asked them, with no evidence (a file
with evidence is a golden set: ``golden_files``). Read, by its first line:

- **JSON Lines**: one object per line with ``question`` (or ``query``), optionally
  ``retrieved``: what the user's system returned for it, a list of chunk texts or of chunk
  objects in any form the importer reads (``text``, ``doc_id``, ``start`` / ``end``, ``chunk_id``);
  a line may also be a bare JSON string;
- **CSV** with a ``question`` (or ``query``) column, optionally ``retrieved`` as a JSON list;
- **plain text**: one question per line.

A ``QuestionSet`` is named by a digest of its questions, so the Orphan Test can draw a round from
what a retriever returns for them and a colleague's link finds the same questions
(``QuestionSetStore``, in the data folder).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..chunks.records import ChunkRecord, RecordProblem, iter_lines, read_source, to_record
from ..errors import ImportChunksError, QuestionsError
from ..limits import MAX_GOLDEN_BYTES, read_json

#: The most questions one file may hold (each is ranked against every chunk).
MAX_QUESTIONS = 10_000
#: The longest question read (a question is a sentence or two, not a document).
MAX_QUESTION_CHARS = 2_000
#: The data folder's subfolder of kept question sets.
QUESTION_SETS = "question-sets"
_ID = re.compile(r"^[0-9a-f]{16}$")
_FORMAT_HELP = ("a question file is JSON Lines ({\"question\": ..., \"retrieved\": [...]} per line), a CSV with a "
                "'question' column, or plain text with one question per line")


@dataclass(frozen=True, slots=True)
class UserQuestion:
    """One question, with what the user's system retrieved for it (when the file says)."""

    line: int
    """Line of the file (from 1; a CSV's header is line 1)."""

    text: str
    """The question."""

    retrieved: tuple[ChunkRecord, ...] = ()
    """The chunks the user's system returned, as given (placed on the corpus by the importer)."""


@dataclass(frozen=True, slots=True)
class QuestionProblem:
    """A line of a question file that was left out."""

    line: int
    message: str


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """The questions of one file, in file order."""

    name: str
    """File name, for labels."""

    items: tuple[UserQuestion, ...]
    """The questions read."""

    problems: tuple[QuestionProblem, ...] = ()
    """Lines left out, and why."""

    @property
    def id(self) -> str:
        """16 hex digits naming the questions (their texts, in order)."""
        digest = hashlib.blake2b(digest_size=8)
        for item in self.items:
            digest.update(item.text.encode("utf-8", "surrogatepass") + b"\0")
        return digest.hexdigest()

    @property
    def texts(self) -> list[str]:
        return [item.text for item in self.items]

    @property
    def has_retrieved(self) -> bool:
        """True when the file says what the user's system retrieved."""
        return any(item.retrieved for item in self.items)

    def retrieved_records(self) -> tuple[list[ChunkRecord], list[list[int]]]:
        """Every chunk the user's system retrieved, each once (the same document, offsets and
        text), and per question the positions of its chunks among them, in rank order."""
        positions: dict[tuple, int] = {}
        out, per_question = [], []
        for item in self.items:
            mine = []
            for record in item.retrieved:
                key = (record.doc_ref, str(record.start), str(record.end), record.text)
                if key not in positions:
                    positions[key] = len(out)
                    out.append(record)
                mine.append(positions[key])
            per_question.append(mine)
        return out, per_question

    def to_json(self) -> str:
        """The questions alone (what a round needs), for the store."""
        return json.dumps({"name": self.name, "questions": self.texts}, ensure_ascii=False)


def load_questions(source: str | Path | bytes, *, name: str | None = None) -> QuestionSet:
    """Read a question file (a path, or its content as ``bytes``); ``QuestionsError`` when it
    cannot be read at all, every bad line a ``QuestionProblem``."""
    try:
        text, name = read_source(source, name, "question file", MAX_GOLDEN_BYTES)
    except ImportChunksError as exc:
        raise QuestionsError(str(exc)) from None
    items: list[UserQuestion] = []
    problems: list[QuestionProblem] = []
    for line, value in _rows(text, name):
        if isinstance(value, QuestionProblem):
            problems.append(value)
            continue
        if len(items) >= MAX_QUESTIONS:
            problems.append(QuestionProblem(line, f"more than {MAX_QUESTIONS:,} questions; the rest are left out"))
            break
        items.append(value)
    return QuestionSet(name, tuple(items), tuple(problems))


def _rows(text: str, name: str):
    first = next((line for _, line in iter_lines(text)), "").lstrip()
    if first.startswith(("{", '"', "[")) or name.lower().endswith((".jsonl", ".ndjson", ".json")):
        yield from _json_rows(text)
    elif name.lower().endswith(".csv") or re.match(r"(?i)^\"?(question|query)\"?\s*,", first):
        yield from _csv_rows(text)
    else:
        for line, raw in iter_lines(text):
            yield line, _question(line, raw.strip(), None)


def _json_rows(text: str):
    for line, raw in iter_lines(text):
        try:
            value = read_json(raw)
        except ValueError as exc:
            yield line, QuestionProblem(line, f"not valid JSON ({exc}); {_FORMAT_HELP}")
            continue
        if isinstance(value, str):
            yield line, _question(line, value, None)
        elif isinstance(value, dict):
            yield line, _question(line, value.get("question", value.get("query")), value.get("retrieved"))
        else:
            yield line, QuestionProblem(line, f"not a question or an object; {_FORMAT_HELP}")


def _csv_rows(text: str):
    rows = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(rows, [])]
    column = next((h for h in ("question", "query") if h in header), None)
    if column is None:
        yield 1, QuestionProblem(1, f"the CSV header has no 'question' column; {_FORMAT_HELP}")
        return
    csv.field_size_limit(MAX_GOLDEN_BYTES)
    try:
        for row in rows:
            if not any(cell.strip() for cell in row):
                continue
            record = dict(zip(header, row))
            retrieved = record.get("retrieved") or None
            if retrieved is not None:
                try:
                    retrieved = read_json(retrieved)
                except ValueError:
                    yield rows.line_num, QuestionProblem(rows.line_num, "'retrieved' is not a JSON list")
                    continue
            yield rows.line_num, _question(rows.line_num, record.get(column), retrieved)
    except csv.Error as exc:
        yield rows.line_num, QuestionProblem(rows.line_num, f"not readable as CSV ({exc}); {_FORMAT_HELP}")


def _question(line: int, text, retrieved) -> UserQuestion | QuestionProblem:
    if not isinstance(text, str) or not text.strip():
        return QuestionProblem(line, "needs a non-empty 'question' string")
    text = " ".join(text.split())
    if len(text) > MAX_QUESTION_CHARS:
        return QuestionProblem(line, f"a question is at most {MAX_QUESTION_CHARS:,} characters (this one has "
                                     f"{len(text):,})")
    if retrieved is None:
        return UserQuestion(line, text)
    if not isinstance(retrieved, list):
        return QuestionProblem(line, "'retrieved' must be a list of chunk texts or chunk objects")
    records = []
    for rank, item in enumerate(retrieved, 1):
        record = to_record(line, {"text": item} if isinstance(item, str) else item)
        if isinstance(record, RecordProblem):
            return QuestionProblem(line, f"retrieved chunk {rank}: {record.message}")
        if record.chunk_id == f"line {line}":
            record = ChunkRecord(line, f"line {line} #{rank}", record.doc_ref, record.text, record.start,
                                 record.end, record.prefix, record.heading_path)
        records.append(record)
    return UserQuestion(line, text, tuple(records))


class QuestionSetStore:
    """Question sets by id, one JSON file each, in ``folder`` (the data folder's ``question-sets``)."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = Path(folder)

    def put(self, questions: QuestionSet) -> str:
        """Keep the questions (atomically; nothing when already kept); returns their id."""
        path = self.folder / f"{questions.id}.json"
        if not path.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(questions.to_json())
            os.replace(temporary, path)
        return questions.id

    def get(self, question_set: str) -> QuestionSet:
        """The questions kept under an id; ``QuestionsError`` when there are none."""
        if not _ID.match(question_set or ""):
            raise QuestionsError("a question set id is 16 lowercase hex digits")
        path = self.folder / f"{question_set}.json"
        try:
            data = read_json(path.read_text(encoding="utf-8"))
            texts = data["questions"]
            found = QuestionSet(str(data["name"]), tuple(UserQuestion(n, t) for n, t in enumerate(texts, 1)))
        except FileNotFoundError:
            raise QuestionsError(f"no question set {question_set} on this server; upload its file again") from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise QuestionsError(f"question set {question_set} cannot be read ({exc})") from None
        if found.id != question_set:
            raise QuestionsError(f"question set {question_set} was changed on disk; upload its file again")
        return found
