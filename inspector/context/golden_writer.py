"""Golden sets written from the user's own corpus by a chat model, after Chroma's
``SyntheticEvaluation``.

Each document is shown a stretch at a time (``per_document`` stretches, spread over it, each up to
``STRETCH_CHARS``, a short document shown again); for each, the model writes one question the
stretch answers and copies the sentences that answer it, word for word. The prompt lists the
questions already kept for the document, so none is asked twice. What comes back is checked
before it is kept in the set:

- each excerpt must be in the stretch it was shown, verbatim (its offsets are then exact);
  one that is not, or is shorter than a sentence, is dropped, and a question left with none;
- a question whose excerpts' words are all in it gives its answer away: dropped;
- a question whose words are 80% those of one kept before is a near duplicate: dropped;
- the model is asked the question closed-book, with no document: an answer saying half the
  words of the excerpts or more shows it answerable without the corpus, and it is dropped.

Nothing is sent before the plan is shown (prompts, input tokens, a cost at given prices). Each
answer is kept in the data folder by model, document and prompt as it arrives, so a run stopped
midway resumes and a second run sends nothing and writes the same set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import ContextServiceError
from ..lengths import get_length
from ..model import Document, Span
from ..retrieval.golden_files import MIN_QUOTE_CHARACTERS
from ..retrieval.golden_written import WrittenQuestion, gives_away, near, words
from ..split.answers import SplitAnswers, prompt_digest
from .store import document_hash
from .writer import MAX_FAILURES_IN_A_ROW, ChatEndpoint

STORE_NAME = "golden-questions.sqlite3"
STRETCH_CHARS = 6_000
#: A document shorter than this holds too little to ask about.
MIN_DOCUMENT_CHARS = 200
MAX_OUTPUT_TOKENS = 400
EXPECTED_OUTPUT_TOKENS = 120
MAX_EXCERPTS = 4

PROMPT = """<document title="{title}">
{stretch}
</document>

Write one question that someone using these documents could ask and that the passage above answers.
Then copy the sentences of the passage that answer it, exactly as they are written, word for word:
one to {most} excerpts, each at least a full sentence.{earlier}

Answer with JSON only, in this form: {{"question": "...", "excerpts": ["...", "..."]}}"""
EARLIER = "\nAsk something other than these questions, already written for this document:\n{questions}"
NEEDS_THE_DOCUMENT = "NEEDS THE DOCUMENT"
CLOSED_BOOK = """Answer this question in one or two sentences from what you know, without any document. If it
cannot be answered without the document it was written from, answer exactly: NEEDS THE DOCUMENT.

Question: {question}"""
#: What a plan counts for a closed-book prompt not written yet (its question unknown).
CLOSED_BOOK_TOKENS = 80
_JSON = re.compile(r"\{.*\}", re.S)


def golden_store(folder) -> SplitAnswers:
    """The answers that wrote golden sets, kept in the data folder ``folder``."""
    return SplitAnswers(folder, STORE_NAME, "golden-set answers")


def stretches(text: str, count: int) -> list[Span]:
    """``count`` stretches of ``text`` spread over it, each ending at a paragraph where it can; a
    text too short for that many is shown again (the prompt then lists what was asked)."""
    found = _distinct_stretches(text, count)
    return [found[k % len(found)] for k in range(count)] if found else []


def _distinct_stretches(text: str, count: int) -> list[Span]:
    if len(text.strip()) < MIN_DOCUMENT_CHARS or count < 1:
        return []
    starts = sorted({len(text) * k // count for k in range(count)})
    out = []
    for start in starts:
        if out and start < out[-1][1]:
            continue
        if start:  # begin at a paragraph
            found = text.find("\n\n", start, start + STRETCH_CHARS // 2)
            start = found + 2 if found >= 0 else start
        end = min(len(text), start + STRETCH_CHARS)
        if end < len(text):
            cut = text.rfind("\n\n", start + STRETCH_CHARS // 2, end)
            end = cut if cut > start else end
        if len(text[start:end].strip()) >= MIN_DOCUMENT_CHARS:
            out.append((start, end))
    return out


def prompt_of(document: Document, stretch: Span, earlier: Sequence[str]) -> str:
    listed = EARLIER.format(questions="\n".join(f"- {q}" for q in earlier)) if earlier else ""
    return PROMPT.format(title=document.title or document.id, stretch=document.text[stretch[0]:stretch[1]],
                         most=MAX_EXCERPTS, earlier=listed)


@dataclass
class GoldenRun:
    """What a run kept, dropped and could not ask."""

    questions: list[WrittenQuestion] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    """Why answers or their excerpts were not kept, by reason, with how many."""
    failures: list[tuple[str, str]] = field(default_factory=list)
    """``(document, reason)`` for each prompt the endpoint did not answer."""
    sent: int = 0
    failures_in_a_row: int = 0
    replayed: int = 0
    """Answers read from the kept ones rather than asked."""
    waiting: int = 0
    """Prompts still to send: those a plan counts or a stop left."""
    waiting_tokens: int = 0
    """Their input tokens (o200k), counted by a plan; a prompt after the first waiting one of a
    document is counted without the questions it will list, not yet written."""
    asked_documents: int = 0

    def drop(self, reason: str, count: int = 1) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + count


def write_golden(documents: Sequence[Document], model: str, store: SplitAnswers, *, per_document: int = 2,
                 endpoint: ChatEndpoint | None = None,
                 progress: Callable[[int, int], None] = lambda done, total: None) -> GoldenRun:
    """Walk every document's stretches in order, answering each prompt from the kept answers or,
    with an ``endpoint``, by asking it (and keeping the answer). Without one nothing is sent:
    the run counts what waits, and what it would cost."""
    run = GoldenRun()
    kept_words: list[set[str]] = []
    count = get_length("o200k").count if endpoint is None else None
    for number, document in enumerate(documents, 1):
        progress(number - 1, len(documents))
        asking = _Asking(model, document, store, endpoint, run)
        earlier: list[str] = []
        shown = stretches(document.text, per_document)
        run.asked_documents += bool(shown)
        for position, stretch in enumerate(shown):
            prompt = prompt_of(document, stretch, earlier)
            answer = asking.answer(prompt)
            question = None if answer is None else _checked(answer, document, stretch, model, run, kept_words)
            closed = None if question is None else CLOSED_BOOK.format(question=question.question)
            known = None if closed is None else asking.answer(closed)
            if answer is None or (closed is not None and known is None):
                # What waits: this prompt (or its closed-book check) and the stretches after it,
                # whose prompts list questions not written yet (counted without them).
                rest = shown[position + 1:]
                run.waiting += (2 if answer is None else 1) + 2 * len(rest)
                if count is not None:
                    run.waiting_tokens += (count(prompt) + CLOSED_BOOK_TOKENS if answer is None else count(closed)) \
                        + sum(count(prompt_of(document, later, ())) + CLOSED_BOOK_TOKENS for later in rest)
                break
            if question is not None and answers_without_the_corpus(known, document, question.excerpts):
                run.drop("answerable without the corpus")
                question = None
            if question is not None:
                run.questions.append(question)
                kept_words.append(words(question.question))
                earlier.append(question.question)
        if run.failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            endpoint = None  # the endpoint is down: the rest waits for the next run
    progress(len(documents), len(documents))
    return run


class _Asking:
    """The answers to one document's prompts: kept ones read, missing ones asked (and kept)."""

    def __init__(self, model: str, document: Document, store: SplitAnswers, endpoint: ChatEndpoint | None,
                 run: GoldenRun) -> None:
        self.model, self.document, self.store, self.endpoint, self.run = model, document, store, endpoint, run
        self.hash = document_hash(document.text)
        self.kept = store.answers(model, self.hash)

    def answer(self, prompt: str) -> str | None:
        """The kept or sent answer to ``prompt``; None when it is not kept and cannot be sent."""
        digest = prompt_digest(prompt)
        found = self.kept.get(digest)
        if found is not None:
            self.run.replayed += 1
            return found
        run = self.run
        if self.endpoint is None:
            return None
        try:
            found = self.endpoint.answer(prompt, MAX_OUTPUT_TOKENS, "a golden question")
        except ContextServiceError as exc:
            run.failures.append((self.document.id, str(exc)))
            run.failures_in_a_row += 1
            return None
        run.failures_in_a_row = 0
        run.sent += 1
        self.store.put(self.model, self.hash, digest, found)
        self.kept[digest] = found
        return found


def answers_without_the_corpus(known: str, document: Document, excerpts: Sequence[Span]) -> bool:
    """Whether a closed-book answer says half the words of the excerpts or more: the question
    is then answered from what the model knows, not from the corpus."""
    if NEEDS_THE_DOCUMENT in known.upper():
        return False
    wanted = set().union(*(words(document.text[a:b]) for a, b in excerpts))
    return bool(wanted) and len(wanted & words(known)) >= len(wanted) / 2


def _checked(answer: str, document: Document, stretch: Span, model: str, run: GoldenRun,
             kept_words: list[set[str]]) -> WrittenQuestion | None:
    """The answer's question with its excerpts placed, or None (the reason counted)."""
    try:
        found = json.loads(_JSON.search(answer)[0])
        question = " ".join(str(found["question"]).split())
        excerpts = [str(e) for e in found["excerpts"]][:MAX_EXCERPTS]
    except (TypeError, ValueError, KeyError):
        run.drop("unreadable answer (not the JSON asked for)")
        return None
    if not question:
        run.drop("unreadable answer (not the JSON asked for)")
        return None
    placed: list[Span] = []
    for excerpt in (e.strip() for e in excerpts):
        at = document.text.find(excerpt, stretch[0], stretch[1]) if len(excerpt) >= MIN_QUOTE_CHARACTERS else -1
        if at < 0:
            run.drop("excerpt not in the stretch shown, word for word, or too short")
        elif (at, at + len(excerpt)) not in placed:
            placed.append((at, at + len(excerpt)))
    if not placed:
        run.drop("question left with no excerpt")
        return None
    if gives_away(question, [document.text[a:b] for a, b in placed]):
        run.drop("question gives its answer away")
        return None
    asked = words(question)
    if any(near(asked, other) for other in kept_words):
        run.drop("near duplicate of a question kept")
        return None
    return WrittenQuestion(question, document.id, tuple(sorted(placed)), model)


@dataclass(frozen=True, slots=True)
class GoldenPlan:
    """What writing a golden set will send: at most ``prompts`` prompts (a question's closed-book
    check is asked only of a question kept), about ``input_tokens``."""

    model: str
    documents: int
    prompts: int
    kept: int
    input_tokens: int

    def cost(self, input_price: float | None, output_price: float | None = None) -> float | None:
        if input_price is None:
            return None
        return (self.input_tokens * input_price
                + self.prompts * EXPECTED_OUTPUT_TOKENS * (output_price or 0.0)) / 1_000_000

    def summary(self, input_price: float | None = None, output_price: float | None = None) -> str:
        cost = self.cost(input_price, output_price)
        return (f"up to {self.prompts:,} prompts to {self.model} for {self.documents:,} documents "
                f"({self.kept:,} answers kept), about {self.input_tokens:,} input tokens (o200k)"
                + (f", about ${cost:,.2f}" if cost is not None else ""))


def plan_golden(documents: Sequence[Document], model: str, store: SplitAnswers, per_document: int = 2) -> GoldenPlan:
    """What a run would send: every prompt whose answer is not kept, found by walking the
    documents as a run does, sending nothing."""
    return plan_of(write_golden(documents, model, store, per_document=per_document), model)


def plan_of(dry: GoldenRun, model: str) -> GoldenPlan:
    """The plan a run that sent nothing (``write_golden`` without an endpoint) leaves."""
    return GoldenPlan(model, dry.asked_documents, dry.waiting, dry.replayed, dry.waiting_tokens)
