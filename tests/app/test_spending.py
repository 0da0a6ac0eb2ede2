"""Spending under AppTest, against an embeddings server on 127.0.0.1 that counts what it is
sent: a link names only the models the server allows, a page says what it will send before it
sends anything, asks past the server's threshold, and cannot go past its allowance."""

from __future__ import annotations

import pytest
import streamlit as st

from inspector.retrieval.spending import STORE_NAME
from tests.support.app import app, assert_clean, errors, plain, warnings
from tests.support.embedding import EmbeddingServer

SIXTEEN = [f"{kind}:{budget}" for kind in ("fixed", "recursive", "sentence", "structured")
           for budget in (300, 500, 800, 1200)]


@pytest.fixture
def server(isolated_app, monkeypatch):
    """The embeddings server, allowed by the app's environment; pages compute in their thread."""
    st.cache_resource.clear()  # the app's worker pool, started with another environment
    monkeypatch.setenv("CHUNK_INSPECTOR_PROCESSES", "0")
    monkeypatch.setenv("CHUNK_INSPECTOR_EMBED_MODELS", "allowed-model,budget-model")
    for name in ("CHUNK_INSPECTOR_SPEND_LIMIT", "CHUNK_INSPECTOR_CONFIRM_ABOVE", "CHUNK_INSPECTOR_PRICES"):
        monkeypatch.delenv(name, raising=False)
    with EmbeddingServer() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.url)
        yield running
    st.cache_resource.clear()


def sent(server) -> int:
    return sum(len(r["input"]) for r in server.requests)


def compare(specs, retriever="dense:openai:allowed-model"):
    at = app({"retriever": retriever, "cmp": specs})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    return at


def test_a_link_cannot_name_a_model_the_server_does_not_allow(server):
    at = compare(SIXTEEN, "dense:openai:any-name")
    assert any("a link cannot name 'any-name'" in w for w in warnings(at)), warnings(at)
    assert at.selectbox(key="retriever").value == "bm25" and sent(server) == 0


def test_by_default_a_session_cannot_send_more_than_its_allowance(server):
    at = compare(SIXTEEN)
    assert any("this session has 10,000 left of its 10000 texts/session" in e for e in errors(at)), errors(at)
    assert sent(server) == 0


def test_a_large_run_says_what_it_will_send_and_waits_for_a_click(server, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_PRICES", "allowed-model=0.02")
    monkeypatch.setenv("CHUNK_INSPECTOR_SPEND_LIMIT", "100000 texts/hour; 20000 texts/session")
    at = compare(SIXTEEN)
    said = [plain(c.value) for c in at.caption if "This page will send" in plain(c.value)]
    assert said and "to allowed-model: about $" in said[0]
    assert any("above the 1000 texts this server sends without asking" in w for w in warnings(at)), warnings(at)
    assert sent(server) == 0, "nothing is sent before the click"
    at.button(key="confirm_spend").click().run()
    assert_clean(at)
    assert sent(server) > 1000
    again = compare(SIXTEEN)  # everything is kept now: nothing to ask, nothing sent
    assert any("nothing will be sent" in plain(c.value) for c in again.caption)
    assert not [w for w in warnings(again) if "without asking" in w]


def test_no_link_goes_past_the_servers_allowance(server, monkeypatch, isolated_app):
    # Another model than the tests before: the pages keep their tables by retriever.
    monkeypatch.setenv("CHUNK_INSPECTOR_SPEND_LIMIT", "1500 texts/hour")
    monkeypatch.setenv("CHUNK_INSPECTOR_CONFIRM_ABOVE", "100000 texts")
    model = "dense:openai:budget-model"
    at = compare(SIXTEEN, model)
    assert any("Nothing was sent: it would send" in e and "this server has 1,500 left of its 1500 texts/hour" in e
               for e in errors(at)), errors(at)
    assert sent(server) == 0
    at = compare(["fixed:800"], model)
    assert not errors(at) and 0 < sent(server) <= 1500
    for specs in (["fixed:500"], ["fixed:300"], SIXTEEN):  # each link asks for more than is left
        compare(specs, model)
    assert sent(server) <= 1500, "the server's allowance holds whatever the links ask"
    assert (isolated_app / STORE_NAME).is_file()


def test_a_viewer_starts_no_paid_run(server, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_ROLES", "admin=dana@acme.com;viewer=*")
    at = compare(["fixed:800"])
    assert any(e.startswith("Nothing was sent: To start a paid run you need the admin role; you are a viewer")
               for e in errors(at)), errors(at)
    assert sent(server) == 0 and server.requests == []
