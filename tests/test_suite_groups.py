"""The suite's worker groups hold under ``make test`` (``-n auto --dist loadgroup``): the Ray tests
share one worker (two local clusters at once on two cores starve each other), as do the tests of
a module marked with a group (one wheel built, one converter loaded). Nothing fails when a group
is lost: its tests are spread over the workers and each worker pays for the set-up again."""

from __future__ import annotations

import re

from tests.support.paths import ROOT

GROUPED = '''
import pytest

pytestmark = pytest.mark.xdist_group("installed")


@pytest.mark.parametrize("n", range(4))
def test_built_once(n):
    pass
'''

RAY = '''
import pytest


@pytest.mark.ray
@pytest.mark.parametrize("n", range(4))
def test_on_the_cluster(n):
    pass
'''

LOOSE = '''
import pytest


@pytest.mark.parametrize("n", range(8))
def test_anywhere(n):
    pass
'''


def test_tests_marked_with_a_group_or_for_ray_run_on_one_worker(pytester, monkeypatch):
    # The suite's own hook, which gives the Ray tests their group.
    pytester.makeconftest("from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n\n"
                          "def pytest_configure(config):\n"
                          "    config.addinivalue_line('markers', 'ray: a Ray test')\n")
    pytester.makepyfile(test_grouped=GROUPED, test_ray_one=RAY, test_ray_two=RAY, test_loose=LOOSE)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    ran = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-v", "-p", "no:cacheprovider")
    ran.assert_outcomes(passed=20)
    workers: dict[str, set[str]] = {}
    for worker, test in re.findall(r"\[(gw\d)\].*PASSED (\S+)", ran.stdout.str()):
        group = test.rsplit("@", 1)[1] if "@" in test.rsplit("]", 1)[-1] else test
        workers.setdefault(group, set()).add(worker)
    assert len(workers.get("installed", ())) == 1, f"a module's group ran on one worker: {workers}"
    assert len(workers.get("ray", ())) == 1, f"the Ray tests of every module ran on one worker: {workers}"
    assert len({w for tests in workers.values() for w in tests}) == 2, "the rest was spread"
