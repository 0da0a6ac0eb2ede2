"""How sure a number is, and whether two configurations really differ.

Every rate the tool prints is a count out of a denominator: queries answered, questions whose
quotes fit the budget, atoms kept whole. A rate of independent items (a query, a question) gets
Wilson's 95% interval; a rate whose items come in clusters (the atoms of one document are split
by one run of the splitter, so they are not independent) gets a bootstrap over the clusters; a
mean per question (context tokens, span scores) a bootstrap over the questions.

Two configurations measured on the same questions are compared question by question: for a
hit or a miss, McNemar's exact test on the questions only one of them answers; for a value per
question, a paired bootstrap of the mean difference. Every bootstrap draws from one fixed seed,
so a rerun prints the same intervals, and a cluster bootstrap sorts its clusters first, so the
engines (which sum documents in different orders) print the same intervals too.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""

Z_POWER = 0.8416212335729143
"""The normal quantile of 80% power: what "would likely separate them" means."""

RESAMPLES = 1000
"""Bootstrap resamples: a report draws about fifty intervals, each in a millisecond or two; the
ends of a 95% interval move by about half a point between seeds at this count."""

SEED = 35
"""Every bootstrap's seed: the same data give the same interval on every run."""

LEVEL = 0.05
"""A difference is real when a two-sided test at this level says so."""

_BLOCK = 1 << 20  # draws per block of resamples, so that memory stays flat for any corpus


@dataclass(frozen=True, slots=True)
class Interval:
    """A rate or a mean with its 95% interval, and what it is counted over."""

    value: float
    low: float
    high: float
    count: int
    """The denominator: queries, questions or atoms (a mean's number of questions)."""

    hits: int | None = None
    """The numerator of a rate; None for a mean."""

    clusters: int | None = None
    """Documents the items came from, when they were resampled by document."""

    def text(self, percent: bool = True) -> str:
        """``97.5% [94.3, 98.9]``: the compact form the text report prints."""
        if percent:
            return f"{self.value:.1%} [{100 * self.low:.1f}, {100 * self.high:.1f}]"
        return f"{self.value:.0f} [{self.low:.0f}, {self.high:.0f}]"

    def bounds(self) -> str:
        """``[94.3, 98.9]``: the interval alone, in percent."""
        return f"[{100 * self.low:.1f}, {100 * self.high:.1f}]"

    def as_dict(self, clusters: str = "documents") -> dict:
        """JSON-ready fields; ``clusters`` names what was resampled whole (documents, questions)."""
        out = {"value": self.value, "low": self.low, "high": self.high, "of": self.count}
        if self.hits is not None:
            out["hits"] = self.hits
        if self.clusters is not None:
            out[clusters] = self.clusters
        return out


def wilson(hits: int, count: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of ``hits`` out of ``count`` independent trials."""
    if count <= 0:
        return 0.0, 1.0
    p = hits / count
    z2 = z * z
    centre = (p + z2 / (2 * count)) / (1 + z2 / count)
    half = z * math.sqrt(p * (1 - p) / count + z2 / (4 * count * count)) / (1 + z2 / count)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    # At 0 and 1 the interval's edge is the estimate itself; rounding must not leave it outside.
    return (0.0 if hits == 0 else low), (1.0 if hits == count else high)


def rate(hits: int, count: int) -> Interval:
    """A rate of independent items with Wilson's interval."""
    low, high = wilson(hits, count)
    return Interval(hits / count if count else 0.0, low, high, count, hits)


def _resampled_indices(rng, n: int, resamples: int):
    """Blocks of bootstrap index rows (``resamples`` rows of ``n`` draws in all), a block at a
    time so that a large ``n`` never holds ``resamples × n`` numbers."""
    rows = max(1, _BLOCK // max(n, 1))
    done = 0
    while done < resamples:
        take = min(rows, resamples - done)
        yield rng.integers(0, n, size=(take, n))
        done += take


def _percentiles(values, level: float = 0.95) -> tuple[float, float]:
    import numpy as np

    tail = 100 * (1 - level) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def clustered_rate(tally: Iterable[tuple[tuple[int, int], int]], *, resamples: int = RESAMPLES,
                   seed: int = SEED) -> Interval:
    """A rate of items grouped in documents, given as a tally: ``((hits, count), documents)``,
    how many documents had those counts. The interval is the percentile interval of a bootstrap
    that resamples whole documents: Poisson's bootstrap, each document weighted by a Poisson(1)
    draw, so a pair held by n documents is drawn Poisson(n) times and a corpus of a million
    documents costs what its few hundred distinct pairs cost. Where every document agrees (all
    kept, or none) no resample varies; the interval is then Wilson's over the items, the best
    that can be said with no variation seen."""
    import numpy as np

    found: dict[tuple[int, int], int] = {}
    for (h, c), n in tally:
        if c and n:
            found[(h, c)] = found.get((h, c), 0) + n
    kept = sorted(found.items())
    documents = sum(n for _, n in kept)
    hits = sum(h * n for (h, _), n in kept)
    count = sum(c * n for (_, c), n in kept)
    if not count:
        return Interval(0.0, 0.0, 1.0, 0, 0, 0)
    value = hits / count
    if hits in (0, count) or documents == 1:
        low, high = wilson(hits, count)
        return Interval(value, low, high, count, hits, documents)
    h = np.array([pair[0] for pair, _ in kept], dtype=np.float64)
    c = np.array([pair[1] for pair, _ in kept], dtype=np.float64)
    rng = np.random.default_rng(seed)
    many = np.array([n for _, n in kept], dtype=np.float64)
    rates = []
    rows = max(1, _BLOCK // len(kept))
    for done in range(0, resamples, rows):
        # Poisson weights: each document drawn Poisson(1) times, so a pair held by n documents
        # is drawn Poisson(n) times, one array for every resample at once.
        drawn = rng.poisson(many, size=(min(rows, resamples - done), len(kept))).astype(np.float64)
        counted = drawn @ c
        rates.append((drawn @ h)[counted > 0] / counted[counted > 0])  # a resample of no document says nothing
    low, high = _percentiles(np.concatenate(rates))
    return Interval(value, min(low, value), max(high, value), count, hits, documents)


def mean(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED) -> Interval:
    """The mean of one value per question with the percentile interval of a bootstrap over
    the questions."""
    import numpy as np

    data = np.asarray(values, dtype=np.float64)
    if not len(data):
        return Interval(0.0, 0.0, 0.0, 0)
    value = float(data.mean())
    if len(data) == 1 or float(data.min()) == float(data.max()):
        return Interval(value, value, value, len(data))
    rng = np.random.default_rng(seed)
    means = np.concatenate([data[rows].mean(axis=1) for rows in _resampled_indices(rng, len(data), resamples)])
    low, high = _percentiles(means)
    return Interval(value, min(low, value), max(high, value), len(data))


def binomial_tail(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, 1/2), exactly."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return math.fsum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n if n < 1000 else \
        math.exp(_log_tail(k, n))


def _log_tail(k: int, n: int) -> float:
    # Large n: sum the terms in log space from the largest down, so nothing underflows.
    logs = [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)
            for i in range(k + 1)]
    top = max(logs)
    return top + math.log(math.fsum(math.exp(v - top) for v in logs))


def mcnemar(only_first: int, only_second: int) -> float:
    """McNemar's exact two-sided p-value from the discordant pairs: questions only the first
    configuration answers, and questions only the second does."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * binomial_tail(min(only_first, only_second), n))


def questions_needed(only_first: int, only_second: int, count: int) -> int | None:
    """How many questions would likely (80% power) show a difference at the 5% level if the
    share of questions only one configuration answers stayed as observed (Connor's sample size
    for McNemar's test); None when the observed difference is zero."""
    if count <= 0 or only_first == only_second:
        return None
    a, b = only_first / count, only_second / count
    d, psi = a - b, a + b
    n = (Z95 * math.sqrt(psi) + Z_POWER * math.sqrt(max(psi - d * d, 0.0))) ** 2 / (d * d)
    return math.ceil(n)


@dataclass(frozen=True, slots=True)
class Paired:
    """Two configurations compared question by question (``first`` minus ``second``)."""

    difference: float
    """The mean difference: for rates, in points of the fraction (0.03 is three points)."""

    low: float
    high: float
    """The paired bootstrap's 95% interval of the difference."""

    wins: float
    """Share of resamples in which the first is ahead."""

    p_value: float
    """McNemar's exact test for hits and misses; for values, twice the smaller tail share of
    the bootstrap."""

    count: int
    """Questions both were measured on."""

    only_first: int | None = None
    only_second: int | None = None
    """For hits and misses, the questions only one of them answers."""

    needed: int | None = None
    """Questions (or groups of documents) that would likely separate them at the observed
    difference (hits and misses, and grouped rates)."""

    @property
    def significant(self) -> bool:
        """True when the difference is real at the 5% level."""
        return self.p_value < LEVEL

    def as_dict(self) -> dict:
        out = {"difference": self.difference, "low": self.low, "high": self.high, "wins": self.wins,
               "p_value": self.p_value, "significant": self.significant, "of": self.count}
        if self.only_first is not None:
            out.update(only_first=self.only_first, only_second=self.only_second, questions_needed=self.needed)
        elif self.needed is not None:
            out.update(needed=self.needed)
        return out


def paired(first: Sequence[float], second: Sequence[float], *, resamples: int = RESAMPLES,
           seed: int = SEED) -> Paired:
    """``first`` against ``second``, one value each per question in the same order. Hits and
    misses (every value 0 or 1) are tested by McNemar's exact test; other values by the paired
    bootstrap alone."""
    import numpy as np

    a = np.asarray(first, dtype=np.float64)
    b = np.asarray(second, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values need the same questions: {len(a)} against {len(b)}")
    n = len(a)
    if not n:
        return Paired(0.0, 0.0, 0.0, 0.0, 1.0, 0)
    diff = a - b
    value = float(diff.mean())
    if float(diff.min()) == float(diff.max()):
        share, low, high = float(value > 0), value, value
    else:
        rng = np.random.default_rng(seed)
        means = np.concatenate([diff[rows].mean(axis=1) for rows in _resampled_indices(rng, n, resamples)])
        share = float((means > 0).mean())
        low, high = _percentiles(means)
        low, high = min(low, value), max(high, value)
        ahead = share if value >= 0 else float((means < 0).mean())
    binary = bool(np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all())
    if binary:
        only_a, only_b = int(((a == 1) & (b == 0)).sum()), int(((a == 0) & (b == 1)).sum())
        return Paired(value, low, high, share, mcnemar(only_a, only_b), n, only_a, only_b,
                      questions_needed(only_a, only_b, n))
    if float(diff.min()) == float(diff.max()):
        return Paired(value, low, high, share, 1.0 if value == 0 else 0.0, n)
    return Paired(value, low, high, share, min(1.0, 2 * (1 - ahead)), n)


@functools.lru_cache(maxsize=2)
def _poisson_weights(n: int, resamples: int, seed: int) -> tuple:
    """The Poisson(1) weights of ``resamples`` resamples of ``n`` groups, in blocks of at most
    ``_BLOCK`` draws, read-only. Kept: a verdict tests the best row against every other on the
    same groups with the same seed, so each test would draw exactly these again. Kept as bytes (a
    Poisson(1) draw past 255 has odds below 1e-500): 4 MB for 4,096 groups, not 32, each block
    made floats when used."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = max(1, _BLOCK // n)
    blocks = []
    for done in range(0, resamples, rows):
        drawn = rng.poisson(1.0, size=(min(rows, resamples - done), n)).astype(np.uint8)
        drawn.setflags(write=False)
        blocks.append(drawn)
    return tuple(blocks)


def paired_groups(first: Iterable[tuple[int, int, int]], second: Iterable[tuple[int, int, int]], *,
                  resamples: int = RESAMPLES, seed: int = SEED) -> Paired:
    """Two rates of items grouped in documents, compared on the same documents: each given as
    ``(group, hits, count)`` per group of documents. A paired cluster bootstrap: every resample
    weighs each group by one Poisson(1) draw for both rates, so a group's two results stay
    together; the difference is of the pooled rates (first minus second). ``count`` is the
    number of groups; ``needed`` how many would likely (80% power) show the difference seen at
    the 5% level, from the bootstrap's spread."""
    import numpy as np

    a = {g: (h, c) for g, h, c in first}
    b = {g: (h, c) for g, h, c in second}
    groups = sorted(set(a) | set(b))
    n = len(groups)
    if not n:
        return Paired(0.0, 0.0, 0.0, 0.0, 1.0, 0)
    ha, ca = (np.array([a.get(g, (0, 0))[i] for g in groups], dtype=np.float64) for i in (0, 1))
    hb, cb = (np.array([b.get(g, (0, 0))[i] for g in groups], dtype=np.float64) for i in (0, 1))
    if not ca.sum() or not cb.sum():
        return Paired(0.0, 0.0, 0.0, 0.0, 1.0, n)
    value = float(ha.sum() / ca.sum() - hb.sum() / cb.sum())
    differences = []
    for counts in _poisson_weights(n, resamples, seed):
        drawn = counts.astype(np.float64)
        first_n, second_n = drawn @ ca, drawn @ cb
        fine = (first_n > 0) & (second_n > 0)  # a resample of no atom says nothing
        differences.append((drawn @ ha)[fine] / first_n[fine] - (drawn @ hb)[fine] / second_n[fine])
    differences = np.concatenate(differences)
    if float(differences.min()) == float(differences.max()):
        # Every group moves the rates alike: a sign test says how unlikely that is by chance.
        return Paired(value, value, value, float(value > 0), 1.0 if value == 0 else min(1.0, 2 * 0.5 ** n), n)
    low, high = _percentiles(differences)
    ahead = float((differences > 0).mean()) if value >= 0 else float((differences < 0).mean())
    share = float((differences > 0).mean())
    p_value = min(1.0, 2 * (1 - ahead))
    spread = float(differences.std())
    needed = None
    if value and spread:
        needed = math.ceil(n * ((Z95 + Z_POWER) * spread / abs(value)) ** 2)
    return Paired(value, min(low, value), max(high, value), share, p_value, n, needed=needed)
