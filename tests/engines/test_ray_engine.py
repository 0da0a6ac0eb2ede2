"""``--engine ray``: documents read, analysed, split, measured, and BM25 indexed and ranked, on a
local Ray cluster (2 CPUs, started by the test) give the local engine's report byte for byte, in
both atom modes, with a golden set, neighbour windows, the user's questions and the fixes table,
the driver neither reading a file nor holding a workspace (nor for ``check`` and ``export``);
what needs the corpus on the driver (a hybrid retriever) holds it there."""

from __future__ import annotations

import json
import logging
import os
import site
from pathlib import Path

import pytest

from inspector import load_corpus
from inspector.cli import main
from inspector.context.store import ContextStore, document_hash
from inspector.corpus.load import Reading
from inspector.data_folder import ENV_DATA
from inspector.engines.ray.corpus import ClusterWorkspace
from inspector.engines.ray.partitions import RayBM25Retriever
from inspector.engines.ray.session import QUIET_DATA, RAY_NOTICES, local_workers_environment, start_ray
from inspector.extras import install_hint
from inspector.measure.workspace import Workspace
from tests.support.engines import check_and_export, generated, with_unreadable_files
from tests.support.paths import ROOT, SAMPLE

pytestmark = pytest.mark.ray


def report(capsys, monkeypatch, folder, data, *args) -> str:
    monkeypatch.setenv(ENV_DATA, str(data))  # a fresh data folder: nothing is read from an earlier run
    # One process: a process running Ray's threads must not fork the report's workers.
    assert main(["report", str(folder), "--json", "--quiet", "--jobs", "1", *args]) == 0
    return capsys.readouterr().out


def driver_holds_nothing(monkeypatch) -> None:
    """From here on, reading a file or making a workspace in this process fails the test (Ray's
    workers and actors run in processes of their own, unpatched)."""
    def refused(*args, **kwargs):
        raise AssertionError("the driver read a file or built a workspace: the cluster should hold the corpus")

    monkeypatch.setattr(Reading, "read", refused)
    monkeypatch.setattr(Workspace, "__init__", refused)


def test_a_ray_the_command_started_is_shut_down_when_it_ends(capsys, caplog, monkeypatch, tmp_path):
    """Before the module's cluster starts: the command starts a local Ray itself, and stops it
    (on a few of the sample corpus's files: the cluster's work is the other tests'). Ray's
    notices of what it chose (token authentication, no progress bars) are not printed."""
    ray = pytest.importorskip("ray")
    corpus = SAMPLE / "handbook"
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)  # as in a new process: Ray picks it and says so
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    assert main(["export", str(corpus), "--spec", "fixed:400"]) == 0
    local = capsys.readouterr().out
    assert not ray.is_initialized()
    logging.getLogger("ray").addHandler(caplog.handler)  # Ray's loggers print through it, not the root's
    try:
        assert main(["export", str(corpus), "--spec", "fixed:400", "--engine", "ray"]) == 0
    finally:
        logging.getLogger("ray").removeHandler(caplog.handler)
    assert capsys.readouterr().out == local and local.count("\n") > 20
    assert not ray.is_initialized()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    # Ray says some notices once a process: whether it said them here, they are held back.
    assert not any(logging.getLogger(name).isEnabledFor(logging.WARNING) for name in RAY_NOTICES)


def test_a_local_ray_starts_its_workers_on_the_commands_path_and_a_cluster_gets_the_package(monkeypatch):
    """A local Ray's workers run this interpreter and inherit the path to the package (a runtime
    environment would start each through Ray's set-up process, a second interpreter, first); a
    cluster's workers get the package with the job. The command's own environment is left as it was."""
    ray = pytest.importorskip("ray")
    seen: list[dict] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **given: seen.append(
        {**given, "path": os.environ.get("PYTHONPATH"), "quiet": os.environ.get(QUIET_DATA)}))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv(QUIET_DATA, raising=False)
    monkeypatch.setenv("PYTHONPATH", "elsewhere")
    assert start_ray(num_cpus=1)
    (local,) = seen
    assert "runtime_env" not in local and local["quiet"] == "1"
    assert local["path"].split(os.pathsep) == [str(ROOT), "elsewhere"]  # the folder holding the package, first
    assert os.environ["PYTHONPATH"] == "elsewhere" and QUIET_DATA not in os.environ
    installed = Path(site.getsitepackages()[0]) / "inspector"  # a wheel's: on every worker's path already
    with local_workers_environment(installed):
        assert os.environ["PYTHONPATH"] == "elsewhere" and os.environ[QUIET_DATA] == "1"
    monkeypatch.setenv("RAY_ADDRESS", "ray://127.0.0.1:10001")
    assert start_ray()
    assert seen[1]["runtime_env"] == {"py_modules": [str(ROOT / "inspector")], "env_vars": {QUIET_DATA: "1"}}


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_ray_engine_prints_the_local_engines_report(cluster, capsys, monkeypatch, tmp_path, mode):
    """A golden set, neighbour windows, the user's questions, the fixes table, another library's
    splitter and context lines, every pass made by the partitions' actors."""
    questions = tmp_path / "questions.jsonl"
    questions.write_text("\n".join(json.dumps({"question": q}) for q in (
        "How many vacation days do employees get?", "Which regions store backups?", "zzzz qqqq",
        "Wie viele Urlaubstage gibt es?")) + "\n", encoding="utf-8")
    work = Workspace(load_corpus(SAMPLE, mode=mode), mode)
    for data in ("local", "ray"):  # context lines for recursive:800's chunks, in each run's data folder
        store = ContextStore(tmp_path / data)
        for document, result in zip(work.documents, work.split("recursive:800")):
            store.put("m", document_hash(document.text), [(*c.span, f"From {document.title}.") for c in result.chunks])
    args = ["--atoms", mode, "--golden", str(SAMPLE / "golden-questions.jsonl"), "--expand", "1",
            "--questions", str(questions), "--fixes", "structured:800", "--spec", "ext-langchain:600",
            "--spec", "recursive:800+context;llm=m"]
    local = report(capsys, monkeypatch, SAMPLE, tmp_path / "local", *args)
    assert '"questions"' in local and '"expand": 1' in local and '"fixes"' in local
    passes, crossed = [], ClusterWorkspace.crossed
    monkeypatch.setattr(ClusterWorkspace, "crossed",
                        lambda self, what, *a: passes.append(what) or crossed(self, what, *a))
    driver_holds_nothing(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "ray", *args, "--engine", "ray") == local
    assert {"quotes", "measure", "rank", "read back", "golden"} <= set(passes)
    assert "suspects" in passes


def test_a_hybrid_retriever_ranks_on_the_cluster(cluster, capsys, monkeypatch, tmp_path):
    """The actors embed their chunks and rank them, fused over the cluster (the batch jobs a dense
    ranking runs are those the local batches run); the driver holds no corpus."""
    args = ["--spec", "fixed:400", "--budgets", "400", "--retriever", "hybrid", "--questions",
            str(SAMPLE / "golden-questions.jsonl"), "--golden", str(SAMPLE / "golden-questions.jsonl")]
    local = report(capsys, monkeypatch, SAMPLE, tmp_path / "local", *args)
    driver_holds_nothing(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "ray", *args, "--engine", "ray") == local


def test_what_needs_the_corpus_on_the_driver_is_held_there_and_ranked_on_the_partitions(cluster, capsys,
                                                                                        monkeypatch, tmp_path):
    """What the user's own system retrieved, ranked by a hybrid retriever: the driver holds the
    corpus, the partitions still rank BM25's half."""
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text(json.dumps({"question": "How long is parental leave?", "retrieved": [
        {"doc_id": "handbook/parental-leave.md", "text": "18 weeks of fully paid parental leave"}]}) + "\n")
    args = ["--spec", "fixed:400", "--budgets", "400", "--retriever", "hybrid", "--questions", str(theirs)]
    local = report(capsys, monkeypatch, SAMPLE, tmp_path / "local", *args)
    ranked, rank = [], RayBM25Retriever.rank
    monkeypatch.setattr(RayBM25Retriever, "rank",
                        lambda self, asks, pool, k: ranked.append(k) or rank(self, asks, pool, k))
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "ray"))
    assert main(["report", str(SAMPLE), "--json", "--quiet", "--jobs", "1", *args, "--engine", "ray"]) == 0
    shown = capsys.readouterr()
    assert shown.out == local and ranked and "held in memory here rather than held by the cluster" in shown.err


def test_a_few_thousand_documents_give_the_same_report_on_ray(cluster, capsys, monkeypatch, tmp_path):
    corpus = generated(tmp_path / "corpus")
    spec = ["--spec", "structured:400", "--spec", "fixed:400", "--budgets", "400,800"]
    local = report(capsys, monkeypatch, corpus, tmp_path / "local", *spec)
    assert '"documents": 2000' in local
    driver_holds_nothing(monkeypatch)
    assert report(capsys, monkeypatch, corpus, tmp_path / "ray", "--engine", "ray", *spec) == local


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_cluster_alone_reads_and_measures_the_corpus(cluster, capsys, monkeypatch, tmp_path, mode):
    corpus = with_unreadable_files(tmp_path / "corpus")
    grouped = ["--by-format", "--by-language"]
    local = report(capsys, monkeypatch, corpus, tmp_path / "local", "--atoms", mode, *grouped)
    assert local.count('"reason"') == 2 and '"by_language"' in local
    assert '"format": "pdf"' in local if mode == "markdown" else '"format": "markdown"' in local
    driver_holds_nothing(monkeypatch)
    assert report(capsys, monkeypatch, corpus, tmp_path / "ray", "--atoms", mode, "--engine", "ray", *grouped) == local
    # Again, the analyses now read from the data folder by Ray's workers.
    assert report(capsys, monkeypatch, corpus, tmp_path / "ray", "--atoms", mode, "--engine", "ray", *grouped) == local
    assert (tmp_path / "ray" / "analyses.sqlite3").stat().st_size > 100_000
    assert (tmp_path / "ray" / "kept.sqlite3").stat().st_size > 100_000  # the actors' splits, terms and counts


def test_without_ray_the_engine_is_refused_with_what_to_install(capsys, monkeypatch):
    monkeypatch.setattr("inspector.engines.ray.session.ray_available", lambda: False)
    assert main(["report", str(SAMPLE), "--engine", "ray", "--quiet"]) == 2
    assert install_hint("ray") in capsys.readouterr().err


def test_jobs_asked_of_the_ray_engine_are_said_to_be_unused(cluster, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_DATA, str(tmp_path))
    assert main(["report", str(SAMPLE / "handbook"), "--quiet", "--atoms", "seed", "--spec", "fixed:400",
                 "--budgets", "400", "--engine", "ray", "--jobs", "3"]) == 0
    assert "--jobs is not used" in capsys.readouterr().err


def test_check_and_export_run_on_ray_too(cluster, capsys, monkeypatch, tmp_path):
    held = check_and_export(capsys, monkeypatch, tmp_path / "memory", "memory")
    driver_holds_nothing(monkeypatch)
    assert check_and_export(capsys, monkeypatch, tmp_path / "ray", "ray") == held
    assert '"fingerprint"' in held[1] and held[0].count('"chunk_id"') > 300


def test_a_listing_of_files_is_read_by_the_cluster_as_locally(cluster, capsys, monkeypatch, tmp_path):
    listing = tmp_path / "files.txt"
    names = sorted(p.relative_to(SAMPLE).as_posix() for p in SAMPLE.rglob("*.md"))[:12]
    listing.write_text("\n".join([*names, "no-such-file.md"]) + "\n", encoding="utf-8")
    args = ["--files-from", str(listing), "--spec", "fixed:400", "--budgets", "400"]
    local = report(capsys, monkeypatch, SAMPLE, tmp_path / "local", *args)
    assert '"documents": 12' in local and '"path": "no-such-file.md"' in local
    driver_holds_nothing(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "ray", *args, "--engine", "ray") == local
    assert main(["report", str(SAMPLE), *args, "--engine", "ray"]) == 0  # the progress bar, this time
    shown = capsys.readouterr().err
    assert "12/12 files read on the cluster" in shown and "12/12 documents measured" in shown


def test_the_cluster_alone_logs_the_local_engines_mlflow_runs(cluster, capsys, monkeypatch, tmp_path):
    mlflow = pytest.importorskip("mlflow")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    logged = []
    for engine in ("memory", "ray"):
        if engine == "ray":
            driver_holds_nothing(monkeypatch)
        monkeypatch.setenv(ENV_DATA, str(tmp_path / f"data-{engine}"))
        store = tmp_path / engine
        assert main(["check", str(SAMPLE / "handbook"), "--spec", "heading:256t", "--mlflow", str(store),
                     "--engine", engine]) == 0
        capsys.readouterr()
        mlflow.set_tracking_uri(store.as_uri())
        (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list")
        logged.append((run.data.params, run.data.metrics))
    assert logged[1] == logged[0] and logged[1][1]["tokens_p50"] > 0
    assert logged[1][0]["corpus"] == logged[0][0]["corpus"] != ""  # the corpus's fingerprint, digested as it passed


def test_tune_runs_on_the_cluster_as_locally(cluster, capsys, monkeypatch, tmp_path):
    space = tmp_path / "space.toml"
    space.write_text('kinds = ["structured", "fixed"]\nbudgets = [400, 800]\noverlaps = [0]\nprefixes = [""]\n')
    found = {}
    for engine in ("memory", "ray"):
        if engine == "ray":
            driver_holds_nothing(monkeypatch)
        monkeypatch.setenv(ENV_DATA, str(tmp_path / engine))
        assert main(["tune", str(SAMPLE), "--golden", str(SAMPLE / "golden-questions.jsonl"), "--space", str(space),
                     "--json", "--quiet", "--engine", engine]) == 0
        found[engine] = json.loads(capsys.readouterr().out)
    assert found["ray"] == found["memory"] and len(found["ray"]["candidates"]) == 4
