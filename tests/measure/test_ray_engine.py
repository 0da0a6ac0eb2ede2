"""``--engine ray``: documents analysed on a local Ray cluster (2 CPUs, started by the test) give
the local engine's report byte for byte, in both atom modes, with a golden set."""

from __future__ import annotations

import os

import pytest

from inspector.cli import main
from inspector.data_folder import ENV_DATA
from tests.support.paths import SAMPLE

pytestmark = pytest.mark.ray


@pytest.fixture(scope="module")
def cluster():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("Ray is not installed (pip install -r requirements-dev.txt); under CI the Ray tests run",
                        pytrace=False)
        pytest.skip("Ray is not installed: pip install '.[ray]' in Chunk Inspector's folder to run the Ray "
                    "engine's tests")
    from inspector.measure.ray_engine import start_ray

    saved = os.environ.pop("RAY_ADDRESS", None)
    start_ray(num_cpus=2)
    yield ray
    ray.shutdown()
    if saved is not None:
        os.environ["RAY_ADDRESS"] = saved


def report(capsys, monkeypatch, folder, data, *args) -> str:
    monkeypatch.setenv(ENV_DATA, str(data))  # a fresh data folder: nothing is read from an earlier run
    # One process: a process running Ray's threads must not fork the report's workers.
    assert main(["report", str(folder), "--json", "--quiet", "--jobs", "1", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_ray_engine_prints_the_local_engines_report(cluster, capsys, monkeypatch, tmp_path, mode):
    golden = ["--golden", str(SAMPLE / "golden-questions.jsonl")]
    local = report(capsys, monkeypatch, SAMPLE, tmp_path / "local", "--atoms", mode, *golden)
    on_ray = report(capsys, monkeypatch, SAMPLE, tmp_path / "ray", "--atoms", mode, "--engine", "ray", *golden)
    assert on_ray == local


def test_a_few_thousand_documents_give_the_same_report_on_ray(cluster, capsys, monkeypatch, tmp_path):
    paragraphs = [p for path in sorted(SAMPLE.rglob("*.md"))
                  for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip() and not p.startswith("---")]
    corpus = tmp_path / "corpus"
    for i in range(2_000):
        folder = corpus / f"part-{i // 500}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(paragraphs[(7 * i + k) % len(paragraphs)] for k in range(4))
        (folder / f"doc-{i:04d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    spec = ["--spec", "structured:400", "--spec", "fixed:400", "--budgets", "400,800"]
    local = report(capsys, monkeypatch, corpus, tmp_path / "local", *spec)
    assert '"documents": 2000' in local
    assert report(capsys, monkeypatch, corpus, tmp_path / "ray", "--engine", "ray", *spec) == local


def test_without_ray_the_engine_is_refused_with_what_to_install(capsys, monkeypatch):
    monkeypatch.setattr("inspector.measure.ray_engine.ray_available", lambda: False)
    assert main(["report", str(SAMPLE), "--engine", "ray", "--quiet"]) == 2
    assert "pip install '.[ray]' in Chunk Inspector's folder" in capsys.readouterr().err


def test_check_and_export_run_on_ray_too(cluster, capsys, monkeypatch, tmp_path):
    outputs = []
    for engine in ("local", "ray"):
        monkeypatch.setenv(ENV_DATA, str(tmp_path / engine))
        assert main(["check", str(SAMPLE), "--spec", "structured:800", "--json", "--engine", engine]) == 0
        assert main(["export", str(SAMPLE), "--spec", "structured:800", "--engine", engine]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
