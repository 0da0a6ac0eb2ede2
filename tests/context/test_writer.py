"""``inspector.context``: lines planned, priced, written through a chat endpoint on the loopback
address, kept, reused and put before the chunks of ``+context`` specs."""

from __future__ import annotations

import pytest

from inspector import Document, Workspace
from inspector.context.store import ContextStore, document_hash
from inspector.context.writer import (
    EXPECTED_OUTPUT_TOKENS,
    MAX_DOCUMENT_CHARS,
    MAX_FAILURES_IN_A_ROW,
    ChatEndpoint,
    plan_lines,
    prompt_for,
    write_lines,
)
from inspector.errors import ContextLineError, ContextServiceError
from inspector.lengths import get_length
from tests.support.chat import ChatServer, line_for

DOCS = [Document("guide/limits.md", "# Limits\n\nThe gateway allows 500 requests per minute.\n\n"
                 "It is raised to 900 for the Pro plan.\n\n## Bursts\n\nBursts of 50 are absorbed.\n"),
        Document("guide/ports.md", "# Ports\n\nThe admin listener binds port 7440.\n")]


@pytest.fixture
def workspace(tmp_path):
    work = Workspace(DOCS)
    work.context_store = ContextStore(tmp_path)
    return work


def spans(workspace, spec="paragraph:60"):
    return [r.spans for r in workspace.split(spec)]


def test_a_run_writes_every_line_and_a_second_run_sends_nothing(workspace):
    store = workspace.context_store
    with ChatServer() as server:
        endpoint = ChatEndpoint.from_settings(server.url, "tiny", environ={})
        plan = plan_lines(DOCS, spans(workspace), store, "tiny")
        assert plan.kept == 0 and len(plan.jobs) == plan.chunks == sum(len(s) for s in spans(workspace))
        seen = []
        run = write_lines(plan, DOCS, endpoint, store, lambda done, total: seen.append((done, total)))
        assert run.written == plan.chunks and run.failures == () and len(server.prompts) == plan.chunks
        assert seen[-1] == (plan.chunks, plan.chunks)
        assert server.bodies[0]["model"] == "tiny" and server.bodies[0]["temperature"] == 0
        again = plan_lines(DOCS, spans(workspace), store, "tiny")
        assert again.jobs == () and again.kept == plan.chunks and again.input_tokens == 0
        assert write_lines(again, DOCS, endpoint, store).written == 0
        assert len(server.prompts) == plan.chunks, "the second run sent nothing"
    # Another model, or an edited document, asks again.
    assert len(plan_lines(DOCS, spans(workspace), store, "other").jobs) == plan.chunks
    edited = [Document(DOCS[0].id, DOCS[0].text + "\nMore.\n"), DOCS[1]]
    assert plan_lines(edited, spans(workspace), store, "tiny").jobs[0].doc_index == 0


def test_the_plan_counts_the_prompts_tokens_and_prices_them(workspace):
    plan = plan_lines(DOCS, spans(workspace), workspace.context_store, "tiny")
    length = get_length("o200k")
    exact = sum(length.count(prompt_for(DOCS[j.doc_index], *j.span)) for j in plan.jobs)
    assert abs(plan.input_tokens - exact) <= 2 * len(plan.jobs), "counted in parts, within a token or two a prompt"
    assert plan.cost(None) is None
    assert plan.cost(2.0) == pytest.approx(plan.input_tokens * 2 / 1e6)
    assert plan.cost(2.0, 10.0) == pytest.approx((plan.input_tokens * 2 + len(plan.jobs) * EXPECTED_OUTPUT_TOKENS
                                                  * 10) / 1e6)
    assert f"{plan.input_tokens:,} input tokens" in plan.summary() and "$" in plan.summary(2.0)


def test_a_chunk_that_fails_is_reported_and_the_rest_are_written(workspace):
    refuse = lambda prompt: (400, {"error": {"message": "prompt rejected"}}) if "Pro plan" in \
        prompt.split("<passage>")[1] else None
    with ChatServer(refuse) as server:
        endpoint = ChatEndpoint.from_settings(server.url, "tiny", environ={})
        plan = plan_lines(DOCS, spans(workspace), workspace.context_store, "tiny")
        run = write_lines(plan, DOCS, endpoint, workspace.context_store)
    (failure,) = run.failures
    assert failure.doc_id == "guide/limits.md" and "HTTP 400: prompt rejected" in failure.reason
    assert "Pro plan" in DOCS[0].text[failure.span[0]:failure.span[1]]
    assert run.written == plan.chunks - 1 and run.not_sent == 0
    have, chunks = workspace.context_coverage("paragraph:60+context;llm=tiny")
    assert (have, chunks) == (plan.chunks - 1, plan.chunks)


def test_a_run_stops_when_the_endpoint_keeps_failing(workspace):
    with ChatServer(lambda prompt: (500, {"error": {"message": "down"}})) as server:
        endpoint = ChatEndpoint(server.url, "tiny", attempts=1)
        many = [[(i, i + 1) for i in range(20)], []]
        plan = plan_lines(DOCS, many, workspace.context_store, "tiny")
        run = write_lines(plan, DOCS, endpoint, workspace.context_store)
    assert len(run.failures) == MAX_FAILURES_IN_A_ROW and run.not_sent == 20 - MAX_FAILURES_IN_A_ROW
    assert run.written == 0


def test_lines_go_before_the_chunks_and_the_spans_stay(workspace):
    with ChatServer() as server:
        endpoint = ChatEndpoint.from_settings(server.url, "tiny", environ={})
        write_lines(plan_lines(DOCS, spans(workspace, "paragraph:60+address"), workspace.context_store, "tiny"),
                    DOCS, endpoint, workspace.context_store)
    plain = workspace.chunks("paragraph:60+address")
    lined = workspace.chunks("paragraph:60+address+context;llm=tiny")
    assert [c.span for c in lined] == [c.span for c in plain]
    for before, after in zip(plain, lined):
        text = before.text(DOCS[0] if before.doc_id == DOCS[0].id else DOCS[1])
        assert after.prefix == line_for(f"<passage>\n{text}\n</passage>") + "\n" + before.prefix
        assert after.spec == "paragraph:60+address+context;llm=tiny"
    assert workspace.summarize("paragraph:60+address+context;llm=tiny").chunks == len(plain)
    assert all(a > b for a, b in zip(workspace.sizes("paragraph:60+address+context;llm=tiny"),
                                     workspace.sizes("paragraph:60+address"))), "the line is embedded too"


def test_without_an_endpoint_or_a_model_context_lines_are_refused_with_what_to_set():
    with pytest.raises(ContextLineError, match="neither is set: set CHUNK_INSPECTOR_CONTEXT_URL"):
        ChatEndpoint.from_settings(environ={})
    with pytest.raises(ContextLineError, match="no model is set.*CHUNK_INSPECTOR_CONTEXT_MODEL"):
        ChatEndpoint.from_settings(environ={"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"})
    with pytest.raises(ContextLineError, match="http:// or https://"):
        ChatEndpoint.from_settings("ftp://x", "m", environ={})
    found = ChatEndpoint.from_settings(environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1/", "OPENAI_API_KEY": "k",
                                                "CHUNK_INSPECTOR_CONTEXT_MODEL": "llama3"})
    assert (found.base_url, found.model, found.api_key) == ("http://127.0.0.1:9/v1", "llama3", "k")
    with pytest.raises(ContextLineError, match="add ;llm=MODEL"):
        Workspace(DOCS).context_lines("paragraph:60+context")


def test_an_answer_in_another_format_is_a_service_error():
    with ChatServer(lambda prompt: (200, {"choices": []})) as server:
        with pytest.raises(ContextServiceError, match="chat format"):
            ChatEndpoint(server.url, "tiny").line("x")
    with ChatServer(lambda prompt: (200, {"choices": [{"message": {"content": "  \n "}}]})) as server:
        with pytest.raises(ContextServiceError, match="empty line"):
            ChatEndpoint(server.url, "tiny").line("x")


def test_a_long_document_is_sent_as_a_window_around_the_chunk():
    text = "word " * (MAX_DOCUMENT_CHARS // 2)
    document = Document("big.md", text + "NEEDLE here." + text)
    start = document.text.index("NEEDLE")
    prompt = prompt_for(document, start, start + 12)
    assert len(prompt) < MAX_DOCUMENT_CHARS + 2_000
    assert prompt.count("NEEDLE here.") == 2, "in the window and as the passage"


def test_the_store_keys_lines_by_model_document_and_span(tmp_path):
    store = ContextStore(tmp_path)
    key = document_hash("text")
    assert store.put("m", key, [(0, 4, "a"), (4, 8, "b")]) == 2
    store.put("m", key, [(0, 4, "again")])
    assert store.lines("m", key) == {(0, 4): "again", (4, 8): "b"}
    assert store.lines("other", key) == {} and store.count() == 2 == store.count("m")
    assert document_hash("text") != document_hash("text ")
