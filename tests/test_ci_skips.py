"""Under CI a skip for a missing package fails the run, naming the test; a skip that says
something of the machine (root and file permissions) still skips; outside CI skips stay skips."""

from __future__ import annotations

import pytest

from tests.support.paths import ROOT

MODULE_SKIP = 'import pytest\npytest.importorskip("no_such_package_anywhere")\n\ndef test_x():\n    pass\n'
RUN_SKIP = ('import pytest\n\ndef test_needs_a_tool():\n    pytest.skip("Chromium not found")\n\n'
            'def test_as_root():\n    pytest.skip("root ignores file permissions")\n\n'
            '@pytest.mark.xfail(reason="known")\ndef test_known():\n    assert False\n')


@pytest.mark.parametrize("ci, workers", [("true", []), ("", []), ("true", ["-n", "2"])])
def test_a_skip_under_ci_fails_and_names_the_test(pytester, monkeypatch, ci, workers):
    monkeypatch.setenv("CI", ci) if ci else monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_module_skip=MODULE_SKIP, test_run_skip=RUN_SKIP)
    result = pytester.runpytest_subprocess("-p", "tests.support.ci_skips", "-p", "no:cacheprovider", "-rA", *workers)
    outcomes = result.parseoutcomes()
    if ci:
        assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
        assert outcomes.get("failed") == 1 and outcomes.get("skipped") == 2 and outcomes.get("xfailed") == 1
        result.stdout.fnmatch_lines(["*test_run_skip.py::test_needs_a_tool was skipped under CI (Chromium not found)*",
                                     "*test_module_skip.py was skipped under CI (could not import*"])
    else:
        assert outcomes.get("skipped") == 3 and not outcomes.get("failed") and not outcomes.get("errors")


def test_a_module_skipped_at_collection_alone_fails_the_run_under_ci(pytester, monkeypatch):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_module_skip=MODULE_SKIP)
    result = pytester.runpytest_subprocess("-p", "tests.support.ci_skips", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["FAILED test_module_skip.py was skipped under CI (could not import*"])
