"""The command line: tables, JSON, progress on stderr, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.cli import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def small_corpus(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Guide\n\nHarborline keeps 3 replicas of every partition across the cluster by default.\n\n"
        "```bash\nhbl status\n```\n\n| key | value |\n|---|---|\n| port | 7420 |\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("See [the docs](https://x.example) for all 12 configuration keys and defaults.\n",
                                   encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00binary")
    return tmp_path


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
        (["report"], "the following arguments are required"),
        (["report", "nowhere-at-all"], "not found"),
        (["report", ".", "--atoms", "regex"], "invalid choice"),
        (["report", ".", "--spec", "fixed:0"], "budget"),
        (["report", ".", "--spec", "fixed:100/200"], "overlap"),
        (["report", ".", "--budgets", "10,x"], "whole numbers"),
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
