"""A pytest plugin: under ``CI`` a test may not skip for a package or tool that ``.ci/run``
installs. A test's skip becomes its failure, naming it and the reason; a module's skip at
collection (``importorskip``) is named at the end and fails the run, as an error at collection
would stop every other test. Only skips that say something of the machine itself pass."""

from __future__ import annotations

import os

import pytest

#: Skips that say something of the machine, not of a missing package or tool: root writes through
#: file permissions, so the tests of a read-only file's refusal cannot run as root.
MACHINE_SKIPS = ("root ignores file permissions", "root writes through read-only permissions",
                 "mounting a folder read-only needs root")


def skip_reason(report) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def refused_skip(report, name: str) -> str | None:
    """What to say of a skip CI may not have, or None."""
    # .ci/run installs every optional package and tool the tests use, so under CI a skip means
    # something the run should have had is missing.
    if not os.environ.get("CI") or not report.skipped or hasattr(report, "wasxfail"):
        return None
    reason = skip_reason(report)
    if reason in MACHINE_SKIPS:
        return None
    return f"{name} was skipped under CI ({reason}); .ci/run installs what it needs, so it must run"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    said = refused_skip(report, item.nodeid)
    if said:
        report.outcome, report.longrepr = "failed", said


SKIPPED_MODULES = pytest.StashKey[list]()


CONFIG: list = []


def pytest_configure(config):
    config.stash[SKIPPED_MODULES] = []
    CONFIG[:] = [config]


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report):
    # Called in the process that prints the summary, with or without xdist's workers.
    said = refused_skip(report, report.nodeid)
    if said:
        CONFIG[0].stash[SKIPPED_MODULES].append(said)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    for said in config.stash[SKIPPED_MODULES]:
        terminalreporter.write_line(f"FAILED {said}", red=True)


def pytest_sessionfinish(session, exitstatus):
    if session.config.stash[SKIPPED_MODULES] and exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
