"""Fixtures of the app's AppTest suites."""

from __future__ import annotations

import pytest

from inspector.views.launch import ENV_CORPUS, ENV_ROOTS


@pytest.fixture(autouse=True)
def plain_environment(monkeypatch):
    """No launch settings leak in from the shell running the tests."""
    monkeypatch.delenv(ENV_ROOTS, raising=False)
    monkeypatch.delenv(ENV_CORPUS, raising=False)
    monkeypatch.delenv("CHUNK_INSPECTOR_ROLES", raising=False)
