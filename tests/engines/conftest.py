"""The engines' fixtures: a local Ray cluster for the ``ray``-marked tests, and a folder
of the test's own where the streamed engine parks its batches."""

from __future__ import annotations

import os
import tempfile

import pytest


@pytest.fixture
def parked(tmp_path, monkeypatch):
    """Where the command parks its batches (a folder of the test's own)."""
    folder = tmp_path / "parked"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder



@pytest.fixture(scope="module")
def cluster():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("Ray is not installed (pip install -r requirements-dev.txt); under CI the Ray tests run",
                        pytrace=False)
        pytest.skip("Ray is not installed: pip install '.[ray]' in the checkout to run the Ray "
                    "engine's tests")
    from inspector.engines.ray.session import start_ray

    saved = os.environ.pop("RAY_ADDRESS", None)
    start_ray(num_cpus=2)
    yield ray
    ray.shutdown()
    if saved is not None:
        os.environ["RAY_ADDRESS"] = saved
