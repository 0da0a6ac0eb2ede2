"""The command line's context lines: ``context`` plans, prices, writes and imports them against a
chat endpoint on the loopback address; ``report``, ``check`` and ``export`` use them or say why not."""

from __future__ import annotations

import json

import pytest

from tests.support.chat import ChatServer
from tests.support.cli import run, without_chat_settings
from tests.support.paths import SAMPLE

HANDBOOK = str(SAMPLE / "handbook")


@pytest.fixture(autouse=True)
def data(isolated_app, monkeypatch):
    without_chat_settings(monkeypatch)
    return isolated_app


def test_context_prices_the_run_writes_the_lines_and_a_second_run_sends_nothing(capsys, monkeypatch):
    refuse = lambda prompt: (400, {"error": {"message": "refused"}}) if "| Lisbon office" in \
        prompt.split("<passage>")[1] else None
    with ChatServer(refuse) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--context-model", "tiny",
                               "--input-price", "0.15", "--dry-run")
        assert status == 0 and not server.prompts, "a dry run sends nothing"
        assert "178 chunks, 0 with a kept line from tiny: 178 prompts to send" in out and "$0.07" in out
        status, out, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800+context;llm=tiny")
        assert status == 1 and not server.prompts and "nothing sent: 178 requests need --yes" in err
        status, out, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800+context;llm=tiny", "--yes")
        assert status == 1, "a chunk failed"
        assert "wrote 177 context lines with tiny; 1 chunk failed" in out
        assert "leave-policy.md" in err and "HTTP 400: refused" in err
        sent = len(server.prompts)
        status, out, _ = run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--context-model", "tiny",
                             "--yes")
        assert "177 with a kept line from tiny: 1 prompt to send" in out and len(server.prompts) == sent + 1
    status, _, err = run(capsys, "report", HANDBOOK, "--spec", "structured:800+context;llm=tiny", "--quiet")
    assert status == 2 and "1 of 178 chunks of structured:800 have no context line from tiny" in err
    with ChatServer() as server:
        assert run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--context-model", "tiny",
                   "--context-url", server.url, "--yes")[0] == 0
    status, out, _ = run(capsys, "report", HANDBOOK, "--spec", "structured:800", "--spec",
                         "structured:800+context", "--context-model", "tiny", "--json", "--quiet", "--jobs", "1")
    assert status == 0
    plain, lined = json.loads(out)["compare"]
    assert lined["spec"] == "structured:800+context;llm=tiny" and lined["chunks"] == plain["chunks"]
    assert lined["ctx_chars"] > plain["ctx_chars"]
    status, out, _ = run(capsys, "export", HANDBOOK, "--spec", "structured:800+context;llm=tiny")
    first = json.loads(out.splitlines()[0])
    assert first["prefix"].startswith("This passage, from the corpus, begins:")


def test_without_an_endpoint_context_is_refused_with_what_to_set(capsys):
    status, _, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800")
    assert status == 2 and "set CHUNK_INSPECTOR_CONTEXT_URL (or OPENAI_BASE_URL)" in err
    status, _, err = run(capsys, "report", HANDBOOK, "--spec", "structured:800+context", "--quiet")
    assert status == 2 and "needs the model that wrote its lines" in err and "CHUNK_INSPECTOR_CONTEXT_MODEL" in err
    status, _, err = run(capsys, "check", HANDBOOK, "--spec", "structured:800+context;llm=none")
    assert status == 2 and "have no context line from none" in err


def test_lines_made_elsewhere_are_imported_and_measured(capsys, tmp_path):
    status, out, _ = run(capsys, "export", HANDBOOK, "--spec", "recursive:800")
    chunks = [json.loads(line) for line in out.splitlines()]
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps({"chunk_id": c["chunk_id"], "line": f"From {c['doc_id']}."}) + "\n"
                             for c in chunks) + '{"chunk_id": "nope", "line": "x"}\n')
    status, out, err = run(capsys, "context", HANDBOOK, "--spec", "recursive:800", "--import", str(lines),
                           "--name", "ours")
    assert status == 0 and f"kept {len(chunks)} context lines under ours" in out
    assert "recursive:800+context;llm=ours" in out and f"lines.jsonl:{len(chunks) + 1}:" in err
    status, out, _ = run(capsys, "check", HANDBOOK, "--spec", "recursive:800+context;llm=ours", "--json")
    assert status == 0 and json.loads(out)["measures"]["chunks"] == len(chunks)
    assert run(capsys, "context", HANDBOOK, "--spec", "recursive:800", "--import", str(lines))[0] == 2


class _Terminal:
    """Standard input as a terminal that answers ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer

    def isatty(self) -> bool:
        return True

    def readline(self) -> str:
        return self.answer + "\n"


@pytest.mark.parametrize(("answer", "sent"), [("y", True), ("", False), ("no", False)])
def test_on_a_terminal_the_plan_is_confirmed_before_anything_is_sent(capsys, monkeypatch, answer, sent):
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setattr("sys.stdin", _Terminal(answer))
        status, out, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--context-model", "tiny")
        assert "178 prompts to send" in out and "send 178 requests? [y/N]" in err
        assert bool(server.prompts) == sent and status == (0 if sent else 1)


def test_a_dry_run_needs_a_model_but_no_endpoint(capsys):
    status, out, _ = run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--context-model", "tiny",
                         "--dry-run")
    assert status == 0 and "178 prompts to send" in out
    status, _, err = run(capsys, "context", HANDBOOK, "--spec", "structured:800", "--dry-run")
    assert status == 2 and "give --context-model MODEL" in err


def test_an_llm_chunkers_cuts_are_priced_written_once_and_measured_by_every_engine(capsys, monkeypatch):
    spec = "llm:400t;llm=tiny"
    status, _, err = run(capsys, "report", HANDBOOK, "--spec", spec, "--quiet")
    assert status == 2 and f"write them with `chunk-inspector context CORPUS --spec '{spec}'`" in err
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "context", HANDBOOK, "--spec", "llm:400t+context;llm=tiny", "--dry-run",
                             "--input-price", "0.15")
        assert status == 0 and not server.prompts
        assert "14 documents, 0 split with answers kept from tiny: 43 to 84 prompts to send" in out
        assert "at most $0.01" in out and "the context lines are priced once these cuts are written" in out
        status, _, err = run(capsys, "context", HANDBOOK, "--spec", spec)
        assert status == 1 and "nothing sent: 84 requests need --yes" in err and not server.prompts
        status, out, _ = run(capsys, "context", HANDBOOK, "--spec", spec, "--yes")
        sent = len(server.prompts)
        assert status == 0 and 43 <= sent <= 84 and f"sent {sent} prompts to tiny; 14 of 14 documents split" in out
        status, out, _ = run(capsys, "context", HANDBOOK, "--spec", spec, "--yes")
        assert status == 0 and "14 split with answers kept from tiny: 0 to 0 prompts" in out
        assert len(server.prompts) == sent, "kept answers are not asked for again"
        status, out, _ = run(capsys, "context", HANDBOOK, "--spec", "llm:400t+context;llm=tiny", "--yes")
        assert status == 0 and "wrote" in out and "context lines with tiny" in out
        assert all("<passage>" in p for p in server.prompts[sent:]), "the cuts kept, only lines were asked for"
    reports = [json.loads(run(capsys, "report", HANDBOOK, "--spec", spec, "--json", "--quiet", "--engine", engine)[1])
               for engine in ("memory", "stream")]
    assert reports[0]["compare"] == reports[1]["compare"] and reports[0]["compare"][0]["spec"] == spec
    status, out, _ = run(capsys, "export", HANDBOOK, "--spec", spec)
    records = [json.loads(line) for line in out.splitlines()]
    headed = [r for r in records if r["doc_id"].endswith("leave-policy.md")]
    assert headed and all(r["end"] - r["start"] > 0 for r in headed)
