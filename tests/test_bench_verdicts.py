"""The benches judge their own targets: a figure a hair over its target is "NOT met" and says
both figures; a store read that stopped early is not met however fast it was."""

from __future__ import annotations

import importlib.util

from tests.support.paths import ROOT


def bench_module(name: str):
    import sys

    sys.path.insert(0, str(ROOT / "bench"))  # as `python bench/x.py` runs it
    try:
        spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def bench_common():
    return bench_module("common")


def test_a_target_is_met_or_not_met_with_its_figures():
    verdict = bench_common().verdict
    assert verdict(0.2, 0.2) == "met (0.2 s <= 0.2 s)"
    assert verdict(0.21, 0.2) == "NOT met (0.21 s > 0.2 s)"
    assert verdict(317, 500, " MB") == "met (317 MB <= 500 MB)"
    assert verdict(1000, 100_000, " chunks", at_least=True) == "NOT met (1000 chunks < 100000 chunks)"
    assert verdict(100_000, 100_000, " chunks", at_least=True).startswith("met")


def test_the_latency_bench_judges_the_median_it_declares():
    latency = bench_module("bench_latency")
    line, said = latency.judged("Document", [0.21, 0.22, 0.2, 0.25], latency.TARGETS["small_median_s"],
                                latency.TARGETS["small_worst_s"])
    assert said == ["median NOT met (0.21 s > 0.2 s)", "worst met (0.25 s <= 0.4 s)"]
    assert "NOT met" in line
