"""``inspector.measure.sizes``: percentiles as the article computes them, size statistics, the cap."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.measure.sizes import SizeStats, cap_report, percentile, percentiles


def test_percentile_interpolates_like_the_article():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 99) == 10
    assert percentile([], 50) == 0.0
    assert percentile([1, 100], 90) == pytest.approx(90.1)


def _sorted_list_percentile(values: list, q: float) -> float:
    """The article's definition, on a sorted Python list."""
    if not values:
        return 0.0
    v = sorted(values)
    k = (len(v) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - int(k))


@given(st.lists(st.integers(0, 2**40)), st.lists(st.floats(0, 100), min_size=1, max_size=4))
def test_percentiles_sorted_once_are_the_articles_to_the_digit_from_a_list_or_an_array(values, qs):
    expected = tuple(_sorted_list_percentile(values, q) for q in qs)
    for given_as in (values, array("q", values)):
        found = percentiles(given_as, qs)
        assert list(map(repr, found)) == list(map(repr, expected))
        assert [type(x) for x in found] == [type(x) for x in expected]


def test_size_stats_and_cap_report():
    stats = SizeStats.of([10, 20, 30, 40, 400])
    assert (stats.count, stats.p50, stats.max) == (5, 30, 400)
    report = cap_report([10, 40, 300, 510, 520], cap=512, runt_tokens=32, overhead=2)
    assert report.runt_ratio == pytest.approx(1 / 5)
    assert report.over_cap == (4,)  # 510 + 2 special tokens still fits 512
