"""``inspector.measure.sizes``: percentiles as the article computes them, size statistics, the cap."""

from __future__ import annotations

import pytest

from inspector.measure.sizes import SizeStats, cap_report, percentile


def test_percentile_interpolates_like_the_article():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 99) == 10
    assert percentile([], 50) == 0.0
    assert percentile([1, 100], 90) == pytest.approx(90.1)


def test_size_stats_and_cap_report():
    stats = SizeStats.of([10, 20, 30, 40, 400])
    assert (stats.count, stats.p50, stats.max) == (5, 30, 400)
    report = cap_report([10, 40, 300, 510, 520], cap=512, runt_tokens=32, overhead=2)
    assert report.runt_ratio == pytest.approx(1 / 5)
    assert report.over_cap == (4,)  # 510 + 2 special tokens still fits 512
