"""Shared fixtures: the bundled corpus, loaded once per session in each mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector import Workspace, load_corpus

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_corpus"


@pytest.fixture(scope="session")
def sample_seed() -> Workspace:
    return Workspace(load_corpus(SAMPLE, mode="seed"), "seed")


@pytest.fixture(scope="session")
def sample_markdown() -> Workspace:
    return Workspace(load_corpus(SAMPLE, mode="markdown"), "markdown")
