"""``python -m inspector tune``: the ranked search, its recommendation equal to what ``report``
says of it, its gate holding, on every engine; bad arguments refused with one line."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import subprocess
import sys

import pytest

from inspector.cli import main
from tests.support.paths import ROOT, SAMPLE

GOLDEN = str(SAMPLE / "golden-questions.jsonl")
SPACE = 'kinds = ["structured", "fixed", "recursive"]\nbudgets = [400, 800]\noverlaps = [0, 0.15]\n' \
        'prefixes = [""]\n'


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    path = tmp_path_factory.mktemp("space") / "space.toml"
    path.write_text(SPACE, encoding="utf-8")
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    """The command line in this process (``sample_corpus`` is the bundled corpus)."""
    out, err = io.StringIO(), io.StringIO()
    args = [str(SAMPLE) if a == "sample_corpus" else a for a in args]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def tuned(space) -> dict:
    shown = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space), "--json", "--engine", "memory")
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)


def test_configurations_measured_at_once_rank_as_one_after_another(tuned, space):
    """``tuned`` measured its configurations in forked workers (one per core, up to 4)."""
    serial = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space), "--json", "--engine", "memory",
                 "--jobs", "1")
    assert serial.returncode == 0, serial.stderr
    assert json.loads(serial.stdout) == tuned


def test_the_winner_scores_what_report_says_of_it_to_the_digit(tuned):
    assert tuned["objective"] == "recall@2000" and len(tuned["candidates"]) == 10
    best = tuned["decision"]["best"]
    row = next(c for c in tuned["candidates"] if c["splitter"] == best)
    report = json.loads(run("report", "sample_corpus", "--golden", GOLDEN, "--spec", row["spec"], "--json",
                            "--quiet").stdout)
    golden = report["golden"][0]["rows"][0]
    assert golden["recall"]["2000"] == row["score"]["value"]
    assert golden["intervals"]["recall"]["2000"] == row["score"]
    assert golden["answered"]["2000"] == row["answered"]


def test_the_recommended_configurations_gate_holds_on_the_corpus(tuned):
    assert tuned["recommended"] in {c["spec"] for c in tuned["candidates"]}
    assert tuned["floors"]["recall@2000"] > 0.8 and "code" in tuned["floors"]
    gate = next(s for s in tuned["snippets"] if s["title"].startswith("Command line"))["code"].splitlines()[1]
    assert gate.startswith("chunk-inspector check ") and f"--spec {tuned['recommended']}" in gate
    held = subprocess.run([sys.executable, "-m", "inspector", *shlex.split(gate)[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert held.returncode == 0, held.stdout + held.stderr
    assert "PASS" in held.stdout


def test_the_text_shows_the_ranked_table_the_verdict_and_the_code(space):
    shown = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space))
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.startswith("tune: 10 configurations on 56 documents; objective recall@2000 over 38 questions of "
                          "golden-questions.jsonl, context budget 2,000 tokens")
    assert f"chunk-inspector check {SAMPLE}" in out
    first = out.splitlines()[2]
    assert first.startswith("  1 ") and "%  [" in first and first.endswith(("tied", "best"))
    assert "recommended: " in out and "# LangChain" in out
    # fixed 800 answers 29 of 38 questions where structured answers 36: beyond noise.
    assert "fixed 800 is below" in " ".join(out.split()) or "fixed 800 are below" in " ".join(out.split())


def test_the_streamed_engine_tunes_as_the_held_one(space, tuned):
    shown = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space), "--json", "--engine", "stream")
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout) == tuned


@pytest.mark.parametrize("args, message", [
    (["--context", "0"], "--context is a number of tokens"),
    (["--cap", "lots"], "--cap 'lots' is not a size"),
    (["--space", "missing.toml"], "cannot read space file missing.toml"),
    (["--expand", "1"], "tune does not search neighbour windows"),
    (["--max-duplication", "0.5"], "--max-duplication is a ratio of 1 or more"),
    (["--retriever", "bogus"], "retriever"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, args, message):
    assert main(["tune", str(SAMPLE), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_mlflow_gets_one_run_per_candidate_and_the_winner_tagged(tmp_path, space, capsys, monkeypatch):
    mlflow = pytest.importorskip("mlflow")
    for key in ("MLFLOW_ALLOW_FILE_STORE", "MLFLOW_DISABLE_TELEMETRY", "DO_NOT_TRACK", "MLFLOW_TRACKING_URI"):
        monkeypatch.delenv(key, raising=False)
    store = tmp_path / "mlruns"
    assert main(["tune", str(SAMPLE), "--golden", GOLDEN, "--space", str(space), "--mlflow", str(store),
                 "--quiet", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    mlflow.set_tracking_uri(store.as_uri())
    runs = {r.info.run_name: r for r in mlflow.search_runs(search_all_experiments=True, output_format="list")}
    assert set(runs) == {c["spec"] for c in result["candidates"]}
    recommended = runs[result["recommended"]]
    assert recommended.data.tags["tune.recommended"] == "true"
    assert recommended.data.metrics["recall_2000"] == next(c["score"]["value"] for c in result["candidates"]
                                                          if c["spec"] == result["recommended"])
    assert sum("tune.recommended" in r.data.tags for r in runs.values()) == 1


def test_your_questions_are_asked_of_every_ranked_candidate_as_report_asks_them(space, tmp_path):
    """``--questions``: beside the objective, the share of the user's questions served without an
    atom cut in two, what ``report --questions`` says of the same splitter (served one = 1 - whole)."""
    asked = tmp_path / "mine.jsonl"
    asked.write_text("\n".join(json.dumps(q) for q in (
        "How many days of unused annual leave can Lisbon office staff carry over?",
        "Which port does the admin listener use?", "What is the equipment budget for a laptop?")) + "\n",
        encoding="utf-8")
    shown = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space), "--questions", str(asked),
                "--json")
    assert shown.returncode == 0, shown.stderr
    result = json.loads(shown.stdout)
    assert result["asked"] == "mine.jsonl"
    ranked = [c for c in result["candidates"] if not c["sampled"] and not c["excluded"]]
    assert all(c["whole"]["of"] == 3 for c in ranked)
    fixed = next(c for c in ranked if c["spec"] == "fixed:400")
    report = json.loads(run("report", "sample_corpus", "--questions", str(asked), "--spec", "fixed:400", "--json",
                            "--quiet").stdout)["questions"]["rows"][0]
    assert fixed["whole"]["value"] == 1 - report["served_fragment"]
    assert fixed["asked_tokens"] == report["ctx_tokens"]
    text = run("tune", "sample_corpus", "--golden", GOLDEN, "--space", str(space), "--questions", str(asked)).stdout
    assert "whole@5" in text.splitlines()[1] and "whole@5: questions of mine.jsonl" in text
    missing = run("tune", "sample_corpus", "--questions", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
