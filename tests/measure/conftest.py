"""The measure room's fixtures: a local Ray cluster for the ``ray``-marked tests."""

from __future__ import annotations

import os

import pytest


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
