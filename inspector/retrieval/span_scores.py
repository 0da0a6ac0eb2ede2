"""The field's span metrics (Chroma's "token-level" recall, precision, precision-Ω and IoU),
computed from exact character spans of the corpus.

For one question, with E the union of its evidence spans and R the chunks retrieved (their
spans in the corpus; prefixes are not corpus text and are not counted):

- I = |E ∩ (∪R)|, the evidence characters some retrieved chunk holds;
- recall = I / |E|;
- precision = I / Σ|r| over R (a character retrieved twice, by overlapping chunks, is paid
  twice: it is in the prompt twice);
- IoU = I / (Σ|r| + |E| − I);
- precision-Ω = |E ∩ ∪H| / |(∪H) ∪ E|, H being every chunk that overlaps E: the precision of
  a perfect retriever returning exactly those chunks (a property of the split alone). Chroma's
  code also puts in H a chunk that only touches E (its ``intersect_two_ranges`` keeps an empty
  intersection, ``max(starts) <= min(ends)``), so on chunks that tile the text its precision-Ω
  is lower: both are given, ``touching=True`` being Chroma's.

Chroma's published code counts characters in the same way (its metrics are named after tokens
but sum character ranges); ``docs/metrics.md`` writes the formulas out with a worked example.
Scores are averaged over questions, each mean given with its 95% interval (a bootstrap over the
questions) and, as Chroma prints it, the standard deviation of the questions' scores (``np.std``,
over the questions, not of the mean). When a quote occurs in several places and no offsets pinned
one, the copy the retrieved chunks cover best is the one scored (the first on a tie).
"""

from __future__ import annotations

from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SpanScores:
    """Mean span recall, precision and IoU over a golden set, for one way of cutting the ranking."""

    cut: str
    """``top 5`` (the first five chunks) or ``2000 o200k`` (chunks while they fit the budget)."""

    recall: float
    precision: float
    iou: float
    bounds: tuple[tuple[float, float], ...] = ()
    """The 95% interval of each mean (recall, precision, IoU), a bootstrap over the questions."""

    spread: tuple[float, ...] = ()
    """The standard deviation of the questions' recall, precision and IoU (Chroma's "±")."""

    def as_dict(self) -> dict:
        out = {"recall": self.recall, "precision": self.precision, "iou": self.iou}
        if self.bounds:
            out["intervals"] = {name: list(bound) for name, bound in zip(("recall", "precision", "iou"), self.bounds)}
        if self.spread:
            out["std"] = dict(zip(("recall", "precision", "iou"), self.spread))
        return out


def spread(values) -> float:
    """The population standard deviation of ``values`` (``np.std``'s default, as Chroma's
    tables use it); 0 for none."""
    values = list(values)
    if not values:
        return 0.0
    average = sum(values) / len(values)
    return (sum((v - average) ** 2 for v in values) / len(values)) ** 0.5


def merged(spans) -> list[Span]:
    """Sorted, disjoint, non-empty spans covering the same characters."""
    out: list[list[int]] = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def size(spans: list[Span]) -> int:
    """Characters of merged spans."""
    return sum(b - a for a, b in spans)


def overlap(first: list[Span], second: list[Span]) -> int:
    """Characters in both (each merged)."""
    total, i, j = 0, 0, 0
    while i < len(first) and j < len(second):
        a, b = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if a < b:
            total += b - a
        if first[i][1] <= second[j][1]:
            i += 1
        else:
            j += 1
    return total


def question_scores(evidence: list[Span], retrieved: list[Span]) -> tuple[float, float, float]:
    """``(recall, precision, IoU)`` of one question: ``evidence`` merged, ``retrieved`` as
    returned (repeats and overlaps kept)."""
    held = overlap(evidence, merged(retrieved))
    paid = sum(b - a for a, b in retrieved)
    whole = size(evidence)
    recall = held / whole if whole else 0.0
    precision = held / paid if paid else 0.0
    union = paid + whole - held
    return recall, precision, held / union if union else 0.0


def precision_omega(evidence: list[Span], chunks: list[Span], *, touching: bool = False) -> float:
    """Precision-Ω of one question: ``chunks`` are every chunk of the split (any order); with
    ``touching``, by Chroma's rule: a chunk that only touches the evidence counts as reaching it."""
    if touching:
        reaching = [c for c in chunks if any(c[0] <= b and a <= c[1] for a, b in evidence)]
    else:
        reaching = [c for c in chunks if any(c[0] < b and a < c[1] for a, b in evidence)]
    near = merged(reaching)
    held = overlap(evidence, near)
    union = size(merged(near + evidence))
    return held / union if union else 0.0


def best_copies(copies: list[list[Span]], retrieved: list[Span]) -> list[Span]:
    """For each quote (its possible places), the place the retrieved chunks cover most; merged."""
    covered = merged(retrieved)
    chosen = [max(places, key=lambda s: (overlap([s], covered), -places.index(s))) for places in copies]
    return merged(chosen)
