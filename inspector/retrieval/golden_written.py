"""Golden sets this tool writes: questions with excerpts placed at exact offsets, in Chroma's
CSV format (``question``, ``references``, ``corpus_id``) with one more column, ``written_by``,
saying where each question came from. Every command reads the file back as it reads Chroma's
``questions_df.csv``: each excerpt is pinned at its offsets."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..csv_cells import csv_text
from ..model import Document, Span
from .probe import Query

#: What the ``written_by`` column says of questions drawn from figure sentences, with no model.
PROBE_AUTHOR = "probe: the three longest words of a figure sentence (no model)"
COLUMNS = ("question", "references", "corpus_id", "written_by")
_WORD = re.compile(r"\w+")
#: Words too common to tell whether a question gives its answer away.
_COMMON = frozenset("""a an and are as at be by can do does for from has have how in is it its of on or that the
their this to was what when where which who why will with""".split())


@dataclass(frozen=True, slots=True)
class WrittenQuestion:
    """One question and the excerpts of one document that answer it."""

    question: str
    doc_id: str
    excerpts: tuple[Span, ...]
    written_by: str


def chroma_csv(questions: Sequence[WrittenQuestion], documents: Sequence[Document]) -> str:
    """The questions as Chroma's CSV, ``written_by`` last (through the project's one CSV writer:
    a cell a spreadsheet would run as a formula is neutralised)."""
    texts = {document.id: document.text for document in documents}
    rows = []
    for item in questions:
        text = texts[item.doc_id]
        references = [{"content": text[a:b], "start_index": a, "end_index": b} for a, b in item.excerpts]
        rows.append([item.question, json.dumps(references, ensure_ascii=False), item.doc_id, item.written_by])
    return csv_text(COLUMNS, rows)


def probe_questions(documents: Sequence[Document], queries: Sequence[Query]) -> list[WrittenQuestion]:
    """The probe's queries as questions: its words, answered by its figure sentence."""
    return [WrittenQuestion(" ".join(query.words), query.doc_id, (query.evidence,), PROBE_AUTHOR)
            for query in queries]


def words(text: str) -> set[str]:
    """A text's words, lower-cased, the commonest left out."""
    return {word for word in _WORD.findall(text.lower()) if word not in _COMMON}


def gives_away(question: str, excerpts: Sequence[str]) -> bool:
    """Whether every word of the excerpts is in the question: it can be answered by reading it."""
    asked = words(question)
    return all(words(excerpt) <= asked for excerpt in excerpts)


def near(one: set[str], other: set[str], alike: float = 0.8) -> bool:
    """Whether two questions' word sets are ``alike`` or more the same (Jaccard)."""
    if not one or not other:
        return one == other
    return len(one & other) / len(one | other) >= alike
