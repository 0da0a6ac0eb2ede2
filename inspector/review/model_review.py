"""A chat model as an extra Orphan Test reviewer, calibrated against the team.

The model reads each chunk cold, as a reviewer does, and answers the three questions as JSON.
An answer that is not a yes or a no for each question ("maybe", nothing, broken JSON) is kept
as *no answer*, with its reason: never read as a yes. Answers are kept by model, prompt and
chunk text (``ModelAnswers``), so a chunk is asked once. Against the team's majority the model
gets Cohen's kappa on the verdict and its agreement per question; with that agreement known,
its answers on more chunks drawn from the corpus give the corpus's orphan rate with an
interval. Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..confidence import Interval, rate
from ..context.writer import priced
from ..errors import ContextServiceError, ReviewInputError
from ..lengths import get_length
from .agreement import RoundSummary, kappa_reading
from .rounds import MAX_SIZE, QUESTIONS, ReviewRound, RoundChunk, draw

PROMPT = """You are reviewing one chunk that a search system may hand to a language model on its own,
with nothing around it. Read it cold:
<chunk>
{chunk}
</chunk>

Answer three questions about the chunk alone:
- address: Can you tell the document, product and version it belongs to?
- references: Does every "it", "this", "the above" and similar reference resolve inside the chunk?
- completeness: Does every rule, number or table row carry its condition, subject and headers?

Answer with JSON only, each value "yes" or "no": {{"address": "...", "references": "...", "completeness": "..."}}"""
#: Which prompt an answer was given to: a changed prompt asks every chunk again.
PROMPT_ID = hashlib.blake2b(PROMPT.encode("utf-8"), digest_size=6).hexdigest()
MAX_OUTPUT_TOKENS = 60
MODEL_ANSWERS = "model_reviews.sqlite3"
_WORDS = {"yes": True, "no": False, "true": True, "false": False}


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    """What the model said of one chunk: each question's yes (True) or no (False), or nothing
    (``problem`` says why)."""

    address: bool | None
    references: bool | None
    completeness: bool | None
    problem: str = ""

    @property
    def complete(self) -> bool:
        return not self.problem

    @property
    def orphan(self) -> bool | None:
        """Any "no" makes an orphan; None without an answer."""
        return None if self.problem else not (self.address and self.references and self.completeness)


def read_answer(text: str) -> ModelAnswer:
    """The model's reply read: a JSON object (a code fence around it is allowed) whose three
    values are yes or no; anything else is no answer, with the reason."""
    body = re.sub(r"^```[a-z]*\s*|\s*```$", "", (text or "").strip())
    if not body:
        return ModelAnswer(None, None, None, "the model answered nothing")
    try:
        found = json.loads(body)
    except ValueError:
        return ModelAnswer(None, None, None, f"not JSON: {body[:60]!r}")
    if not isinstance(found, dict):
        return ModelAnswer(None, None, None, f"not a JSON object: {body[:60]!r}")
    said = {}
    for question in QUESTIONS:
        value = found.get(question.key)
        word = value if isinstance(value, bool) else _WORDS.get(str(value).strip().lower()) if value is not None \
            else None
        if word is None:
            return ModelAnswer(None, None, None, f"{question.key} is {str(value)[:30]!r}, not yes or no")
        said[question.key] = word
    return ModelAnswer(**said)


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class ModelAnswers:
    """The model's answers kept in the data folder, by model, prompt and chunk text."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / MODEL_ANSWERS
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS model_answers (model TEXT, prompt TEXT, chunk TEXT, "
                       "reply TEXT, answered TEXT DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (model, prompt, chunk))")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get(self, model: str, texts: Sequence[str]) -> dict[str, ModelAnswer]:
        """The kept answers of ``model`` for ``texts``, by text hash."""
        wanted = {text_hash(t) for t in texts}
        with self._connect() as db:
            rows = db.execute("SELECT chunk, reply FROM model_answers WHERE model = ? AND prompt = ?",
                              (model, PROMPT_ID)).fetchall()
        return {chunk: read_answer(reply) for chunk, reply in rows if chunk in wanted}

    def put(self, model: str, text: str, reply: str) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO model_answers (model, prompt, chunk, reply) VALUES (?, ?, ?, ?)",
                       (model, PROMPT_ID, text_hash(text), reply))


@dataclass(frozen=True, slots=True)
class ModelReviewPlan:
    """What asking the model will send: the chunks it has not answered yet."""

    model: str
    texts: tuple[str, ...]
    """Every chunk's text (what the embedder receives), in order."""

    to_ask: tuple[str, ...]
    input_tokens: int

    def cost(self, input_price: float | None, output_price: float | None = None) -> float | None:
        if input_price is None:
            return None
        return (self.input_tokens * input_price + len(self.to_ask) * MAX_OUTPUT_TOKENS * (output_price or 0.0)) / 1e6

    def summary(self, input_price: float | None = None, output_price: float | None = None) -> str:
        cost = self.cost(input_price, output_price)
        kept = len(self.texts) - len(self.to_ask)
        return (f"{len(self.texts):,} chunks, {kept:,} already answered by {self.model}: {len(self.to_ask):,} "
                f"prompt{'s' * (len(self.to_ask) != 1)} to send, {self.input_tokens:,} input tokens"
                + priced(cost, input_price, output_price, "at most"))


def plan_review(texts: Sequence[str], model: str, kept: ModelAnswers) -> ModelReviewPlan:
    answered = kept.get(model, texts)
    to_ask = tuple(dict.fromkeys(t for t in texts if text_hash(t) not in answered))
    tokens = sum(get_length("o200k").count_many([PROMPT.format(chunk=t) for t in to_ask])) if to_ask else 0
    return ModelReviewPlan(model, tuple(texts), to_ask, tokens)


def ask_model(plan: ModelReviewPlan, endpoint, kept: ModelAnswers,
              progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Ask ``endpoint`` (a ``ChatEndpoint``) every chunk of ``plan`` and keep each reply as it
    comes (a reply that is no answer is kept too: asking again would cost the same); the
    failures of the endpoint itself, which are not kept."""
    failures = []
    for done, text in enumerate(plan.to_ask, 1):
        try:
            reply = endpoint.answer(PROMPT.format(chunk=text), MAX_OUTPUT_TOKENS, "an Orphan Test answer")
        except ContextServiceError as exc:
            failures.append(str(exc))
        else:
            kept.put(plan.model, text, reply)
        if progress is not None:
            progress(done, len(plan.to_ask))
    return failures


def cohen_kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa of two raters' yes/no judgements; None when undefined (no pair, or chance
    agreement 1)."""
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    chance = first * second + (1 - first) * (1 - second)
    return None if chance >= 1 else (observed - chance) / (1 - chance)


@dataclass(frozen=True, slots=True)
class Calibration:
    """The model against the team's majority on a round's chunks."""

    model: str
    compared: int
    """Chunks with a team majority (ties left out) and a model answer."""

    kappa: float | None
    """Cohen's kappa on the verdict (orphan or not)."""

    agreement: float | None
    """Share of compared chunks whose verdict the model shares."""

    per_question: Mapping[str, float | None]
    """Per question key: share of chunks with a team majority on it whose answer the model shares."""

    unanswered: tuple[tuple[int, str], ...]
    """Round positions the model gave no answer for, with why."""

    @property
    def kappa_said(self) -> str:
        """Cohen's kappa with its reading, e.g. ``0.62 (substantial)``; ``n/a`` when undefined."""
        return "n/a" if self.kappa is None else f"{self.kappa:.2f} ({kappa_reading(self.kappa)})"

    @property
    def per_question_said(self) -> str:
        """Per question, the share of the team's majority the model shared: ``Address 80% · ...``."""
        shares = {k: "n/a" if v is None else f"{v:.0%}" for k, v in self.per_question.items()}
        return " \u00b7 ".join(f"{q.title} {shares[q.key]}" for q in QUESTIONS)

    def unanswered_said(self, reasons: Callable[[str], str] = str, limit: int | None = None) -> str:
        """The chunks with no answer and why (``reasons`` formats each reason), "" when none."""
        if not self.unanswered:
            return ""
        count = len(self.unanswered)
        return (f"No answer on {count} chunk{'s' * (count != 1)} (counted as none, never as a yes): "
                + "; ".join(f"{p}: {reasons(r)}" for p, r in self.unanswered[:limit]) + ".")

    def to_dict(self) -> dict:
        return {"reviewer": f"model: {self.model}", "compared": self.compared, "kappa": self.kappa,
                "agreement": self.agreement, "per_question": dict(self.per_question),
                "unanswered": [{"position": p, "reason": r} for p, r in self.unanswered]}


def calibrate(model: str, chunks: Sequence[RoundChunk], answers: Mapping[str, ModelAnswer],
              summary: RoundSummary) -> Calibration:
    """The model's answers (by text hash) on ``chunks`` against the majority in ``summary``."""
    by_id = {c.chunk.id: answers.get(text_hash(c.text)) for c in chunks}
    unanswered = tuple((c.position, by_id[c.chunk.id].problem if by_id[c.chunk.id] else "not asked")
                       for c in chunks if by_id[c.chunk.id] is None or not by_id[c.chunk.id].complete)
    pairs, per_question = [], {q.key: [] for q in QUESTIONS}
    for verdict in summary.chunks:
        said = by_id.get(verdict.chunk_id)
        if said is None or not said.complete:
            continue
        raters = verdict.orphan_votes + verdict.fine_votes
        if verdict.verdict != "tie":
            pairs.append((verdict.verdict == "orphan", bool(said.orphan)))
        for q in QUESTIONS:
            noes = verdict.noes[q.key]
            if 2 * noes != raters:
                per_question[q.key].append((2 * noes < raters) == getattr(said, q.key))
    return Calibration(model, len(pairs), cohen_kappa(pairs),
                       sum(a == b for a, b in pairs) / len(pairs) if pairs else None,
                       {k: (sum(v) / len(v) if v else None) for k, v in per_question.items()}, unanswered)


def sample_round(review_round: ReviewRound, size: int) -> ReviewRound:
    """The round's definition drawing ``size`` more chunks with another seed (the round's chunks
    are left out of the estimate by ``estimate``)."""
    if not isinstance(size, int) or not 1 <= size <= MAX_SIZE:
        raise ReviewInputError(f"--sample is a whole number from 1 to {MAX_SIZE}, got {size!r}")
    return replace(review_round, size=min(MAX_SIZE, size + review_round.size), seed=review_round.seed + 1)


def sampled_chunks(review_round: ReviewRound, workspace, size: int, search=None) -> list[RoundChunk]:
    """``size`` chunks of the corpus drawn by the round's definition with another seed, none of
    the round's own (``search``: the server's stores, for a round drawn from one; see ``draw``)."""
    own = {c.chunk.id for c in draw(review_round, workspace, search)}
    return [c for c in draw(sample_round(review_round, size), workspace, search) if c.chunk.id not in own][:size]


@dataclass(frozen=True, slots=True)
class Estimate:
    """The corpus's orphan rate as the model answers a sample of it."""

    drawn: int
    answered: int
    orphans: Interval | None

    def said(self, seed: int, calibration: Calibration) -> str:
        """The estimate in a sentence, with the seed it was drawn with and the agreement it rests on."""
        o = self.orphans
        return (f"{self.drawn} more chunks drawn by the round's definition with seed {seed}: " + (
            "the model answered none." if o is None else
            f"**{o.hits} of {o.count}** answered are orphans ({o.value:.0%}, 95% interval {o.low:.0%} to "
            f"{o.high:.0%}), resting on κ {calibration.kappa_said} over {calibration.compared} chunks the team "
            "judged."))

    def to_dict(self) -> dict:
        o = self.orphans
        return {"drawn": self.drawn, "answered": self.answered,
                "orphan_rate": None if o is None else {"value": o.value, "low": o.low, "high": o.high,
                                                       "orphans": o.hits, "answered": o.count}}


def estimate(chunks: Sequence[RoundChunk], answers: Mapping[str, ModelAnswer]) -> Estimate:
    said = [answers.get(text_hash(c.text)) for c in chunks]
    verdicts = [a.orphan for a in said if a is not None and a.complete]
    return Estimate(len(chunks), len(verdicts), rate(sum(verdicts), len(verdicts)) if verdicts else None)
