"""Writing context lines through an OpenAI-compatible chat endpoint, planned and priced first.

For each chunk the model reads the whole document (a window of ``MAX_DOCUMENT_CHARS`` around
the chunk when the document is longer) and the chunk, and answers one or two sentences that
place the chunk: what it is about and what its references point to. ``plan_lines`` says what
a run will send (chunks without a kept line, input tokens in o200k, a cost when prices are
given) before anything is sent; ``write_lines`` sends it, keeps each line as it arrives, and
reports every chunk that failed while the rest go on. Endpoint, model and key come from the
arguments or the environment: OpenAI, Ollama, vLLM and LM Studio all speak this protocol.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ContextBusy, ContextLineError, ContextServiceError
from ..lengths import get_length
from ..model import Document, Span
from ..retrieval.remote import post_json
from ..retrieval.spending import charge
from .store import ContextStore, document_hash

ENV_URL = "CHUNK_INSPECTOR_CONTEXT_URL"
ENV_MODEL = "CHUNK_INSPECTOR_CONTEXT_MODEL"
ENV_KEY = "CHUNK_INSPECTOR_CONTEXT_KEY"
#: Read when the tool's own variables are not set (the OpenAI client's names).
FALLBACK_URL, FALLBACK_KEY = "OPENAI_BASE_URL", "OPENAI_API_KEY"
#: The longest stretch of a document put in one prompt.
MAX_DOCUMENT_CHARS = 120_000
#: What a line may cost in output tokens (the request's ``max_tokens``), and what a plan assumes one costs.
MAX_OUTPUT_TOKENS = 150
EXPECTED_OUTPUT_TOKENS = 60
MAX_LINE_CHARS = 600
#: Failures in a row after which a run stops (the endpoint is down, not one chunk odd).
MAX_FAILURES_IN_A_ROW = 5
SETTINGS_HELP = (f"set {ENV_URL} (or {FALLBACK_URL}) to an OpenAI-compatible base URL such as "
                 f"http://localhost:11434/v1, {ENV_MODEL} to its chat model and, if it needs one, {ENV_KEY} "
                 f"(or {FALLBACK_KEY}); on the command line --context-url and --context-model")

PROMPT = """<document>
{document}
</document>

This passage is taken from the document above:
<passage>
{chunk}
</passage>

Write one or two sentences that place the passage within the document: which document and section it
comes from, what it is about, and what any pronoun or reference in it ("it", "this", "the above")
points to, so that the passage can be understood on its own. Answer with those sentences only."""


@dataclass(frozen=True, slots=True)
class ChatEndpoint:
    """An OpenAI-compatible ``/chat/completions`` endpoint and the model that writes the lines."""

    base_url: str
    model: str
    api_key: str = ""
    attempts: int = 3
    first_pause: float = 0.5
    timeout: float = 120.0

    @classmethod
    def from_settings(cls, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                      environ: Mapping[str, str] | None = None, **options) -> "ChatEndpoint":
        """The endpoint the arguments, else the environment, name; ``ContextLineError`` saying
        what to set when the URL or the model is missing."""
        environ = os.environ if environ is None else environ
        url = (base_url or environ.get(ENV_URL) or environ.get(FALLBACK_URL) or "").strip().rstrip("/")
        model = (model or environ.get(ENV_MODEL) or "").strip()
        if not url or not model:
            missing = "neither is set" if not url and not model else "no endpoint is set" if not url \
                else "no model is set"
            raise ContextLineError(f"context lines need a chat endpoint and a model, and {missing}: " + SETTINGS_HELP)
        if not url.startswith(("http://", "https://")) or any(ord(c) <= 32 for c in url):
            raise ContextLineError(f"a context endpoint starts with http:// or https:// and holds no spaces, "
                                   f"got {url[:80]!r}")
        key = api_key if api_key is not None else environ.get(ENV_KEY) or environ.get(FALLBACK_KEY, "")
        return cls(url, model, key, **options)

    def line(self, prompt: str, sleep: Callable[[float], None] = time.sleep) -> str:
        """The model's answer to ``prompt``, as one clean line."""
        line = " ".join(self.answer(prompt, MAX_OUTPUT_TOKENS, "a context line", sleep).split()).strip("\"' ")
        if not line:
            raise ContextServiceError(f"{self.model} answered an empty line")
        return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS - 1].rstrip() + "…"

    def answer(self, prompt: str, max_tokens: int, what: str = "an answer",
               sleep: Callable[[float], None] = time.sleep) -> str:
        """The model's answer to ``prompt`` as it wrote it, charged to the server's ledger first."""
        charge("chat", self.model, [prompt])  # before anything is sent: it may refuse
        raw = post_json(self.base_url + "/chat/completions",
                        {"model": self.model, "temperature": 0, "max_tokens": max_tokens,
                         "messages": [{"role": "user", "content": prompt}]},
                        api_key=self.api_key, attempts=self.attempts, first_pause=self.first_pause,
                        timeout=self.timeout, sleep=sleep, error=ContextServiceError,
                        what=f"{what} from {self.model}", server="the chat endpoint")
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ContextServiceError(f"{self.base_url} did not answer in OpenAI's chat format "
                                      "({\"choices\": [{\"message\": {\"content\": ...}}]})") from None
        return str(content or "")


def prompt_for(document: Document, start: int, end: int) -> str:
    """The prompt for the chunk ``[start, end)`` of ``document``."""
    text = document.text
    if len(text) > MAX_DOCUMENT_CHARS:
        room = max(0, MAX_DOCUMENT_CHARS - (end - start)) // 2
        first = max(0, min(start - room, len(text) - MAX_DOCUMENT_CHARS))
        text = text[first:first + max(MAX_DOCUMENT_CHARS, end - start)]
    return PROMPT.format(document=text, chunk=document.text[start:end])


@dataclass(frozen=True, slots=True)
class ContextJob:
    """One chunk whose line is to be written."""

    doc_index: int
    span: Span


@dataclass(frozen=True, slots=True)
class ContextPlan:
    """What a run will send."""

    model: str
    jobs: tuple[ContextJob, ...]
    """Chunks without a kept line, in corpus order."""

    chunks: int
    """Chunks in all; ``chunks - len(jobs)`` already have a line."""

    input_tokens: int
    """o200k tokens of every prompt to send (the endpoint's own tokenizer may count a little differently)."""

    @property
    def kept(self) -> int:
        return self.chunks - len(self.jobs)

    def cost(self, input_price: float | None, output_price: float | None = None) -> float | None:
        """Dollars at prices per million tokens (output estimated at ``EXPECTED_OUTPUT_TOKENS``
        a line); None without an input price. Prompt caching, where the endpoint offers it, costs less."""
        if input_price is None:
            return None
        out = len(self.jobs) * EXPECTED_OUTPUT_TOKENS * (output_price or 0.0)
        return (self.input_tokens * input_price + out) / 1_000_000

    def summary(self, input_price: float | None = None, output_price: float | None = None) -> str:
        """The plan in one sentence."""
        sent = len(self.jobs)
        text = (f"{self.chunks:,} chunks, {self.kept:,} with a kept line from {self.model}: "
                f"{sent:,} prompt{'s' * (sent != 1)} to send, {self.input_tokens:,} input tokens")
        return text + priced(self.cost(input_price, output_price), input_price, output_price, "about")


def priced(cost: float | None, input_price: float | None, output_price: float | None, bound: str) -> str:
    """What a plan's summary says of its dollars (nothing without a price), ``bound`` being
    ``about`` or ``at most``."""
    if cost is None:
        return ""
    return (f", {bound} ${cost:,.2f} at ${input_price:g} per million input tokens"
            + (f" and ${output_price:g} per million output tokens" if output_price else ""))


@dataclass(frozen=True, slots=True)
class ContextFailure:
    """A chunk whose line could not be written."""

    doc_id: str
    span: Span
    reason: str


@dataclass(frozen=True, slots=True)
class ContextRun:
    """What a run did."""

    written: int
    failures: tuple[ContextFailure, ...]
    not_sent: int = 0
    """Chunks left when the run stopped after ``MAX_FAILURES_IN_A_ROW`` failures in a row."""


def plan_lines(documents: Sequence[Document], spans: Sequence[Sequence[Span]], store: ContextStore,
               model: str) -> ContextPlan:
    """The chunks of ``spans`` (per document) that have no line from ``model`` yet, and what
    their prompts cost in tokens."""
    jobs, tokens, total = [], 0, 0
    for index, (document, chunk_spans) in enumerate(zip(documents, spans)):
        total += len(chunk_spans)
        kept = store.lines(model, document_hash(document.text))
        missing = [span for span in chunk_spans if span not in kept]
        tokens += prompt_tokens(document, missing)
        jobs += [ContextJob(index, span) for span in missing]
    return ContextPlan(model, tuple(jobs), total, tokens)


def prompt_tokens(document: Document, spans: Sequence[Span]) -> int:
    """What the prompts for the chunks ``spans`` of ``document`` hold, in o200k tokens (the
    document counted whole, at most ``MAX_DOCUMENT_CHARS`` of it, in each)."""
    if not spans:
        return 0
    length = get_length("o200k")
    fixed = length.count(PROMPT.format(document="", chunk="")) + length.count(document.text[:MAX_DOCUMENT_CHARS])
    return sum(fixed + size for size in length.count_many([document.text[a:b] for a, b in spans]))


def plan_key(model: str, corpus: str, spec: str) -> str:
    """What the writing of a plan is claimed under: its model, corpus fingerprint and chunking."""
    return f"{model}\0{corpus}\0{spec}"


def write_lines(plan: ContextPlan, documents: Sequence[Document], endpoint: ChatEndpoint, store: ContextStore,
                progress: Callable[[int, int], None] | None = None, *, claim: str = "",
                holder: str = "") -> ContextRun:
    """Ask ``endpoint`` for every line of ``plan`` and keep each one as it comes; a chunk that
    fails is reported and the run goes on, unless ``MAX_FAILURES_IN_A_ROW`` fail in a row. With
    ``claim`` (``plan_key``), ``holder`` writes the plan alone: ``ContextBusy`` when another
    holder is writing it, and a line another one kept meanwhile is not asked for again."""
    if endpoint.model != plan.model:
        raise ContextLineError(f"the plan is for {plan.model}, the endpoint's model is {endpoint.model}")
    if claim:
        busy = store.claim(claim, holder, len(plan.jobs))
        if busy is not None:
            raise ContextBusy(f"another session is writing these lines ({busy.done:,} of {busy.total:,} written "
                              "so far): they appear here as they are kept, and nothing is sent twice", busy)
    try:
        return _written(plan, documents, endpoint, store, progress, claim, holder)
    finally:
        if claim:
            store.release(claim, holder)


def _written(plan, documents, endpoint, store, progress, claim: str, holder: str) -> ContextRun:
    failures: list[ContextFailure] = []
    written = in_a_row = 0
    hashes: dict[int, str] = {}
    kept: dict[int, dict] = {}
    for done, job in enumerate(plan.jobs):
        document = documents[job.doc_index]
        key = hashes.setdefault(job.doc_index, document_hash(document.text))
        if claim and job.span in kept.setdefault(job.doc_index, store.lines(plan.model, key)):
            continue  # kept by an earlier writer of this plan since the plan was made
        try:
            line = endpoint.line(prompt_for(document, *job.span))
        except ContextServiceError as exc:
            failures.append(ContextFailure(document.id, job.span, str(exc)))
            in_a_row += 1
            if in_a_row >= MAX_FAILURES_IN_A_ROW:
                return ContextRun(written, tuple(failures), len(plan.jobs) - done - 1)
        else:
            in_a_row = 0
            written += store.put(plan.model, key, [(*job.span, line)])
        if claim:
            store.advance(claim, holder, done + 1)
        if progress:
            progress(done + 1, len(plan.jobs))
    return ContextRun(written, tuple(failures))
