"""Golden sets: recall of verbatim evidence at a fixed context-token budget.

A golden set is JSONL, one ``{"question": ..., "evidence": ...}`` per line, optionally with
``doc_id`` (where the quote is) and ``folder`` (its group in the breakdown; by default the
top folder of the document the quote is in). Each quote is located in the corpus once, when
the set is loaded: verbatim, else with whitespace normalised (reported), else the question is
reported and left out. A quote found in several places is answered by any of them.

recall@B ranks every chunk against the question's terms with BM25 (the probe's term table,
k1 = 1.2, b = 0.75, ties by corpus order), takes chunks in rank order while their cumulative
embedded size (prefix + span, o200k tokens by default) stays within B, and scores a hit when
one of them holds an evidence span whole. A miss is a *cut* when no chunk holds the evidence
whole (the split broke it), a *rank-miss* when one does but it never came within budget, and
*uncovered* when no chunk touches it at all (imported chunks with gaps).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..chunks.matching import DocumentMatcher, NormalisedText
from ..chunks.records import iter_lines, read_source
from ..lengths import Length, get_length
from ..limits import MAX_GOLDEN_BYTES
from ..model import Chunk, Document
from .bm25 import BM25
from .terms import TermTable, terms_of

DEFAULT_BUDGETS: tuple[int, ...] = (2000, 4000)
OUTCOMES: tuple[str, ...] = ("hit", "cut", "rank-miss", "uncovered")

Location = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class GoldenItem:
    """One question with its evidence located in the corpus."""

    line: int
    """Line of the golden file (from 1)."""

    question: str
    """The question, as a user would ask it."""

    evidence: str
    """The verbatim quote that answers it."""

    folder: str
    """Group for the per-folder breakdown."""

    locations: tuple[Location, ...]
    """Every ``(doc_id, start, end)`` where the quote is."""

    match: str = "exact"
    """``exact``, or ``normalised`` when the quote matched only with whitespace normalised."""


@dataclass(frozen=True, slots=True)
class GoldenProblem:
    """A golden-set line that was left out or matched loosely."""

    line: int
    """Line of the golden file."""

    kind: str
    """``malformed``, ``unknown-document``, ``not-found`` or ``normalised`` (kept)."""

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
    """Lines left out, and quotes found only with whitespace normalised."""


def folder_of(doc_id: str) -> str:
    """The top folder of a document id (``"."`` for a document at the root)."""
    return doc_id.split("/", 1)[0] if "/" in doc_id else "."


def locate(evidence: str, documents: list[Document], normalised: dict | None = None) -> tuple[list[Location], str]:
    """Where a quote is: every verbatim occurrence, else every whitespace-normalised one
    (``normalised`` caches each document's ``NormalisedText`` across calls)."""
    normalised = {} if normalised is None else normalised
    found: list[Location] = []
    for document in documents:
        at = document.text.find(evidence)
        while at >= 0:
            found.append((document.id, at, at + len(evidence)))
            at = document.text.find(evidence, at + 1)
    if found:
        return found, "exact"
    for document in documents:
        twin = normalised.get(document.id)
        if twin is None:
            twin = normalised[document.id] = NormalisedText(document.text)
        found += [(document.id, a, b) for a, b in twin.find_all(evidence)]
    return found, "normalised" if found else "missing"


def load_golden(source: str | Path | bytes, corpus, *, name: str | None = None) -> GoldenSet:
    """Read a golden JSONL file (a path, or its content as ``bytes``) and locate every quote in
    ``corpus`` (a ``Corpus``, ``Workspace`` or list of documents)."""
    text, name = read_source(source, name, "golden set", MAX_GOLDEN_BYTES)
    documents = list(corpus.documents) if hasattr(corpus, "documents") else list(corpus)
    matcher = DocumentMatcher(documents)
    twins: dict = {}
    items, problems = [], []
    for line, raw in iter_lines(text):
        try:
            record = json.loads(raw)
        except ValueError as exc:
            problems.append(GoldenProblem(line, "malformed", f"not valid JSON ({exc})"))
            continue
        if not isinstance(record, dict) or not all(
                isinstance(record.get(k), str) and record[k].strip() for k in ("question", "evidence")):
            problems.append(GoldenProblem(line, "malformed", "needs non-empty 'question' and 'evidence' strings"))
            continue
        scope = documents
        if isinstance(record.get("doc_id"), str):
            target = matcher.resolve(record["doc_id"])
            if isinstance(target, str):
                problems.append(GoldenProblem(line, "unknown-document", target))
                continue
            scope = [target]
        evidence = record["evidence"]
        found, how = locate(evidence, scope, twins)
        if how == "missing":
            where = scope[0].id if len(scope) == 1 else "the corpus"
            problems.append(GoldenProblem(line, "not-found", f"evidence not in {where}, verbatim or with "
                                                             "whitespace normalised; question left out"))
            continue
        if how == "normalised":
            problems.append(GoldenProblem(line, "normalised", "evidence found only with whitespace normalised"))
        folder = record.get("folder") if isinstance(record.get("folder"), str) else folder_of(found[0][0])
        items.append(GoldenItem(line, record["question"], evidence, folder, tuple(found), how))
    return GoldenSet(name, tuple(items), tuple(problems))


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """How one question fared."""

    item: GoldenItem
    """The question."""

    outcomes: tuple[str, ...]
    """Per budget: one of ``OUTCOMES``."""

    rank: int | None
    """1-based rank of the best chunk holding the evidence (None: none scored or none holds it)."""

    tokens_needed: int | None
    """Context tokens needed to reach that chunk (cumulative, itself included)."""


@dataclass(frozen=True, slots=True)
class GoldenResult:
    """recall@B of one chunking, per question, per budget and per folder."""

    label: str
    """What was measured (a spec, or an import's label)."""

    budgets: tuple[int, ...]
    """Context budgets, in ``unit``."""

    unit: str
    """The unit of the budgets (``o200k`` unless chosen otherwise)."""

    questions: tuple[QuestionResult, ...]
    """Every located question."""

    def _column(self, budget: int) -> int:
        return self.budgets.index(budget)

    def counts(self, budget: int) -> dict[str, int]:
        """Questions per outcome at ``budget``."""
        k = self._column(budget)
        out = dict.fromkeys(OUTCOMES, 0)
        for q in self.questions:
            out[q.outcomes[k]] += 1
        return out

    def recall(self, budget: int) -> float:
        """Fraction of questions answered within ``budget``."""
        return self.counts(budget)["hit"] / len(self.questions) if self.questions else 0.0

    def by_folder(self) -> dict[str, dict[int, tuple[int, int]]]:
        """``folder -> budget -> (hits, questions)``, folders sorted."""
        groups: dict[str, list[QuestionResult]] = defaultdict(list)
        for q in self.questions:
            groups[q.item.folder].append(q)
        return {folder: {b: (sum(q.outcomes[k] == "hit" for q in qs), len(qs)) for k, b in enumerate(self.budgets)}
                for folder, qs in sorted(groups.items())}

    def as_dict(self) -> dict:
        """JSON-ready summary."""
        return {
            "label": self.label, "unit": self.unit, "questions": len(self.questions),
            "recall": {str(b): self.recall(b) for b in self.budgets},
            "outcomes": {str(b): self.counts(b) for b in self.budgets},
            "by_folder": {f: {str(b): list(v) for b, v in row.items()} for f, row in self.by_folder().items()},
            "misses": [{"line": q.item.line, "question": q.item.question,
                        "outcomes": dict(zip(map(str, self.budgets), q.outcomes)), "rank": q.rank,
                        "tokens_needed": q.tokens_needed}
                       for q in self.questions if any(o != "hit" for o in q.outcomes)],
        }


def rank_chunks(questions: list[str], chunks: list[Chunk], table: TermTable) -> list[list[int]]:
    """Per question, every chunk sharing a term with it, best BM25 score first (the probe's
    formula and tie-breaking; the query terms are the question's distinct terms)."""
    n = len(chunks)
    words = [list(dict.fromkeys(terms_of(q))) for q in questions]
    wanted = frozenset(w for ws in words for w in ws)
    if not n or not wanted:
        return [[] for _ in questions]
    ranker = BM25(*table.postings([(c.doc_id, c.start, c.end, c.prefix) for c in chunks], wanted))
    return [ranker.top(query, n) for query in words]


def evaluate_golden(golden: GoldenSet, chunks: list[Chunk], table: TermTable, *,
                    budgets: tuple[int, ...] = DEFAULT_BUDGETS, length: Length | str = "o200k",
                    label: str = "") -> GoldenResult:
    """recall@B for each budget over ``chunks`` (corpus order) with ``table``'s term statistics."""
    length = get_length(length)
    budgets = tuple(budgets)
    texts = table.texts
    sizes = length.count_many([c.prefix + texts[c.doc_id][c.start:c.end] for c in chunks])
    by_doc: dict[str, list[int]] = defaultdict(list)
    for j, c in enumerate(chunks):
        by_doc[c.doc_id].append(j)
    rankings = rank_chunks([item.question for item in golden.items], chunks, table)
    results = []
    for item, ranking in zip(golden.items, rankings):
        holders, touching = set(), False
        for doc_id, a, b in item.locations:
            for j in by_doc.get(doc_id, ()):
                c = chunks[j]
                if c.start <= a and b <= c.end:
                    holders.add(j)
                elif c.start < b and a < c.end:
                    touching = True
        rank = tokens = None
        used = 0
        for position, j in enumerate(ranking):
            used += sizes[j]
            if j in holders:
                rank, tokens = position + 1, used
                break
        outcomes = []
        for budget in budgets:
            if tokens is not None and tokens <= budget:
                outcomes.append("hit")
            elif holders:
                outcomes.append("rank-miss")
            else:
                outcomes.append("cut" if touching else "uncovered")
        results.append(QuestionResult(item, tuple(outcomes), rank, tokens))
    return GoldenResult(label, budgets, getattr(length, "name", str(length)), tuple(results))


def golden_recall(workspace, golden: GoldenSet, spec, *, budgets: tuple[int, ...] = DEFAULT_BUDGETS,
                  length: Length | str = "o200k", label: str | None = None) -> GoldenResult:
    """``evaluate_golden`` for the chunks ``spec`` names in ``workspace`` (a built-in or
    library splitter, or imported chunks as ``imported:ID``); ``label`` names them (default
    the spec)."""
    return evaluate_golden(golden, workspace.chunks(spec), workspace.term_table(), budgets=budgets, length=length,
                           label=label or str(spec))
