"""Fixtures of the store tests: the bundled handbook as a pipeline loaded it (front matter kept)
and LangChain's chunks of its files, the chunks most stores here are filled with."""

from __future__ import annotations

import pytest

from inspector import Workspace, load_corpus
from tests.support import stores
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def handbook() -> Workspace:
    return Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))


@pytest.fixture(scope="module")
def chunks() -> list:
    return stores.langchain_chunks(SAMPLE / "handbook")
