"""The optional extras: ``pyproject.toml`` declares one per optional feature at the pins the dev
requirements install, ``inspector.extras`` names the same ones, and the project builds with them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib

import pytest

from inspector.extras import EXTRAS, install_hint
from tests.support.paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DECLARED = PYPROJECT["project"]["optional-dependencies"]


def pins(path) -> dict[str, str]:
    """Each pinned distribution of a requirements file, by its bare name."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return {re.split(r"[\[=]", line)[0].lower(): line for line in lines if line and not line.startswith(("#", "-r"))}


def test_every_extra_is_declared_at_the_dev_requirements_pin():
    assert set(DECLARED) == {*EXTRAS, "all"}
    dev, runtime = pins(ROOT / "requirements-dev.txt"), pins(ROOT / "requirements.txt")
    for extra, names in EXTRAS.items():
        assert [re.split(r"[\[=]", r)[0] for r in DECLARED[extra]] == list(names), extra
        for requirement in DECLARED[extra]:
            name = re.split(r"[\[=]", requirement)[0]
            assert "==" in requirement and dev[name] == requirement, f"{extra}: {requirement} vs {dev.get(name)}"
            assert name not in runtime, f"{name} is optional; it does not belong in requirements.txt"
    assert DECLARED["all"] == [f"chunk-inspector[{','.join(EXTRAS)}]"]


def test_the_install_hint_names_the_extra_and_refuses_an_unknown_one():
    assert install_hint("ray") == "pip install 'ray[data]==2.60.0'", "the extra's packages as it pins them"
    assert install_hint("mlflow").startswith("pip install 'mlflow-skinny==") and "'alembic==" in install_hint("mlflow")
    with pytest.raises(KeyError, match="the extras are langchain, llamaindex"):
        install_hint("torch")


def test_the_project_builds_with_its_runtime_pins_and_extras(tmp_path):
    pytest.importorskip("setuptools.build_meta", reason="building the metadata needs setuptools")
    from packaging.requirements import Requirement

    for name in ("pyproject.toml", "requirements.txt"):
        shutil.copy(ROOT / name, tmp_path / name)
    (tmp_path / "inspector").mkdir()
    (tmp_path / "inspector" / "__init__.py").write_text("")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps",
                           "--no-build-isolation", "--quiet", "--report", str(tmp_path / "plan.json"),
                           f"{tmp_path}[llamaindex]"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    metadata = json.loads((tmp_path / "plan.json").read_text())["install"][0]["metadata"]
    assert metadata["name"] == "chunk-inspector" and set(metadata["provides_extra"]) == set(DECLARED)
    required = metadata["requires_dist"]
    runtime = [str(Requirement(r)) for r in pins(ROOT / "requirements.txt").values()]
    assert [str(Requirement(r)) for r in required if "extra ==" not in r] == runtime
    assert 'llama-index-core==0.14.25; extra == "llamaindex"' in required


def test_installed_versions_are_what_importlib_metadata_says(tmp_path, monkeypatch):
    from importlib.metadata import PackageNotFoundError, version

    from inspector.extras import installed_version

    for name in ("markdown-it-py", "py3langid", "tiktoken", "numpy", "PyYAML", "markitdown", "docling-slim",
                 "markdown", "no-such-distribution"):
        try:
            expected = version(name)
        except PackageNotFoundError:
            expected = ""
        assert installed_version(name) == expected, name
    # A distribution whose name another one's begins with is not taken for it.
    (tmp_path / "chunk_probe_extra-2.0.dist-info").mkdir()
    (tmp_path / "chunk_probe-1.5.dist-info").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    assert installed_version("chunk-probe") == "1.5" and installed_version("Chunk.Probe_Extra") == "2.0"
