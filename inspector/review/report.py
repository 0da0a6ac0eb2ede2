"""A round's report: what a team takes to a meeting, as Markdown and as JSON.

The round's definition and link, its reviewers, the orphan rate by majority with its 95%
interval, each question's "no" rate and agreement, Fleiss' kappa, the chunks the reviewers
split on with their text, and every change of mind. The same report is the Results tab's download and what
``chunk-inspector review ROUND`` prints. Names and texts come from reviewers and documents: in
the Markdown, table cells are escaped and chunk texts stand in fences longer than any run of
backticks they hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from ..confidence import Interval, rate
from .agreement import AnswerHistory, RoundSummary, answer_marks, kappa_reading, summarize
from .answers import Answer, StoredRound
from .model_review import Calibration, Estimate
from .rounds import QUESTIONS

#: The page a round's link opens.
ROUND_PAGE = "orphan-test"
_CELL = re.compile(r"([\\`*_{}\[\]<>|#!~])")


@dataclass(frozen=True, slots=True)
class RoundReport:
    """One round's results, ready to print or to serialise."""

    stored: StoredRound
    summary: RoundSummary
    link: str
    """The round's link: ``BASE/orphan-test?...`` (relative to the app when no base is known)."""

    texts: Mapping[str, str]
    """Chunk texts by chunk id, for the disagreements (empty: the corpus was not at hand)."""

    history: AnswerHistory = AnswerHistory((), 0)
    """Every change of mind, and the saves that only repeated an answer."""

    calibration: Calibration | None = None
    """A chat model as one more reviewer, against the team's majority (``chunk-inspector review --model``)."""

    estimate: Estimate | None = None
    """The corpus's orphan rate as that model answers more chunks drawn from it (``--sample``)."""

    @property
    def majority(self) -> Interval | None:
        """Chunks whose majority says orphan, of those with a majority (ties left out), with the
        interval; None before any verdict."""
        decided = [c for c in self.summary.chunks if c.verdict != "tie"]
        if not decided:
            return None
        return rate(sum(c.verdict == "orphan" for c in decided), len(decided))

    def question_noes(self) -> dict[str, tuple[int, int]]:
        """Per question key: "no" answers of every reviewer, and answers."""
        judged = sum(t.judged for t in self.summary.reviewers)
        return {q.key: (sum(t.noes[q.key] for t in self.summary.reviewers), judged) for q in QUESTIONS}

    def to_dict(self) -> dict:
        """JSON-ready values: the round, its link, the majority's rate and interval, per question,
        the summary and the disagreements with their text."""
        majority = self.majority
        return {
            "round": self.stored.round.to_dict(), "round_id": self.stored.id, "created": self.stored.created,
            "link": self.link, "chunks": self.stored.total,
            "reviewers": [t.reviewer for t in self.summary.reviewers],
            "orphan_rate": None if majority is None else {
                "value": majority.value, "low": majority.low, "high": majority.high, "orphans": majority.hits,
                "decided": majority.count, "ties": len(self.summary.ties)},
            "questions": {key: {"noes": noes, "answers": answers, "kappa": self.summary.kappa_by_question[key].value}
                          for key, (noes, answers) in self.question_noes().items()},
            "kappa": self.summary.kappa.to_dict(),
            "summary": self.summary.to_dict(),
            "disagreements": [{**c.to_dict(), "text": self.texts.get(c.chunk_id)} for c in self.summary.disagreements],
            "changes": [c.to_dict() for c in self.history.changes], "repeated_saves": self.history.repeated,
            "model": None if self.calibration is None else {
                **self.calibration.to_dict(), "sample": None if self.estimate is None else self.estimate.to_dict()},
        }

    def markdown(self) -> str:
        """The report as Markdown."""
        definition = self.stored.round
        summary = self.summary
        lines = [f"# Orphan Test: round {definition.id}", "",
                 f"- Splitter: `{definition.spec}` ({definition.mode} atoms), {self.stored.total} chunks, "
                 f"seed {definition.seed}, drawn from {_source(definition)}",
                 f"- Corpus: {definition.corpus}", f"- Link: <{self.link}>", f"- Drawn: {self.stored.created}",
                 f"- Reviewers ({len(summary.reviewers)}): "
                 + (", ".join(_cell(t.reviewer) for t in summary.reviewers) or "none yet"), ""]
        majority = self.majority
        lines += ["## Orphan rate", ""]
        if majority is None:
            lines.append("No chunk has a verdict yet.")
        else:
            lines.append(f"By majority: **{majority.hits} of {majority.count}** chunks are orphans "
                         f"({majority.value:.0%}, 95% interval {majority.low:.0%} to {majority.high:.0%})"
                         + (f"; {len(summary.ties)} tied chunks left out" if summary.ties else "") + ".")
        kappa = summary.kappa
        agreement = (f"Fleiss' κ {kappa.value:.2f} ({kappa_reading(kappa.value)}), over the {kappa.chunks} chunks "
                     f"every reviewer answered ({kappa.left_out} left out)" if kappa.value is not None
                     else f"Fleiss' κ: n/a ({kappa.note})")
        lines += ["", f"Agreement on the verdict: {agreement}.", "", "## Per question", "",
                  "| Question | No answers | Rate | Fleiss' κ |", "|---|---:|---:|---:|"]
        for question in QUESTIONS:
            noes, answers = self.question_noes()[question.key]
            value = summary.kappa_by_question[question.key].value
            lines.append(f"| {question.title} | {noes} of {answers} | {noes / answers:.0%} | "
                         f"{'n/a' if value is None else f'{value:.2f}'} |" if answers else
                         f"| {question.title} | 0 of 0 | n/a | n/a |")
        lines += ["", "## Reviewers", "", "| Reviewer | Chunks | Orphans | Orphan rate |", "|---|---:|---:|---:|"]
        lines += [f"| {_cell(t.reviewer)} | {t.judged} | {t.orphans} | "
                  f"{'n/a' if t.orphan_rate is None else f'{t.orphan_rate:.0%}'} |" for t in summary.reviewers]
        lines += ["", f"## Where reviewers disagree ({len(summary.disagreements)})", ""]
        if not summary.disagreements:
            lines.append("No disagreement." if len(summary.reviewers) > 1 else
                         "Disagreements need answers from two or more reviewers.")
        for verdict in summary.disagreements:
            lines += [f"### Chunk {verdict.position}: {verdict.orphan_votes} orphan, {verdict.fine_votes} fine", "",
                      f"Chunk id `{verdict.chunk_id}`; no answers: " + ", ".join(
                          f"{q.title} {verdict.noes[q.key]}" for q in QUESTIONS), ""]
            text = self.texts.get(verdict.chunk_id)
            lines += [*_fenced(text), ""] if text is not None else ["(the chunk's text: give the corpus)", ""]
        lines += self._changes() + self._model()
        return "\n".join(lines).rstrip() + "\n"

    def _model(self) -> list[str]:
        c = self.calibration
        if c is None:
            return []
        lines = ["", f"## Model reviewer: model: {_cell(c.model)}", "",
                 f"Against the team's majority on {c.compared} chunks (ties left out): Cohen's κ {c.kappa_said}"
                 + ("" if c.agreement is None else f", the same verdict on {c.agreement:.0%}") + ".",
                 f"Per question, the team's majority shared: {c.per_question_said}."]
        if c.unanswered:
            lines.append(c.unanswered_said(_cell))
        if self.estimate is not None:
            lines += ["", "### The corpus, as the model answers it", "",
                      self.estimate.said(self.stored.round.seed + 1, c)]
        return lines

    def _changes(self) -> list[str]:
        changes, repeated = self.history.changes, self.history.repeated
        lines = [f"## Changed answers ({len(changes)})", "",
                 "Every save is kept; the latest answer counts. "
                 + f"{repeated} save{'s' * (repeated != 1)} repeated the answer already saved.", ""]
        if changes:
            lines += ["| Chunk | Reviewer | Was | Now | Changed at (UTC) |", "|---:|---|---|---|---|"]
            lines += [f"| {c.after.position} | {_cell(c.after.reviewer)} | {answer_marks(c.before)} | "
                      f"{answer_marks(c.after)} | {c.after.updated[:19].replace('T', ' ')} |" for c in changes]
        return lines


def round_report(stored: StoredRound, answers: Sequence[Answer], *, texts: Mapping[str, str] | None = None,
                 base_url: str = "", history: AnswerHistory | None = None) -> RoundReport:
    """``stored``'s report from its ``answers``; ``texts`` the chunks' texts by id, ``base_url``
    the app's address for the link, ``history`` the round's saves read (``answer_history``)."""
    summary = summarize(answers, round_id=stored.id, label=stored.round.label)
    link = f"{base_url.rstrip('/')}/{ROUND_PAGE}?" + urlencode({"spec": stored.round.spec,
                                                               **stored.round.to_query_params()})
    return RoundReport(stored, summary, link if base_url else link.lstrip("/"), dict(texts or {}),
                       history or AnswerHistory((), 0))


def _source(definition) -> str:
    if definition.source == "sample":
        return "every chunk"
    if definition.source == "probe":
        return f"the probe's top {definition.k} ({definition.retriever})"
    return f"your questions' top {definition.k} ({definition.retriever})"


def _cell(text: str) -> str:
    """Text safe in a Markdown table cell or list item: one line, markup escaped."""
    return _CELL.sub(r"\\\1", " ".join(str(text).split()))


def _fenced(text: str) -> list[str]:
    """``text`` in a fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + "text", text, fence]
