"""``inspector.reports.gate``: floors, ceilings, baselines, and the exit status a CI job reads."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector import ATOM_KINDS
from inspector.reports.gate import MEASURES, check_gate, format_check, measure_info, parse_limit, read_baseline
from tests.support.paths import ROOT, SAMPLE

DOCS = ("handbook/leave-policy.md", "product/reference/configuration.md", "product/guides/troubleshooting.md")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate") / "corpus"
    for doc_id in DOCS:
        path = root / doc_id
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((SAMPLE / doc_id).read_text(encoding="utf-8"), encoding="utf-8")
    return root


def check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", "check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def _run_main(main, argv):
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse refusals
            status = exc.code
    return status, err.getvalue()


def test_passes_when_every_floor_holds_and_writes_a_baseline(corpus, tmp_path):
    baseline = tmp_path / "baseline.json"
    run = check(str(corpus), "--spec", "structured:800", "--min", "code=1.0", "--min", "table=100%",
                "--max", "cut=0.2", "--write-baseline", str(baseline))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASS: 3 checks hold" in run.stdout
    document = read_baseline(baseline)
    assert document["spec"] == "structured:800" and document["corpus"]["documents"] == 3
    assert set(document["measures"]) >= {"code", "code.all", "answer@5", "cut", "chunks", "oversized"}
    assert document["measures"]["code"] == 1.0


def test_floor_breach_exits_1_and_names_the_measure(corpus):
    run = check(str(corpus), "--spec", "fixed:400", "--min", "table=0.9", "--min", "row=0.0", "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    out = json.loads(run.stdout)
    assert out["passed"] is False
    assert [c["measure"] for c in out["checks"] if not c["passed"]] == ["table"]
    assert out["failures"] == [m for m in out["failures"] if m.startswith("table ")]
    assert "below its floor" in out["failures"][0]


def test_baseline_regression_exits_1_and_names_each_measure(corpus, tmp_path):
    baseline = tmp_path / "base.json"
    assert check(str(corpus), "--spec", "structured:800", "--write-baseline", str(baseline)).returncode == 0
    from inspector.cli import main

    assert _run_main(main, ["check", str(corpus), "--spec", "structured:800", "--baseline", str(baseline)])[0] == 0
    worse = check(str(corpus), "--spec", "fixed:800", "--baseline", str(baseline),
                  "--count-tolerance", "0.5")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    failed = [line for line in worse.stdout.splitlines() if line.startswith("FAIL:")]
    assert failed and all("regressed" in line and "(baseline)" in line for line in failed)
    names = {line.split()[1] for line in failed}
    assert {"table", "table.all"} <= names
    # The fixture's code blocks are cut in too few documents to tell from noise.
    assert "code" in names or "note: code moved from 100.0% to" in worse.stdout
    assert "chunks" not in names, "within the count tolerance"
    assert "baseline was written for structured:800" in worse.stdout


@pytest.mark.parametrize("args, message", [
    (["--spec", "structured:800", "--min", "bogus=1"], "unknown measure 'bogus'"),
    (["--spec", "structured:800", "--min", "code"], "expected NAME=VALUE"),
    (["--spec", "structured:800", "--min", "code=1.5"], "fraction"),
    (["--spec", "nope:800"], "unknown splitter"),
    ([], "give one of --spec SPEC, --chunks FILE or --store URI"),
    (["--spec", "structured:800", "--min", "recall@2000=0.5"], "--golden"),
])
def test_bad_arguments_exit_2_with_one_line(corpus, args, message):
    from inspector.cli import main

    status, err = _run_main(main, ["check", str(corpus), *args])
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_arguments_exit_2_in_a_subprocess(corpus, tmp_path):
    (tmp_path / "base.json").write_text("{ not json", encoding="utf-8")
    run = check(str(corpus), "--spec", "structured:800", "--baseline", str(tmp_path / "base.json"))
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "not valid JSON" in run.stderr
    run = check(str(corpus), "--spec", "structured:800", "--min")
    assert run.returncode == 2 and "Traceback" not in run.stderr


def test_imported_chunks_and_golden_recall_can_be_gated(corpus, tmp_path):
    from inspector import Workspace, load_corpus
    from inspector.chunks.export import export_text
    from inspector.cli import main

    workspace = Workspace(load_corpus(corpus))
    chunks = tmp_path / "chunks.jsonl"
    lines = export_text(workspace, "structured:800").splitlines()
    chunks.write_text("\n".join(lines[:-1] + ["{broken"]) + "\n", encoding="utf-8")
    golden = tmp_path / "golden.jsonl"
    golden.write_text("\n".join(line for line in (SAMPLE / "golden-questions.jsonl").read_text().splitlines()
                                if any(d in line for d in DOCS)) + "\n", encoding="utf-8")
    argv = ["check", str(corpus), "--chunks", str(chunks), "--budget", "800", "--golden", str(golden),
            "--max", "unplaced=0", "--min", "recall@2000=0.5", "--min", "recall@1000=0", "--json"]
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    result = json.loads(out.getvalue())
    assert status == 1
    assert [c["measure"] for c in result["checks"] if not c["passed"]] == ["unplaced"]
    assert result["measures"]["unplaced"] == 1
    assert set(result["measures"]) >= {"recall@1000", "recall@2000", "recall@4000"}
    assert f"chunks.jsonl:{len(lines)}: malformed" in err.getvalue()


def test_gate_rules():
    values = {"code": 0.9, "cut": 0.1, "chunks": 100, "oversized": 2, "table": None}
    result = check_gate(values, floors={"code": 0.9, "table": 1.0}, ceilings={"cut": 0.1, "oversized": 1})
    assert [(c.name, c.passed) for c in result.checks] == [("code", True), ("cut", True), ("oversized", False)]
    assert any("table" in note for note in result.notes), "nothing to measure is a note, not a pass or fail"
    base = {"measures": {"code": 0.95, "cut": 0.05, "chunks": 90, "oversized": 2, "gone": 1}}
    strict = check_gate(values, baseline=base)
    assert {c.name: c.passed for c in strict.checks} == {"code": False, "cut": False, "chunks": False,
                                                         "oversized": True}
    loose = check_gate(values, baseline=base, tolerance=0.05, count_tolerance=0.12)
    assert loose.passed
    assert any("gone" in note for note in loose.notes)
    with pytest.raises(ValueError, match="not measured"):
        check_gate(values, floors={"recall@2000": 0.5})


def test_limits_and_measure_names():
    assert parse_limit("code=1") == ("code", 1.0)
    assert parse_limit("answer_at_5=80%") == ("answer@5", 0.8)
    assert parse_limit("chunks=1200") == ("chunks", 1200.0)
    assert measure_info("recall@3000").better == "higher"
    for bad in ("code=-1", "code=nan", "recall@0=1", "=1", "cut=2"):
        with pytest.raises(ValueError):
            parse_limit(bad)
    run = subprocess.run([sys.executable, "-m", "inspector", "check", "--help"], cwd=ROOT,
                         capture_output=True, text=True)
    for name in MEASURES:
        assert f"  {name} " in run.stdout
    assert "recall@B" in run.stdout


def test_a_check_reads_as_one_line_per_measure_then_the_verdict():
    values = {"code": 1.0, "table": 0.5, "chunks": 120, "answer@5": None}
    passed = check_gate(values, floors={"code": 0.95})
    text = format_check("check structured:800 on docs", passed, ["a note"])
    assert text.splitlines() == ["check structured:800 on docs", "  code          100.0%  min 95.0% ok",
                                 "  table          50.0%", "  chunks           120", "  answer@5         n/a",
                                 "note: a note", "PASS: 1 check holds"]
    failed = check_gate(values, floors={"table": 0.9}, ceilings={"chunks": 100})
    lines = format_check("t", failed).splitlines()
    assert "  table          50.0%  min 90.0% FAIL" in lines and "  chunks           120  max 100 FAIL" in lines
    assert lines[-2:] == ["FAIL: table 50.0% below its floor 90.0%", "FAIL: chunks 120 above its ceiling 100"]



def test_a_per_query_measure_regresses_against_its_baseline_only_when_the_change_is_significant():
    baseline = {"measures": {"answer@5": 1.0, "cut": 0.0, "recall@2000": 0.9},
                "answered": {"answer@5": "1" * 200, "cut": "0" * 200, "recall@2000": "1" * 36 + "00"}}
    # One query of 200 lost, one question of 38 lost and one gained: noise.
    noise = {"answer@5": 0.995, "cut": 0.005, "recall@2000": 0.9}
    answered = {"answer@5": "0" + "1" * 199, "cut": "1" + "0" * 199, "recall@2000": "0" + "1" * 35 + "10"}
    held = check_gate(noise, baseline=baseline, answered=answered)
    assert held.passed and len(held.checks) == 3 and len(held.notes) == 2  # recall@2000 did not fall at all
    assert "answer@5 moved from 100.0% to 99.5% (baseline) within noise (1 of 200 queries worse, 0 better, " \
           "p = 1.00); --strict fails it" in held.notes
    strict = check_gate(noise, baseline=baseline, answered=answered, strict=True)
    assert {c.name for c in strict.failures} == {"answer@5", "cut"}
    # 12 queries lost and none gained: McNemar's exact p = 2 / 2^12.
    worse = check_gate({"answer@5": 0.94, "cut": 0.06}, baseline=baseline,
                       answered={"answer@5": "0" * 12 + "1" * 188, "cut": "1" * 12 + "0" * 188})
    assert [c.message for c in worse.failures] == [
        "answer@5 regressed from 100.0% to 94.0% (baseline): 12 of 200 queries worse, 0 better, p < 0.001",
        "cut regressed from 0.0% to 6.0% (baseline): 12 of 200 queries worse, 0 better, p < 0.001"]


def test_a_baseline_without_its_queries_or_with_others_is_compared_exactly():
    old = {"measures": {"answer@5": 1.0}}  # written before baselines kept the queries
    answered = {"answer@5": "0" + "1" * 199}
    result = check_gate({"answer@5": 0.995}, baseline=old, answered=answered)
    assert not result.passed and any("compared exactly" in note for note in result.notes)
    other = {"measures": {"answer@5": 1.0}, "answered": {"answer@5": "1" * 150}}
    assert not check_gate({"answer@5": 0.995}, baseline=other, answered=answered).passed


def test_check_keeps_the_queries_in_its_baseline_and_holds_a_drop_within_noise(tmp_path):
    baseline = tmp_path / "base.json"
    assert check(str(SAMPLE), "--spec", "structured:800", "--write-baseline", str(baseline)).returncode == 0
    document = read_baseline(baseline)
    assert document["version"] == 2 and document["answered"]["answer@5"] == "1" * 200
    # recursive 800 misses one of the 200 queries structured 800 answers (table b): within noise.
    run = check(str(SAMPLE), "--spec", "recursive:800", "--baseline", str(baseline), "--json")
    out = json.loads(run.stdout)
    verdicts = {c["measure"]: c for c in out["checks"]}
    assert verdicts["answer@5"]["passed"] and "within noise" in verdicts["answer@5"]["message"]
    # Survival is compared document by document: recursive 800 cuts a code block in a few documents
    # (within noise) but figure sentences in many (a real regression).
    assert set(document["groups"]) == {*ATOM_KINDS, *(f"{k}.all" for k in ATOM_KINDS)}
    assert sum(c for _, _, c in document["groups"]["code"]) == 102  # the code blocks of at most 800 characters
    assert sum(c for _, _, c in document["groups"]["code.all"]) == 135
    assert verdicts["code"]["passed"] and "within noise" in verdicts["code"]["message"]
    assert not verdicts["num"]["passed"] and verdicts["num"]["message"].startswith(
        "num regressed from 100.0% to 99.1% (baseline): -0.9 points")
    strict = json.loads(check(str(SAMPLE), "--spec", "recursive:800", "--baseline", str(baseline), "--json",
                              "--strict").stdout)
    assert not {c["measure"]: c for c in strict["checks"]}["answer@5"]["passed"]
    assert not {c["measure"]: c for c in strict["checks"]}["code"]["passed"]


def test_a_survival_regresses_against_its_baseline_only_when_documents_say_so():
    """Constructed: 30 documents of 4 code blocks each, all kept whole in the baseline. Losing one
    block in one document is noise; losing one in each of 12 is a regression; a baseline without
    its documents is compared exactly, and says so."""
    whole = [[g, 4, 4] for g in range(30)]
    baseline = {"measures": {"code": 1.0}, "groups": {"code": whole}}
    one = [[g, 3 if g == 7 else 4, 4] for g in range(30)]
    held = check_gate({"code": 119 / 120}, baseline=baseline, groups={"code": [tuple(g) for g in one]})
    assert held.passed and "code moved from 100.0% to 99.2% (baseline) within noise" in held.notes[0]
    assert not check_gate({"code": 119 / 120}, baseline=baseline, groups={"code": one}, strict=True).passed
    many = [[g, 3 if g % 5 < 2 else 4, 4] for g in range(30)]
    worse = check_gate({"code": 108 / 120}, baseline=baseline, groups={"code": many})
    assert [c.message for c in worse.failures] == [
        "code regressed from 100.0% to 90.0% (baseline): -10.0 points [-14.8, -5.6] with 30 groups of documents "
        "resampled, p < 0.001"]
    old = check_gate({"code": 119 / 120}, baseline={"measures": {"code": 1.0}}, groups={"code": one})
    assert not old.passed and any("does not say how each document fared" in note for note in old.notes)


def test_a_baseline_written_for_another_run_says_each_difference():
    from inspector.reports.gate_notes import baseline_notes

    same = {"corpus": {"fingerprint": "f"}, "spec": "structured:800", "retriever": "bm25", "expand": 0}
    assert baseline_notes(same, fingerprint="f", label="structured:800", retriever="bm25", expand=0) == []
    assert baseline_notes(None, fingerprint="f", label="x", retriever="y", expand=1) == []
    other = {"corpus": {"fingerprint": "g"}, "spec": "fixed:300", "retriever": "dense:minilm", "expand": 1}
    assert baseline_notes(other, fingerprint="f", label="structured:800", retriever="bm25", expand=0) == [
        "the baseline was written for a different corpus",
        "the baseline was written for fixed:300, this run is structured:800",
        "the baseline was ranked by dense:minilm, this run by bm25",
        "the baseline read ±1 neighbours, this run ±0"]


def test_an_imported_set_judged_on_its_emitted_text_says_so_only_when_the_counts_differ():
    from inspector.reports.gate_notes import emitted_note

    assert emitted_note("langchain", 3, 3, 512, "tokens") is None
    assert emitted_note("langchain", 3, 5, 512, "tokens") == (
        "oversized is judged on the text langchain emitted: 3 chunks over 512 tokens (5 by their span in the "
        "document, which holds whitespace the tool dropped)")
