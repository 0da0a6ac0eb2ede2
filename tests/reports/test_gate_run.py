"""``reports.gate_run``: one gate run measured, judged and noted without the command line."""

from __future__ import annotations

import pytest

from inspector import Workspace, load_corpus
from inspector.reports.gate_run import GateChunking, GateLimits, run_gate
from inspector.spec import parse_spec
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def workspace():
    return Workspace(load_corpus(SAMPLE), "markdown")


def _chunking(workspace, text: str) -> GateChunking:
    spec = parse_spec(text)
    return GateChunking(workspace, spec, str(spec))


def test_a_floor_it_misses_fails_the_run_and_one_it_holds_passes_it(workspace):
    chunking = _chunking(workspace, "fixed:300")
    held = run_gate(chunking, GateLimits(floors={"answer@5": 0.0}), fingerprint=workspace.fingerprint,
                    retriever=workspace.retriever())
    assert held.result.passed and set(held.values) >= {"answer@5", "cut", "code", "table"}
    missed = run_gate(chunking, GateLimits(floors={"answer@5": 1.01}), fingerprint=workspace.fingerprint,
                      retriever=workspace.retriever())
    assert not missed.result.passed and missed.values == held.values
    answered = held.answered["answer@5"]
    assert len(answered) == len(workspace.queries()) and answered.count("1") / len(answered) == held.values["answer@5"]


def test_a_baseline_of_another_run_is_noted_in_words(workspace):
    first = run_gate(_chunking(workspace, "structured:800"), GateLimits(), fingerprint=workspace.fingerprint,
                     retriever=workspace.retriever())
    baseline = {"spec": "structured:800", "corpus": {"fingerprint": "other"}, "values": first.values}
    again = run_gate(_chunking(workspace, "structured:600"), GateLimits(baseline=baseline),
                     fingerprint=workspace.fingerprint, retriever=workspace.retriever(), expand=1)
    assert "the baseline was written for a different corpus" in again.notes
    assert "the baseline was written for structured:800, this run is structured:600" in again.notes
    assert "the baseline read ±0 neighbours, this run ±1" in again.notes
