"""Intervals that cover what they claim, and paired tests that tell a real difference from noise."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.confidence import (
    Z95,
    binomial_tail,
    clustered_rate,
    mcnemar,
    mean,
    paired,
    paired_groups,
    questions_needed,
    rate,
    wilson,
)


def test_wilson_matches_the_textbook_values():
    # 0 of 10: the upper bound is z²/(n + z²), 0.2775 at 95%.
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(Z95 ** 2 / (10 + Z95 ** 2), abs=1e-12)
    # 195 of 200 (97.5%): the interval is asymmetric, longer on the side away from 1.
    low, high = wilson(195, 200)
    assert (round(100 * low, 1), round(100 * high, 1)) == (94.3, 98.9)
    assert wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


def test_rate_prints_its_count_and_compact_form():
    answered = rate(195, 200)
    assert answered.text() == "97.5% [94.3, 98.9]"
    assert answered.as_dict() == {"value": 0.975, "low": answered.low, "high": answered.high, "of": 200, "hits": 195}


def test_wilson_covers_a_known_rate_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    for truth, n in ((0.7, 200), (0.95, 200), (0.4, 50)):
        hits = rng.binomial(n, truth, size=4000)
        covered = sum(low <= truth <= high for low, high in (wilson(int(h), n) for h in hits))
        assert 0.93 <= covered / len(hits) <= 0.97, (truth, n, covered / len(hits))


def tallied(pairs) -> list:
    return list(Counter(pairs).items())


def _clusters(rng, documents: int, truth: float) -> list:
    # Each document has its own rate around the truth (its atoms are not independent) and its own size.
    sizes = rng.integers(5, 40, size=documents)
    rates = rng.beta(truth * 8, (1 - truth) * 8, size=documents)
    return tallied((int(rng.binomial(c, r)), int(c)) for c, r in zip(sizes, rates))


def test_the_cluster_bootstrap_covers_a_known_rate():
    # Sizes are independent of the rates, so the population's pooled rate is the mean rate.
    rng = np.random.default_rng(2)
    truth = 0.8
    runs = 400
    covered = 0
    for _ in range(runs):
        found = clustered_rate(_clusters(rng, 60, truth), resamples=1000, seed=int(rng.integers(1 << 30)))
        covered += found.low <= truth <= found.high
    assert 0.93 <= covered / runs <= 0.97


def test_clusters_that_disagree_widen_the_interval_beyond_wilsons():
    # Half the documents keep everything, half nothing: 50% of 400 atoms, but really two outcomes.
    clustered = clustered_rate([((20, 20), 10), ((0, 20), 10)])
    independent = rate(200, 400)
    assert clustered.high - clustered.low > 2 * (independent.high - independent.low)
    assert clustered.clusters == 20 and clustered.count == 400 and clustered.hits == 200


def test_clusters_that_all_agree_fall_back_to_wilson():
    found = clustered_rate(tallied([(5, 5), (7, 7), (30, 30)]))
    assert (found.low, found.high) == wilson(42, 42) and found.value == 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(1, 30)).map(lambda p: (min(p), p[1])),
                min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_the_cluster_interval_holds_its_estimate_and_ignores_document_order(clusters, random):
    found = clustered_rate(tallied(clusters), resamples=200)
    shuffled = list(clusters)
    random.shuffle(shuffled)
    assert clustered_rate(tallied(shuffled), resamples=200) == found
    # A tally is a count of documents: the same as listing each document once.
    assert clustered_rate([(pair, 1) for pair in clusters], resamples=200) == found
    assert 0.0 <= found.low <= found.value <= found.high <= 1.0


def test_resampling_a_tally_is_resampling_its_documents():
    # A document-by-document bootstrap and the tally's multinomial draws agree in distribution.
    rng = np.random.default_rng(7)
    pairs = [(int(rng.integers(0, c + 1)), int(c)) for c in rng.integers(1, 20, size=80)]
    found = clustered_rate(tallied(pairs), resamples=4000)
    hits, counts = np.array(pairs).T
    rows = rng.integers(0, len(pairs), size=(4000, len(pairs)))
    direct = np.percentile(hits[rows].sum(axis=1) / counts[rows].sum(axis=1), [2.5, 97.5])
    assert found.low == pytest.approx(direct[0], abs=0.01) and found.high == pytest.approx(direct[1], abs=0.01)


def test_a_mean_per_question_gets_a_bootstrap_interval():
    rng = np.random.default_rng(3)
    values = rng.normal(500, 80, size=200)
    found = mean(values, resamples=4000)
    half = Z95 * values.std(ddof=1) / math.sqrt(len(values))
    assert found.low == pytest.approx(values.mean() - half, rel=0.01)
    assert found.high == pytest.approx(values.mean() + half, rel=0.01)
    assert mean(values, resamples=4000) == found  # seeded


def test_mcnemar_exact_values():
    assert mcnemar(0, 6) == pytest.approx(2 / 64)
    assert mcnemar(1, 3) == pytest.approx(2 * 5 / 16)
    assert mcnemar(4, 4) == 1.0 and mcnemar(0, 0) == 1.0
    # Large counts take the log-space tail; it agrees with the exact sum where both work.
    assert binomial_tail(400, 1000) == pytest.approx(
        math.fsum(math.comb(1000, i) for i in range(401)) / 2 ** 1000, rel=1e-9)


def _splitters(rng, questions: int, only_first: int, only_second: int, both: int):
    """Hit lists of two constructed splitters: ``both`` questions answered by both, then each
    one's own, in a shuffled order."""
    first = [1] * both + [1] * only_first + [0] * only_second
    second = [1] * both + [0] * only_first + [1] * only_second
    first += [0] * (questions - len(first))
    second += [0] * (questions - len(second))
    order = rng.permutation(questions)
    return [first[i] for i in order], [second[i] for i in order]


def test_the_paired_test_finds_a_real_difference_and_only_it():
    rng = np.random.default_rng(4)
    a, b = _splitters(rng, 200, 14, 2, 150)
    real = paired(a, b)
    assert real.significant and (real.only_first, real.only_second) == (14, 2)
    assert real.difference == pytest.approx(12 / 200) and real.low > 0 and real.wins > 0.99
    assert real.needed is not None and real.needed <= 200
    noise = paired(*_splitters(rng, 200, 3, 1, 190))
    assert not noise.significant and noise.p_value == pytest.approx(0.625)
    assert noise.needed > 200  # more questions would likely separate them at this difference
    same = paired(a, a)
    assert not same.significant and same.difference == 0 and same.needed is None


def test_questions_needed_gives_about_80_percent_power():
    rng = np.random.default_rng(5)
    share_first, share_second = 0.06, 0.02
    n = questions_needed(6, 2, 100)
    assert n == questions_needed(60, 20, 1000)  # a share, not a count
    draws = rng.multinomial(n, [share_first, share_second, 1 - share_first - share_second], size=2000)
    power = np.mean([mcnemar(int(x), int(y)) < 0.05 for x, y, _ in draws])
    assert 0.7 <= power <= 0.9


def test_paired_values_use_the_bootstrap():
    rng = np.random.default_rng(6)
    base = rng.normal(0.5, 0.2, size=150)
    better = paired(base + 0.05 + rng.normal(0, 0.05, size=150), base)
    assert better.significant and better.only_first is None and 0.04 < better.difference < 0.06
    assert not paired(base + rng.normal(0, 0.05, size=150), base).significant
    with pytest.raises(ValueError, match="same questions"):
        paired([1, 0], [1])


def _documents(rng, n: int, keep: float, atoms: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """``n`` documents, each with 1 to ``atoms`` atoms and its own chance to keep them around
    ``keep`` (documents differ, so atoms of one document are not independent)."""
    counted = rng.integers(1, atoms + 1, size=n)
    chance = np.clip(rng.normal(keep, 0.1, size=n), 0, 1)
    return rng.binomial(counted, chance), counted


def _grouped(kept, counted) -> tuple:
    return tuple((g, int(h), int(c)) for g, (h, c) in enumerate(zip(kept, counted)))


def test_the_grouped_paired_test_finds_the_documents_a_splitter_cuts():
    """Two constructed splitters on 40 documents: one keeps every atom whole; the other cuts one
    atom in each of 10 known documents. The difference is exactly what was cut; it is real, and
    the same split against itself, or a cut in one document only, is not."""
    counted = np.arange(40) % 7 + 2
    whole = _grouped(counted, counted)
    cut = counted.copy()
    cut[::4] -= 1  # documents 0, 4, ..., 36
    cutting = _grouped(cut, counted)
    real = paired_groups(whole, cutting)
    assert real.difference == pytest.approx(10 / counted.sum()) and real.count == 40
    assert real.significant and real.low > 0 and real.wins > 0.99
    assert not paired_groups(whole, whole).significant and paired_groups(whole, whole).difference == 0
    once = counted.copy()
    once[5] -= 1
    lucky = paired_groups(whole, _grouped(once, counted))
    assert not lucky.significant and lucky.needed > 40  # one document is no evidence
    alone = paired_groups(((3, 5, 5),), ((3, 0, 5),))
    assert alone.difference == 1.0 and not alone.significant, "one document: nothing to resample"
    assert paired_groups(whole[::-1], cutting) == real, "groups, not their order"


def test_the_grouped_paired_test_is_wrong_about_5_percent_of_the_time_when_splitters_are_alike():
    rng = np.random.default_rng(7)
    wrong = 0
    for _ in range(300):
        kept, counted = _documents(rng, 60, 0.8)
        # Two splitters alike on average: each document's atoms kept by the same chance, drawn apart.
        other = rng.binomial(counted, np.clip(kept / counted, 0.05, 0.95))
        first = rng.binomial(counted, np.clip(kept / counted, 0.05, 0.95))
        wrong += paired_groups(_grouped(first, counted), _grouped(other, counted), resamples=400).significant
    assert 0.01 <= wrong / 300 <= 0.09


def test_the_grouped_paired_test_has_the_power_it_promises():
    """With as many documents as ``needed`` says, drawn like the ones seen, the difference seen
    is found about 80% of the time."""
    rng = np.random.default_rng(8)
    kept, counted = _documents(rng, 50, 0.8)
    first = rng.binomial(counted, np.clip(kept / counted + 0.03, 0, 1))
    second = rng.binomial(counted, np.clip(kept / counted, 0, 1))
    seen = paired_groups(_grouped(first, counted), _grouped(second, counted))
    assert not seen.significant and seen.needed is not None and 50 < seen.needed < 5000
    found = 0
    for _ in range(100):
        drawn = rng.integers(0, 50, size=seen.needed)
        found += paired_groups(_grouped(first[drawn], counted[drawn]), _grouped(second[drawn], counted[drawn]),
                               resamples=300).significant
    assert 0.65 <= found / 100 <= 0.93
