"""Fixtures of the views' tests."""

from __future__ import annotations

import pytest

from inspector import Workspace, load_corpus
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    """Six documents of the sample corpus, enough for tables and cuts, quick to measure."""
    corpus = load_corpus(SAMPLE)
    return Workspace(list(corpus.documents[:6]), "markdown")
