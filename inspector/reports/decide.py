"""What a table decides: which rows are really best on its measure, and which only look so.

Rows measured on the same questions are compared with the best row question by question
(``confidence.paired``). The best row is marked only when every other row is significantly
below it; otherwise the rows it cannot be told from are "tied within noise", with the number of
questions that would likely separate the best from the closest of them at the difference seen.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..confidence import Paired, mean, paired, paired_groups, rate

#: From this many rows on, a sentence counts them instead of naming them.
MANY = 8


@dataclass(frozen=True, slots=True)
class Decision:
    """One table's verdict on one measure."""

    measure: str
    """What was compared (``answer@5``, ``recall@2000``)."""

    count: int
    """Questions every row was measured on."""

    best: str
    """The row with the highest value (the first such in table order)."""

    tied: tuple[str, ...]
    """Rows not significantly below the best, closest first (level ones first of all)."""

    below: tuple[str, ...]
    """Rows significantly below the best, in table order."""

    rival: str | None
    """The row the sentence compares the best with: the runner-up when the best is clear, else
    the tied row furthest from it."""

    versus: Paired | None
    """The best against ``rival``."""

    items: str = "questions"
    """What ``count`` counts (``queries`` for the probe)."""

    @property
    def clear(self) -> bool:
        """Whether the best row beats every other row beyond noise."""
        return not self.tied and self.versus is not None

    def sentence(self) -> str:
        """The verdict in one sentence, for the text report and the pages."""
        if self.versus is None:
            return f"{self.best} is the only row on {self.measure}."
        gap = f"{100 * self.versus.difference:.1f} points"
        if self.clear:
            return (f"{self.best} is best on {self.measure}: {gap} over {self.rival}, the runner-up"
                    f"{_evidence(self.versus, self.items)}; every other row is further below.")
        names = _listed((self.best, *self.tied)) if len(self.tied) < MANY else \
            f"{self.best} and {len(self.tied)} other rows"
        below = "" if not self.below else f"; {_listed(self.below)} {'is' if len(self.below) == 1 else 'are'} below" \
            if len(self.below) < MANY else f"; {len(self.below)} rows are below"
        if self.versus.difference == 0:
            return f"{names} are level on {self.measure}{below}."
        return (f"{names} are tied within noise on {self.measure} ({self.best} leads {self.rival} by {gap}"
                f"{_evidence(self.versus, self.items)}{_needed(self.versus, self.count, self.items)}){below}.")

    def as_dict(self) -> dict:
        return {"measure": self.measure, "of": self.count, "best": self.best, "clear": self.clear,
                "tied": list(self.tied), "below": list(self.below), "rival": self.rival,
                "versus": self.versus.as_dict() if self.versus else None, "items": self.items,
                "sentence": self.sentence()}


def decide(measure: str, rows: Sequence[tuple[str, Sequence[float]]], items: str = "questions") -> Decision | None:
    """The verdict on ``rows`` (label, one value per question, the same questions in the same
    order for every row; higher is better; ``items`` names what was asked). None without rows or
    questions."""
    rows = [(label, list(values)) for label, values in rows]
    if not rows or not rows[0][1]:
        return None
    means = [sum(values) / len(values) for _, values in rows]
    return _verdict(measure, [label for label, _ in rows], means,
                    lambda i, j: paired(rows[i][1], rows[j][1]), len(rows[0][1]), items)


def decide_grouped(measure: str, rows: Sequence[tuple[str, Sequence[tuple[int, int, int]]]],
                   documents: int) -> Decision | None:
    """The verdict on rates of atoms grouped by document (label, ``(group, intact, counted)``
    per group of the corpus's ``documents``, as ``SplitSummary.buckets``): the paired cluster
    bootstrap of ``confidence.paired_groups``. None without rows or atoms."""
    rows = [(label, tuple(groups)) for label, groups in rows]
    if not rows or not any(groups for _, groups in rows):
        return None
    means = []
    for _, groups in rows:
        counted = sum(c for _, _, c in groups)
        means.append(sum(h for _, h, _ in groups) / counted if counted else 0.0)
    found = len({g for _, groups in rows for g, _, _ in groups})
    scale = max(1.0, documents / found) if found else 1.0  # documents a group holds, on average

    def test(i: int, j: int) -> Paired:
        tested = paired_groups(rows[i][1], rows[j][1])
        needed = None if tested.needed is None else math.ceil(tested.needed * scale)
        return dataclasses.replace(tested, count=documents, needed=needed)

    return _verdict(measure, [label for label, _ in rows], means, test, documents, "documents")


def _verdict(measure: str, labels: list[str], means: list[float], test: Callable[[int, int], Paired], count: int,
             items: str) -> Decision:
    top = max(range(len(labels)), key=lambda i: (means[i], -i))
    best = labels[top]
    tested = [(label, test(top, i), i) for i, label in enumerate(labels) if i != top]
    if not tested:
        return Decision(measure, count, best, (), (), None, None, items)
    tied = sorted((t for t in tested if not t[1].significant), key=lambda t: (t[1].difference, t[2]))
    below = tuple(label for label, result, _ in tested if result.significant)
    # Tied: the widest gap still within noise says most; clear: the runner-up's gap.
    rival, versus, _ = tied[-1] if tied else min(tested, key=lambda t: (t[1].difference, t[2]))
    return Decision(measure, count, best, tuple(t[0] for t in tied), below, rival, versus, items)


def _evidence(test: Paired, items: str) -> str:
    if test.only_first is not None:
        one = items[:-1] if test.only_first == 1 else items
        return f", {test.only_first} {one} against {test.only_second} of {test.count}, p {p_text(test.p_value)}"
    return f", ahead in {test.wins:.0%} of resamples, p {p_text(test.p_value)}"


def _needed(test: Paired, count: int, items: str) -> str:
    if test.needed is None:
        return ""
    if test.needed <= count:
        return f"; the gap is near significance at {count} {items}"
    return f"; about {test.needed:,} {items} would likely separate them"


def p_text(value: float) -> str:
    """A p-value as the sentences print it: ``= 0.06``, ``= 0.004``, ``< 0.001``."""
    return "< 0.001" if value < 0.001 else f"= {value:.3f}" if value < 0.01 else f"= {value:.2f}"


def _listed(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def hits_of(answered: str) -> list[int]:
    """A row's ``answered`` string as hits."""
    return [int(c == "1") for c in answered]


def answered(hits) -> str:
    """Hits as a row's ``answered`` string."""
    return "".join("1" if hit else "0" for hit in hits)


def probe_intervals(probe) -> dict:
    """Table b's rates with their intervals, and its context with the interval of its mean."""
    return {"answer_at_5": rate(probe.answered, probe.queries).as_dict(),
            "cut": rate(probe.cut, probe.queries).as_dict(), "ctx_tokens": mean(probe.tokens).as_dict()}


def bounds_line(cells: list[tuple[int, dict | None]], lead: int) -> str:
    """A line of intervals under a table row: each ``(width, interval)`` right-aligned like its
    cell above (an empty cell where there is none)."""
    return " " * lead + "".join(f"{bounds_text(interval):>{width}s}" for width, interval in cells)


def percent_cell(value: float | None, width: int) -> str:
    """A share in percent right-aligned in ``width``; ``n/a`` when nothing was counted."""
    return f"{'n/a':>{width}s}" if value is None else f"{value:{width}.1%}"


def bounds_text(interval: dict | None) -> str:
    """``[94.3,98.9]``: an interval in percent, its ends at 0 and 100 written so."""
    if interval is None:
        return ""
    low, high = (f"{v:.1f}" if 0 < v < 100 else f"{v:.0f}" for v in (100 * interval["low"], 100 * interval["high"]))
    return f"[{low},{high}]"


def decision_lines(decision: dict | None) -> list[str]:
    """A table's verdict, wrapped under it."""
    if not decision:
        return []
    import textwrap

    return textwrap.wrap(decision["sentence"], 100, initial_indent="   ", subsequent_indent="   ")
