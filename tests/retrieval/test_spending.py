"""``inspector.retrieval.spending``: the operator's allowances and prices read once, every paid
request charged before it is sent, and refused (nothing sent) past an allowance; context lines
of one plan written by one session at a time."""

from __future__ import annotations

import threading
import time

import pytest

from inspector import Workspace, load_corpus
from inspector.context import ChatEndpoint, ContextStore, plan_key, plan_lines, write_lines
from inspector.errors import ContextBusy, SpecError, SpendRefused
from inspector.retrieval import spending
from inspector.retrieval.remote import OpenAIEmbeddings
from inspector.retrieval.spending import Allowance, SpendLedger, SpendPolicy
from tests.support.chat import ChatServer
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE


@pytest.fixture
def no_ledger():
    spending.uninstall()


def test_the_policy_is_read_from_the_environment_and_refused_with_the_variable_named():
    policy = SpendPolicy.from_environment({
        "CHUNK_INSPECTOR_SPEND_LIMIT": "2,000 tokens/hour; 300 texts/session",
        "CHUNK_INSPECTOR_CONFIRM_ABOVE": "50 texts",
        "CHUNK_INSPECTOR_PRICES": "text-embedding-3-small=0.02; gpt-4o-mini=0.15/0.60",
        "CHUNK_INSPECTOR_EMBED_MODELS": "text-embedding-3-small, nomic-embed-text"})
    assert [str(a) for a in policy.limits] == ["2000 tokens/hour", "300 texts/session"]
    threshold = policy.confirm_above
    assert str(threshold) == "50 texts" and Allowance.parse(str(threshold)) == threshold
    assert policy.cost("gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert policy.cost("unknown", 10) is None
    assert policy.model_problem("nomic-embed-text") == ""
    assert "a link cannot name 'gpt-5'" in policy.model_problem("gpt-5")
    assert "set CHUNK_INSPECTOR_EMBED_MODELS" in SpendPolicy.from_environment({}).model_problem("nomic-embed-text")
    assert [str(a) for a in SpendPolicy.from_environment({}).limits] == ["50000 texts/hour", "10000 texts/session"]
    for variable, value in (("CHUNK_INSPECTOR_SPEND_LIMIT", "lots"), ("CHUNK_INSPECTOR_SPEND_LIMIT", "5 texts"),
                            ("CHUNK_INSPECTOR_SPEND_LIMIT", "9" * 40 + " texts/hour"),
                            ("CHUNK_INSPECTOR_CONFIRM_ABOVE", "-1 texts"),
                            ("CHUNK_INSPECTOR_PRICES", "model=free"), ("CHUNK_INSPECTOR_EMBED_MODELS", "a b")):
        with pytest.raises(SpecError, match=variable):
            SpendPolicy.from_environment({variable: value})


def test_the_ledger_refuses_a_request_past_an_allowance_and_records_nothing_of_it(tmp_path, monkeypatch):
    policy = SpendPolicy.from_environment({"CHUNK_INSPECTOR_SPEND_LIMIT": "100 texts/hour; 60 texts/session"})
    ledger = SpendLedger(tmp_path, policy)
    ledger.charge("embeddings", "m", 50, 500, "a")
    with pytest.raises(SpendRefused, match="this session's allowance of 60 texts/session is spent"):
        ledger.charge("embeddings", "m", 11, 110, "a")
    ledger.charge("embeddings", "m", 45, 450, "b")
    with pytest.raises(SpendRefused, match=r"this server's allowance of 100 texts/hour is spent \(95 texts used"):
        ledger.charge("embeddings", "m", 6, 60, "c")
    assert ledger.spent("a") == ((95, 950), (50, 500))
    assert dict((str(a), n) for a, n in ledger.left("b")) == {"100 texts/hour": 5, "60 texts/session": 15}
    later = time.time() + 3601  # an hour on, the server's allowance is back; a session's is not
    monkeypatch.setattr(time, "time", lambda: later)
    ledger.charge("embeddings", "m", 60, 600, "c")
    with pytest.raises(SpendRefused, match="this session's"):
        ledger.charge("embeddings", "m", 11, 0, "a")


def test_an_admin_s_raise_holds_for_the_hour_or_for_every_session(tmp_path, monkeypatch):
    policy = SpendPolicy.from_environment({"CHUNK_INSPECTOR_SPEND_LIMIT": "100 texts/hour; 60 texts/session"})
    ledger = SpendLedger(tmp_path, policy)
    hourly, per_session = policy.limits
    ledger.charge("embeddings", "m", 60, 0, "a")
    ledger.raise_allowance(per_session, 30, "Dana (dana@acme.com)")
    ledger.raise_allowance(hourly, 50, "Dana (dana@acme.com)")
    ledger.charge("embeddings", "m", 30, 0, "a")  # 90 of 60 + 30
    with pytest.raises(SpendRefused, match=r"allowance of 60 texts/session, raised by 30, is spent"):
        ledger.charge("embeddings", "m", 1, 0, "a")
    assert dict((str(a), n) for a, n in ledger.left("b")) == {"100 texts/hour": 60, "60 texts/session": 90}
    later = time.time() + 3601  # an hour on, the hourly raise has lapsed; the session's holds
    monkeypatch.setattr(time, "time", lambda: later)
    assert dict((str(a), n) for a, n in ledger.left("b")) == {"100 texts/hour": 100, "60 texts/session": 90}
    for allowance, amount, said in ((Allowance(5, "texts", "hour"), 1, "no allowance 5 texts/hour"),
                                    (hourly, 0, "not 0"), (hourly, -5, "not -5"), (hourly, 2.5, "not 2.5"),
                                    (hourly, True, "not True"), (hourly, 10**9, "not 1000000000")):
        with pytest.raises(SpecError, match=said):
            ledger.raise_allowance(allowance, amount, "Dana")


def test_an_embeddings_client_is_charged_before_each_request_and_stops_at_the_allowance(tmp_path, monkeypatch):
    spending.install(tmp_path, SpendPolicy.from_environment({"CHUNK_INSPECTOR_SPEND_LIMIT": "100 texts/hour"}))
    try:
        with EmbeddingServer() as server:
            client = OpenAIEmbeddings("m", server.url, api_key="", batch=64)
            with pytest.raises(SpendRefused, match="nothing was sent to m"):
                client.embed([f"text {n}" for n in range(300)])
            assert [len(r["input"]) for r in server.requests] == [64]
            client.embed([f"text {n}" for n in range(36)])  # exactly what is left
            with pytest.raises(SpendRefused):
                client.embed(["one more"])
            assert sum(len(r["input"]) for r in server.requests) == 100
    finally:
        spending.uninstall()


def test_without_a_ledger_the_command_line_is_not_charged(no_ledger):
    with EmbeddingServer() as server:
        OpenAIEmbeddings("m", server.url, api_key="").embed([f"t{n}" for n in range(200)])
    assert sum(len(r["input"]) for r in server.requests) == 200


def test_two_sessions_writing_one_plan_pay_once(tmp_path, no_ledger):
    workspace = Workspace(load_corpus(SAMPLE / "handbook"))
    results = workspace.split("structured:1600")
    store = ContextStore(tmp_path)
    plan = plan_lines(workspace.documents, [r.spans for r in results], store, "tiny")
    key = plan_key("tiny", workspace.fingerprint, "structured:1600")
    slow = threading.Event()
    outcomes = {}
    with ChatServer(lambda prompt: slow.wait(0.02) and None) as server:
        endpoint = ChatEndpoint.from_settings(server.url, "tiny", environ={})

        def write(holder):
            try:
                outcomes[holder] = write_lines(plan, workspace.documents, endpoint, store, claim=key, holder=holder)
            except ContextBusy as exc:
                outcomes[holder] = exc

        first = threading.Thread(target=write, args=("session a",))
        first.start()
        while store.writing(key) is None:
            time.sleep(0.005)
        write("session b")  # while a writes
        first.join()
    assert isinstance(outcomes["session b"], ContextBusy) and "another session is writing" in str(outcomes["session b"])
    assert outcomes["session a"].written == len(plan.jobs) == len(server.prompts)
    assert store.writing(key) is None  # released
    again = plan_lines(workspace.documents, [r.spans for r in results], store, "tiny")
    assert again.jobs == ()


def test_a_lapsed_claim_is_taken_over_and_lines_kept_meanwhile_are_not_asked_again(tmp_path, no_ledger, monkeypatch):
    workspace = Workspace(load_corpus(SAMPLE / "handbook"))
    results = workspace.split("structured:1600")
    store = ContextStore(tmp_path)
    plan = plan_lines(workspace.documents, [r.spans for r in results], store, "tiny")
    key = plan_key("tiny", workspace.fingerprint, "structured:1600")
    assert store.claim(key, "gone", len(plan.jobs)) is None
    first = plan.jobs[0]
    from inspector.context import document_hash

    store.put("tiny", document_hash(workspace.documents[first.doc_index].text), [(*first.span, "Written by gone.")])
    with ChatServer() as server:
        endpoint = ChatEndpoint.from_settings(server.url, "tiny", environ={})
        with pytest.raises(ContextBusy):
            write_lines(plan, workspace.documents, endpoint, store, claim=key, holder="here")
        monkeypatch.setattr("inspector.context.store.STALE_CLAIM", 0.0)
        run = write_lines(plan, workspace.documents, endpoint, store, claim=key, holder="here")
    assert run.written == len(plan.jobs) - 1 == len(server.prompts)
