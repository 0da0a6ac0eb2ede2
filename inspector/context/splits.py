"""Writing the ``llm`` chunker's answers through an OpenAI-compatible chat endpoint, planned and
priced first.

A document's prompts follow one another (each window starts where the answer before it cut),
so a plan cannot know its prompts before they are answered; it walks each document twice
instead, once as if every answer named no cut (the fewest prompts) and once as if each named
only its window's first piece (the most), and prices the most. ``write_splits`` then asks for
each missing answer in turn and keeps it at once, so a run stopped anywhere resumes where it
stopped; a document whose prompt fails is reported and the others go on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..atoms.analysis import Analysis
from ..data_folder import document_hash
from ..errors import ContextLineError, ContextServiceError
from ..lengths import get_length
from ..model import Document
from ..spec import SplitterSpec
from ..split.answers import SplitAnswers
from ..split.llm import MAX_ANSWER_TOKENS, Ask, document_run
from .writer import MAX_FAILURES_IN_A_ROW, ChatEndpoint, priced

#: What a plan assumes one answer costs in output tokens ("split after: 3, 7, 12").
EXPECTED_ANSWER_TOKENS = 15


@dataclass(frozen=True, slots=True)
class SplitPlan:
    """What writing a spec's missing answers will send, between two bounds."""

    spec: str
    model: str
    jobs: tuple[int, ...]
    """Indexes of the documents with a missing answer, in corpus order."""

    documents: int
    fewest: int
    """Prompts to send if every answer moves on a whole window."""

    most: int
    """Prompts to send if every answer moves on half a window."""

    fewest_tokens: int
    most_tokens: int
    """o200k tokens of those prompts (the endpoint's own tokenizer may count a little differently)."""

    def cost(self, input_price: float | None, output_price: float | None = None) -> float | None:
        """Dollars at most, at prices per million tokens; None without an input price."""
        if input_price is None:
            return None
        return (self.most_tokens * input_price + self.most * EXPECTED_ANSWER_TOKENS * (output_price or 0.0)) / 1e6

    def summary(self, input_price: float | None = None, output_price: float | None = None) -> str:
        """The plan in one sentence."""
        text = (f"{self.documents:,} documents, {self.documents - len(self.jobs):,} split with answers kept from "
                f"{self.model}: {self.fewest:,} to {self.most:,} prompts to send, "
                f"{self.fewest_tokens:,} to {self.most_tokens:,} input tokens")
        return text + priced(self.cost(input_price, output_price), input_price, output_price, "at most")


@dataclass(frozen=True, slots=True)
class SplitFailure:
    """A document whose cuts could not be written."""

    doc_id: str
    reason: str


@dataclass(frozen=True, slots=True)
class SplitRun:
    """What a run did."""

    sent: int
    finished: int
    """Documents whose every answer is now kept."""

    failures: tuple[SplitFailure, ...]
    not_sent: int = 0
    """Documents left when the run stopped after ``MAX_FAILURES_IN_A_ROW`` failures in a row."""


def _checked(spec: SplitterSpec) -> SplitterSpec:
    spec = spec.base
    if not spec.needs_answers:
        raise ContextLineError(f"{spec} is not an llm chunker: only llm:BUDGET;llm=MODEL asks a model where to cut")
    return spec


def plan_splits(documents: Sequence[Document], analyses: Sequence[Analysis], spec: SplitterSpec,
                store: SplitAnswers) -> SplitPlan:
    """The documents whose cuts under ``spec`` need answers not kept yet, and the bounds of what
    asking for them sends."""
    spec = _checked(spec)
    length, tokens = get_length(spec.unit), get_length("o200k")
    jobs, counts = [], [0, 0, 0, 0]
    for index, (document, analysis) in enumerate(zip(documents, analyses)):
        kept = store.answers(spec.options.answered_by, document_hash(document.text))
        if document_run(document, spec, analysis, length, kept).missing is None:
            continue
        jobs.append(index)
        for bound, answer_of in enumerate((lambda ask: "", lambda ask: f"split after: {ask.first + 1}")):
            sent: list[str] = []
            document_run(document, spec, analysis, length, kept,
                         lambda ask, answer_of=answer_of, sent=sent: sent.append(ask.prompt) or answer_of(ask))
            counts[bound] += len(sent)
            counts[2 + bound] += sum(tokens.count_many(sent))
    return SplitPlan(str(spec), spec.options.answered_by, tuple(jobs), len(documents), counts[0], counts[1], counts[2],
                     counts[3])


def write_splits(plan: SplitPlan, documents: Sequence[Document], analyses: Sequence[Analysis],
                 endpoint: ChatEndpoint, store: SplitAnswers,
                 progress: Callable[[int, int], None] | None = None) -> SplitRun:
    """Ask ``endpoint`` for every missing answer of ``plan``'s documents, keeping each as it
    comes; a document whose prompt fails is reported and the run goes on, unless
    ``MAX_FAILURES_IN_A_ROW`` documents fail in a row."""
    spec = _checked(SplitterSpec.parse(plan.spec))
    if endpoint.model != plan.model:
        raise ContextLineError(f"the plan is for {plan.model}, the endpoint's model is {endpoint.model}")
    length = get_length(spec.unit)
    failures: list[SplitFailure] = []
    sent = finished = in_a_row = 0
    for done, index in enumerate(plan.jobs):
        document = documents[index]
        key = document_hash(document.text)

        def ask(prompt: Ask, key=key) -> str:
            nonlocal sent
            answer = endpoint.answer(prompt.prompt, MAX_ANSWER_TOKENS, "split points")
            sent += 1
            store.put(plan.model, key, prompt.digest, answer)
            return answer

        try:
            document_run(document, spec, analyses[index], length, store.answers(plan.model, key), ask)
        except ContextServiceError as exc:
            failures.append(SplitFailure(document.id, str(exc)))
            in_a_row += 1
            if in_a_row >= MAX_FAILURES_IN_A_ROW:
                return SplitRun(sent, finished, tuple(failures), len(plan.jobs) - done - 1)
        else:
            in_a_row = 0
            finished += 1
        if progress:
            progress(done + 1, len(plan.jobs))
    return SplitRun(sent, finished, tuple(failures))
