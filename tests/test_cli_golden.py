"""``golden``: a golden set written from the corpus by a chat model on the loopback address
(planned, priced and confirmed, kept and replayed, resumed), or from the probe without one; every
command reads what it writes."""

from __future__ import annotations

import csv
import io
import json

import pytest

from inspector import Document, load_corpus
from inspector.context.golden_writer import STRETCH_CHARS, stretches
from inspector.context.writer import ChatEndpoint
from inspector.retrieval.golden_written import PROBE_AUTHOR
from tests.support.chat import ChatServer
from tests.support.cli import run, without_chat_settings
from tests.support.paths import SAMPLE

HANDBOOK = str(SAMPLE / "handbook")


@pytest.fixture(autouse=True)
def data(isolated_app, monkeypatch):
    without_chat_settings(monkeypatch)
    return isolated_app


def rows(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_a_model_writes_the_set_once_every_excerpt_at_its_offsets_and_report_reads_it(capsys, monkeypatch, tmp_path):
    out_file = tmp_path / "questions.csv"
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "golden", HANDBOOK, "--model", "tiny", "--input-price", "0.15", "--dry-run")
        assert status == 0 and not server.prompts, "a dry run sends nothing"
        assert "up to 56 prompts to tiny for 14 documents (0 answers kept), about" in out
        assert "about $0.01" in out
        status, _, err = run(capsys, "golden", HANDBOOK, "--model", "tiny", "-o", str(out_file))
        assert status == 1 and not server.prompts and "nothing sent: 56 requests need --yes" in err
        status, out, err = run(capsys, "golden", HANDBOOK, "--model", "tiny", "-o", str(out_file), "--yes")
        sent = len(server.prompts)
        closed_book = sum("without any document" in prompt for prompt in server.prompts)
        assert status == 0 and sent == 28 + closed_book
        written = out_file.read_bytes()
        status, out, _ = run(capsys, "golden", HANDBOOK, "--model", "tiny", "-o", str(out_file), "--yes")
        assert status == 0 and len(server.prompts) == sent, "a second run sends nothing"
        assert f"up to 0 prompts to tiny for 14 documents ({sent} answers kept)" in out
        assert out_file.read_bytes() == written, "and writes the same set from the kept answers"
    # A second prompt on the same document lists the question already written for it.
    assert any("Ask something other than these questions" in prompt for prompt in server.prompts)
    documents = {d.id: d.text for d in load_corpus(HANDBOOK).documents}
    found = rows(out_file)
    assert 14 <= len(found) == closed_book <= 28 and {row["written_by"] for row in found} == {"tiny"}
    for row in found:
        for reference in json.loads(row["references"]):
            assert documents[row["corpus_id"]][reference["start_index"]:reference["end_index"]] == reference["content"]
    status, out, _ = run(capsys, "report", HANDBOOK, "--golden", str(out_file), "--spec", "structured:800", "--json",
                         "--quiet", "--jobs", "1")
    golden = json.loads(out)["golden"][0]
    assert status == 0 and golden["questions"] == len(found) and not golden["left_out"]


def test_what_cannot_be_evidence_is_left_out_and_counted(capsys, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    sentence = "The retention period for audit records is ninety days on every cluster. "
    (corpus / "kept.md").write_text("# Kept\n\n" + sentence * 5 + "\n")
    (corpus / "reworded.md").write_text("# Reworded\n\nPARAPHRASE: the warranty covers the pump for two years. "
                                        + "Other sentences follow here in plenty. " * 5 + "\n")
    (corpus / "giveaway.md").write_text("# Giveaway\n\nGIVEAWAY: the broker restarts after a quorum loss. "
                                        + "Other sentences follow here in plenty. " * 5 + "\n")
    (corpus / "garbled.md").write_text("# Garbled\n\nGARBLED " + "Nothing here reads as JSON at all. " * 8 + "\n")
    (corpus / "trivia.md").write_text("# Trivia\n\nTRIVIA: water boils at one hundred degrees at sea level. "
                                      + "Other sentences follow here in plenty. " * 5 + "\n")
    (corpus / "short.md").write_text("# Short\n\nToo short.\n")
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "golden", str(corpus), "--model", "tiny", "--per-document", "2", "--yes",
                             "-o", str(tmp_path / "q.csv"))
    # Each document is short: its second prompt is its first again unless a question was kept
    # (then listed in it), and an unchanged prompt is answered from the kept answer, not sent.
    # Sent: one prompt for each document but the short one, a second and a closed-book check
    # for the kept document, a closed-book check for the trivia.
    assert status == 0 and len(server.prompts) == 5 + 2 + 1, "the short document is not asked about"
    assert "left out: 2 × excerpt not in the stretch shown, word for word, or too short" in out
    assert "left out: 2 × question left with no excerpt" in out
    assert "left out: 2 × question gives its answer away" in out
    assert "left out: 2 × unreadable answer (not the JSON asked for)" in out
    assert "left out: 1 × near duplicate of a question kept" in out
    assert "left out: 2 × answerable without the corpus" in out
    assert [row["corpus_id"] for row in rows(tmp_path / "q.csv")] == ["kept.md"]


def test_an_excerpt_is_kept_only_from_the_stretch_shown_and_a_sentence_long(capsys, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    title = "Far away heading for this page"
    first = "".join(f"Paragraph {k} of the page says one more ordinary thing.\n\n" for k in range(150))
    second = "".join(f"Paragraph {k} of the second half, ELSEWHERE, says more.\n\n" for k in range(150))
    (corpus / "far.md").write_text(f"# {title}\n\n{first}{second}")
    (corpus / "terse.md").write_text("# Terse\n\nTERSE " + "Yes. The page says so at length. " * 8)
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "golden", str(corpus), "--model", "tiny", "--yes", "-o", str(tmp_path / "q.csv"))
    assert status == 0 and f"# {title}" in (corpus / "far.md").read_text()
    # far.md's second stretch quotes its title, terse.md a word: both left out (terse.md twice,
    # its second prompt being its first again).
    assert "left out: 3 × excerpt not in the stretch shown, word for word, or too short" in out
    assert "left out: 3 × question left with no excerpt" in out
    written = rows(tmp_path / "q.csv")
    assert [row["corpus_id"] for row in written] == ["far.md"]
    assert all("far from its heading" not in row["question"] for row in written)


def test_a_run_stopped_by_failures_resumes_where_it_stopped(capsys, monkeypatch, tmp_path):
    refuse = lambda prompt: (500, {"error": {"message": "down"}}) if "Lisbon" in prompt else None
    # Each failed prompt is tried three times, pausing 0.5 s then 1 s: the pauses are not what is tested.
    endpoint = ChatEndpoint.from_settings.__func__
    monkeypatch.setattr(ChatEndpoint, "from_settings",
                        classmethod(lambda cls, *args, **options: endpoint(cls, *args, **options, first_pause=0.01)))
    out_file = tmp_path / "q.csv"
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        assert run(capsys, "golden", HANDBOOK, "--model", "tiny", "--yes", "-o", str(tmp_path / "all.csv"))[0] == 0
        everything = len(server.prompts)
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "fresh"))
    with ChatServer(lambda prompt: (503, {"error": {"message": "down"}})) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "golden", HANDBOOK, "--model", "tiny", "--yes", "-o", str(out_file))
        assert status == 1 and len(server.prompts) == 5 * 3, "five failures in a row (each tried 3 times) stop it"
        assert "56 prompts not sent after 5 failures" in out
    with ChatServer(refuse) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, err = run(capsys, "golden", HANDBOOK, "--model", "tiny", "--yes", "-o", str(out_file))
        assert status == 1 and "HTTP 500: down" in err and "prompts not sent after" in out
        answered = len(server.prompts) - len([p for p in server.prompts if "Lisbon" in p])
    with ChatServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        status, out, _ = run(capsys, "golden", HANDBOOK, "--model", "tiny", "--yes", "-o", str(out_file))
        assert status == 0 and 0 < len(server.prompts) == everything - answered, "only what was not answered"
        assert f"({answered} answers kept)" in out
    assert out_file.read_bytes() == (tmp_path / "all.csv").read_bytes(), "resumed, the same set as in one go"


def test_without_a_model_the_probes_questions_are_written_marked_so(capsys, tmp_path):
    out_file = tmp_path / "probe.csv"
    status, _, err = run(capsys, "golden", HANDBOOK, "-o", str(out_file))
    assert status == 0 and "no chat model given" in err
    found = rows(out_file)
    assert found and {row["written_by"] for row in found} == {PROBE_AUTHOR}
    status, out, _ = run(capsys, "report", HANDBOOK, "--golden", str(out_file), "--spec", "structured:800", "--json",
                         "--quiet", "--jobs", "1")
    assert status == 0 and json.loads(out)["golden"][0]["questions"] == len(found)


@pytest.mark.parametrize(("args", "reason"), [
    (["--per-document", "0"], "--per-document is a number of questions from 1 to 20"),
    (["--model", "tiny"], "set CHUNK_INSPECTOR_CONTEXT_URL"),
])
def test_a_bad_setting_is_refused_with_the_reason(capsys, args, reason):
    status, _, err = run(capsys, "golden", HANDBOOK, *args)
    assert status == 2 and reason in err


def test_stretches_spread_over_a_document_and_repeat_a_short_one():
    long = "".join(f"Paragraph {k} says something of use about the product.\n\n" for k in range(600))
    found = stretches(long, 3)
    assert len(found) == 3 and found[0][0] == 0 and found[-1][0] > len(long) // 2
    assert all(b - a <= STRETCH_CHARS and long[a - 2:a] in ("", "\n\n") for a, b in found)
    short = "A short page with one paragraph of words, long enough to ask about. " * 4
    assert stretches(short, 3) == [(0, len(short))] * 3
    assert stretches("Too short.", 2) == []
    assert Document("d.md", long).text == long
