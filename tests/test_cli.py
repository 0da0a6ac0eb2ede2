"""``inspector.cli``: tables, JSON, progress on stderr, exit codes, chunk sets, worker counts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector.chunks.sets import STORE_FOLDER, ChunkSetStore, make_chunk_set
from inspector.cli import main
from inspector.data_folder import data_folder
from tests.support.chunks import chunks_of
from tests.support.paths import ROOT, SAMPLE


@pytest.fixture
def small_corpus(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Guide\n\nHarborline keeps 3 replicas of every partition across the cluster by default.\n\n"
        "```bash\nhbl status\n```\n\n| key | value |\n|---|---|\n| port | 7420 |\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("See [the docs](https://x.example) for all 12 configuration keys and defaults.\n",
                                   encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00binary")
    return tmp_path


def test_the_command_line_reads_stored_sets_and_names_missing_ones(work, tmp_path, monkeypatch, capsys):
    from inspector.cli import main

    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path))
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "structured:800"))
    ChunkSetStore(data_folder() / STORE_FOLDER).save(chunk_set)
    spec = f"imported:{chunk_set.id}"
    assert main(["export", str(SAMPLE), "--spec", spec]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(work.chunks("structured:800"))
    assert {json.loads(line)["spec"] for line in lines} == {spec}
    assert main(["report", str(SAMPLE), "--spec", spec, "--spec", "structured:800", "--json", "--quiet"]) == 0
    imported_row, structured_row = json.loads(capsys.readouterr().out)["compare"]
    assert {k: v for k, v in imported_row.items() if k not in ("splitter", "spec")} == \
        {k: v for k, v in structured_row.items() if k not in ("splitter", "spec")}
    assert main(["export", str(SAMPLE), "--spec", "imported:00000000000000aa"]) == 2
    assert "no imported chunk set 00000000000000aa" in capsys.readouterr().err


def test_json_has_the_documented_shape(small_corpus, capsys):
    assert main(["report", str(small_corpus), "--json", "--quiet"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert set(report["corpus"]) >= {"documents", "characters", "atoms"}
    assert set(report["corpus"]["atoms"]) == {"code", "table", "row", "num", "cite"}
    assert report["corpus"]["documents"] == 2
    assert [r["splitter"] for r in report["compare"]] == [
        "fixed 400", "fixed 800", "fixed 800/120", "paragraph 800", "recursive 800", "sentence 800", "structured 800"]
    row = report["compare"][0]
    assert set(row) >= {"splitter", "chunks", "mean", "survival", "duplication", "answer_at_5", "cut",
                        "ctx_chars", "ctx_tokens"}
    for value in row["survival"].values():
        assert value is None or 0 <= value <= 1
    assert [s["budget"] for s in report["sweep"]] == [400, 800, 1200, 1600, 2400]
    assert set(report["sweep"][0]["survival"]) == {"code", "table", "num"}
    assert set(report["headers"]) == {"rows", "rows_with_header", "rows_mid_table", "mid_table_chunks"}
    assert "bad.md" in out.err, "unreadable files are named"


def test_text_report_has_the_four_tables(small_corpus, capsys):
    assert main(["report", str(small_corpus), "--atoms", "seed", "--quiet"]) == 0
    out = capsys.readouterr().out
    for marker in ("a. splitter comparison", "b. ", "c. structured splitter", "d. rows in a chunk"):
        assert marker in out


def test_progress_bar_goes_to_stderr(small_corpus, capsys):
    assert main(["report", str(small_corpus), "--json"]) == 0
    captured = capsys.readouterr()
    assert "[" in captured.err and "/" in captured.err
    json.loads(captured.out)  # stdout stays clean JSON


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report", "--spec"], "expected one argument"),
        (["report", "nowhere-at-all"], "not found"),
        (["report", ".", "--atoms", "regex"], "invalid choice"),
        (["report", ".", "--spec", "fixed:0"], "budget"),
        (["report", ".", "--spec", "fixed:100/200"], "overlap"),
        (["report", ".", "--budgets", "10,x"], "whole numbers"),
        (["report", "sample_corpus", "--spec", "fixed:" + "9" * 5000], "at most 1000 characters"),
        (["report", "sample_corpus", "--sweep", "fixed:" + "9" * 800], "(800 digits) is larger than the limit"),
        (["export", "sample_corpus", "--spec", "recursive:400/" + "5" * 4400], "splitter spec"),
        (["report", "sample\x01corpus"], "not found"),
        (["explode"], "invalid choice"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(args, message):
    proc = subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert message in lines[0]


def test_empty_corpus_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "inspector", "report", str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert "no readable documents" in proc.stderr


def test_command_line_report_is_the_same_with_any_number_of_workers(capsys):
    from inspector.cli import main

    outputs = []
    for jobs in ("1", "2", "3"):
        assert main(["report", str(SAMPLE), "--atoms", "seed", "--json", "--quiet", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]


def test_a_library_splitters_misplaced_chunks_are_named_by_check_and_export(monkeypatch, tmp_path, capsys):
    from inspector.split import adapters

    text = " ".join(f"Sentence {i} of the guide, no two alike." for i in range(40)) + "\n"
    (tmp_path / "guide.md").write_text(text, encoding="utf-8")

    def liar(text_, budget, overlap, length):  # its second offset is five characters off
        return [(0, None, text_[0:300]), (305, None, text_[300:600])]

    monkeypatch.setitem(adapters.RUNNERS, "ext-langchain", liar)
    monkeypatch.setattr(adapters, "installed", lambda module: True)
    assert main(["check", str(tmp_path), "--spec", "ext-langchain:300", "--max", "oversized=0"]) == 0
    shown = capsys.readouterr()
    assert "guide.md#1: offset-mismatch: " in shown.err and "placed at 300:600" in shown.err
    assert "PASS: 1 check holds" in shown.out
    assert main(["export", str(tmp_path), "--spec", "ext-langchain:300"]) == 0
    shown = capsys.readouterr()
    assert "guide.md#1: offset-mismatch: " in shown.err
    assert [(r["start"], r["end"]) for r in map(json.loads, shown.out.splitlines())] == [(0, 300), (300, 600)]


def test_check_of_chunks_for_some_documents_says_the_others_got_none(tmp_path, capsys):
    (tmp_path / "a.md").write_text("# A\n\nAlpha has 3 replicas by default in every cluster we run today.\n",
                                   encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nBeta text.\n", encoding="utf-8")
    chunks = tmp_path.parent / "chunks.jsonl"
    chunks.write_text(json.dumps({"doc_id": "a.md", "text": "Alpha has 3 replicas by default"}) + "\n",
                      encoding="utf-8")
    assert main(["check", str(tmp_path), "--chunks", str(chunks), "--budget", "20", "--json"]) == 0
    shown = capsys.readouterr()
    assert "1 of 2 documents received no chunk; the measures cover the others" in shown.err
    measures = json.loads(shown.out)["measures"]
    assert (measures["chunks"], measures["oversized"], measures["unplaced"]) == (1, 1, 0)


@pytest.mark.parametrize(("args", "message"), [
    (["check", "sample_corpus", "--chunks", "/dev/zero"], "zero is larger than the 20 MB limit for a chunk file"),
    (["check", "sample_corpus", "--spec", "fixed:800", "--golden", "/dev/zero"],
     "zero is larger than the 5 MB limit for a golden set"),
    (["check", "sample_corpus", "--spec", "fixed:800", "--baseline", "/dev/zero"],
     "zero is larger than the 1 MB limit for a baseline"),
    (["report", "sample_corpus", "--spec", "fixed:80t:hf:/dev/zero"],
     "zero is larger than the 64 MB limit for a tokenizer file"),
])
def test_every_file_argument_is_refused_past_its_size_limit(args, message):
    proc = subprocess.run([sys.executable, "-m", "inspector", *args, "--quiet" if args[0] == "report" else "--json"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert message in proc.stderr.splitlines()[-1]
