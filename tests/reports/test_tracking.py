"""``inspector.reports.tracking`` with real MLflow: runs logged to a file store in a temporary
folder by ``report --mlflow`` and ``check --mlflow``, then read back."""

from __future__ import annotations

import json
import os

import pytest

from inspector.cli import main
from inspector.engines.stream.workspace import StreamWorkspace
from inspector.errors import TrackingError
from inspector.extras import install_hint
from inspector.reports import tracking
from tests.support.paths import SAMPLE

mlflow = pytest.importorskip("mlflow")


@pytest.fixture(autouse=True)
def data(isolated_app, monkeypatch):
    for key in ("MLFLOW_ALLOW_FILE_STORE", "MLFLOW_DISABLE_TELEMETRY", "DO_NOT_TRACK", "MLFLOW_TRACKING_URI"):
        monkeypatch.delenv(key, raising=False)
    return isolated_app


def _runs(store):
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    mlflow.set_tracking_uri(store.as_uri())
    return {run.info.run_name: run for run in mlflow.search_runs(search_all_experiments=True, output_format="list")}


def test_report_logs_one_run_per_splitter_with_its_params_and_metrics(tmp_path, capsys):
    store = tmp_path / "mlruns"
    status = main(["report", str(SAMPLE), "--spec", "fixed:800", "--spec", "structured:800+address", "--golden",
                   str(SAMPLE / "golden-questions.jsonl"), "--mlflow", str(store), "--quiet", "--json",
                   "--jobs", "1"])
    out, err = capsys.readouterr()
    assert status == 0 and "logged 2 MLflow runs" in err
    report = json.loads(out)
    runs = _runs(store)
    assert set(runs) == {"fixed:800", "structured:800+address"}
    stamped = runs["structured:800+address"]
    assert stamped.data.params["kind"] == "structured" and stamped.data.params["budget"] == "800"
    assert stamped.data.params["address"] == "true" and stamped.data.params["retriever"] == "bm25"
    row = next(r for r in report["compare"] if r["spec"] == "structured:800+address")
    metrics = stamped.data.metrics
    assert metrics["chunks"] == row["chunks"] and metrics["answer_at_5"] == pytest.approx(row["answer_at_5"])
    assert metrics["cut_rate"] == pytest.approx(row["cut"])
    assert metrics["survival.code"] == pytest.approx(row["survival"]["code"])
    golden = next(r for r in report["golden"][0]["rows"] if r["spec"] == "structured:800+address")
    assert metrics["recall_2000"] == pytest.approx(golden["recall"]["2000"])
    assert {"tokens_p50", "tokens_p99", "runt_ratio", "over_cap_512"} <= set(metrics)
    assert 0 < metrics["tokens_p50"] <= metrics["tokens_p99"]
    artifact = json.loads((store / stamped.info.experiment_id / stamped.info.run_id / "artifacts" /
                           "report.json").read_text())
    assert artifact["compare"] == [row]


def test_check_logs_its_measures_under_the_report_s_names(tmp_path, capsys):
    store = tmp_path / "runs"
    assert main(["check", str(SAMPLE), "--spec", "recursive:800", "--mlflow", str(store),
                 "--mlflow-experiment", "gate"]) == 0
    capsys.readouterr()
    (run,) = _runs(store).values()
    assert run.info.run_name == "recursive:800" and run.data.params["kind"] == "recursive"
    assert {"answer_at_5", "cut_rate", "chunks", "survival.code", "survival_all.table", "runt_ratio"} <= \
        set(run.data.metrics)
    assert mlflow.get_experiment(run.info.experiment_id).name == "gate"


def test_without_mlflow_the_run_is_refused_before_any_work(monkeypatch, capsys):
    monkeypatch.setattr(tracking, "mlflow_available", lambda: False)
    assert main(["report", str(SAMPLE), "--mlflow", "--quiet"]) == 2
    assert install_hint("mlflow") in capsys.readouterr().err
    assert main(["check", str(SAMPLE), "--spec", "fixed:800", "--mlflow"]) == 2


def test_a_plain_path_becomes_a_file_uri_and_a_refusal_is_a_tracking_error(tmp_path):
    assert tracking.tracking_uri(str(tmp_path / "m")) == (tmp_path / "m").as_uri()
    assert tracking.tracking_uri("http://127.0.0.1:5000") == "http://127.0.0.1:5000"
    with pytest.raises(TrackingError, match="refused"):
        tracking.log_runs([tracking.TrackedRun("x", {"a": "1"}, {"bad@name": 1.0})], str(tmp_path / "m"))


def test_a_streamed_corpus_logs_the_runs_the_held_corpus_logs(tmp_path, capsys, monkeypatch):
    """``--mlflow`` with ``--engine stream``: the chunk sizes come from the batches, in corpus order,
    so every parameter and metric is the held corpus's; ``check`` likewise."""
    streamed, sizes = [], StreamWorkspace.sizes
    monkeypatch.setattr(StreamWorkspace, "sizes", lambda self, spec, unit=None: streamed.append(str(spec))
                        or sizes(self, spec, unit))
    logged = []
    for engine in ("memory", "stream"):
        store = tmp_path / engine
        assert main(["report", str(SAMPLE), "--spec", "fixed:800", "--spec", "heading:256t", "--budgets", "400",
                     "--mlflow", str(store), "--quiet", "--engine", engine]) == 0
        assert main(["check", str(SAMPLE), "--spec", "structured:800", "--mlflow", str(store),
                     "--mlflow-experiment", "gate", "--engine", engine]) == 0
        capsys.readouterr()
        logged.append({name: (run.data.params, run.data.metrics) for name, run in _runs(store).items()})
    assert set(logged[1]) == {"fixed:800", "heading:256t", "structured:800"}
    assert logged[1] == logged[0]
    assert streamed == ["fixed:800", "heading:256t", "structured:800"]  # measured from the batches
    assert logged[1]["heading:256t"][1]["tokens_p99"] > logged[1]["heading:256t"][1]["tokens_p50"] > 0


def test_a_sqlite_store_takes_the_runs_as_mlflow_3_recommends(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where MLflow keeps a SQL store's artifacts (./mlruns)
    uri = f"sqlite:///{tmp_path / 'runs.db'}"
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--mlflow", uri]) == 0
    assert f"logged 1 MLflow run to {uri}" in capsys.readouterr().err
    mlflow.set_tracking_uri(uri)
    (run,) = mlflow.search_runs(search_all_experiments=True, output_format="list")
    assert run.info.run_name == "recursive:800" and "survival.code" in run.data.metrics


@pytest.mark.parametrize("where", ["file", "/dev/null", "/proc/self", "read-only", "sqlite-folder", "sqlite-nowhere",
                                   "postgresql-down"])
def test_a_store_that_cannot_log_is_one_line_after_the_printed_report(tmp_path, capsys, where):
    from tests.support.services import free_port

    target = {"file": tmp_path / "a-file", "/dev/null": "/dev/null", "/proc/self": "file:/proc/self",
              "read-only": tmp_path / "locked" / "mlruns", "sqlite-folder": f"sqlite:///{tmp_path}",
              "sqlite-nowhere": f"sqlite:///{tmp_path}/no/runs.db",
              "postgresql-down": f"postgresql://someone@127.0.0.1:{free_port()}/runs"}[where]
    (tmp_path / "a-file").write_text("not a folder\n")
    (tmp_path / "locked").mkdir(mode=0o500)
    if where == "read-only" and os.access(tmp_path / "locked", os.W_OK):
        pytest.skip("root writes through read-only permissions")
    status = main(["report", str(SAMPLE / "handbook"), "--spec", "fixed:800", "--budgets", "400", "--quiet", "--json",
                   "--mlflow", str(target)])
    out, err = capsys.readouterr()
    assert status == 2 and json.loads(out)["compare"][0]["spec"] == "fixed:800"  # the report came first
    assert len(err.strip().splitlines()) == 1 and "the report above was not logged" in err
    assert "Traceback" not in err and "MLflow" in err
    if where == "postgresql-down":
        assert "Connection refused" in err  # the driver the extra brings was there and tried


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory):
    """A real ``mlflow server`` on 127.0.0.1 with a SQLite store, for the module's tests."""
    from tests.support.services import started_mlflow_server

    with started_mlflow_server(tmp_path_factory.mktemp("mlflow-server")) as url:
        yield url


@pytest.mark.service
def test_a_tracking_server_receives_the_runs_of_report_and_check(mlflow_server, capsys, tmp_path):
    assert main(["report", str(SAMPLE / "handbook"), "--spec", "fixed:800", "--spec", "structured:800",
                 "--budgets", "400", "--quiet", "--json", "--mlflow", mlflow_server,
                 "--mlflow-experiment", "served"]) == 0
    assert json.loads(capsys.readouterr().out)["compare"]  # MLflow's run addresses went to stderr
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "structured:800", "--mlflow", mlflow_server,
                 "--mlflow-experiment", "served"]) == 0
    assert f"to {mlflow_server} (experiment served)" in capsys.readouterr().err
    client = mlflow.MlflowClient(mlflow_server)
    experiment = client.get_experiment_by_name("served")
    runs = client.search_runs([experiment.experiment_id])
    assert sorted(run.info.run_name for run in runs) == ["fixed:800", "structured:800", "structured:800"]
    # Into the test's folder: by default MLflow downloads to a temporary folder it never removes.
    artifact = client.download_artifacts(runs[0].info.run_id, "report.json", dst_path=str(tmp_path))
    assert "passed" in json.loads(open(artifact, encoding="utf-8").read())  # the check's run: the gate's result


def test_a_password_in_the_tracking_uri_is_not_repeated(tmp_path, capsys):
    from tests.support.services import free_port

    uri = f"postgresql://someone:s3cret@127.0.0.1:{free_port()}/runs"
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "fixed:800", "--mlflow", uri]) == 2
    err = capsys.readouterr().err
    assert "s3cret" not in err and "postgresql://someone:***@127.0.0.1" in err and "cannot be reached" in err


@pytest.mark.service
def test_a_postgresql_store_takes_the_runs(capsys, tmp_path, monkeypatch):
    from tests.support.services import postgres_binaries, started_postgres

    monkeypatch.chdir(tmp_path)  # where MLflow keeps a SQL store's artifacts (./mlruns)
    if postgres_binaries() is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's postgresql is not installed (CI is set, so this test may not be skipped)")
        pytest.skip("Debian's postgresql is not installed (apt-get install postgresql)")
    with started_postgres() as uri:
        assert main(["check", str(SAMPLE / "handbook"), "--spec", "recursive:800", "--mlflow", uri,
                     "--mlflow-experiment", "in-postgres"]) == 0
        assert f"logged 1 MLflow run to {uri}" in capsys.readouterr().err
        client = mlflow.MlflowClient(uri)
        (run,) = client.search_runs([client.get_experiment_by_name("in-postgres").experiment_id])
        assert run.info.run_name == "recursive:800" and "survival.code" in run.data.metrics
