"""Fixtures every suite may use: the bundled corpus and workspaces over it, and an isolated app
environment. Shared helpers that are not fixtures live in ``tests.support``."""

from __future__ import annotations

import functools
import gc
import os
from pathlib import Path

import pytest

from inspector import Workspace, load_corpus
from tests.support.network import switch_off
from tests.support.paths import SAMPLE

# Under CI a skip for something .ci/run installs fails the run (tests/support/ci_skips.py).
pytest_plugins = ("tests.support.ci_skips", "pytester")


def pytest_configure(config):
    switch_off()
    # A command run without CHUNK_INSPECTOR_DATA keeps what it measures in the user's data
    # directory: for the suite, one under the checkout's artifacts (shared by the workers, left
    # out of the user's home), already there, so no first-use note is printed where a test counts
    # the lines a command writes.
    home = Path(__file__).resolve().parents[1] / "artifacts" / "data-home"
    (home / "chunk-inspector").mkdir(parents=True, exist_ok=True)
    os.environ["XDG_DATA_HOME"] = str(home)
    _scan_components_once()


def _scan_components_once() -> None:
    # Each new AppTest looks for installed Streamlit components by reading the metadata of every
    # distribution in the environment (300 here, 0.35 s per AppTest); what is installed does not
    # change while the suite runs, so the first scan of a process answers the rest.
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    # Under xdist (``make test``), the Ray tests run in one worker: a module starts one local Ray
    # for its tests, and two clusters at once on two cores would starve each other. The tests
    # starting a real service (an MLflow server) share another. First, before xdist's own hook
    # reads the groups off the items.
    for item in items:
        if item.get_closest_marker("ray"):
            item.add_marker(pytest.mark.xdist_group("ray"))
        elif item.get_closest_marker("service"):
            item.add_marker(pytest.mark.xdist_group("services"))


def pytest_collection_finish(session):
    # What the run holds from here to its end (every module imported, every test collected):
    # frozen, it is not walked again by each collection that a test's own objects set off.
    gc.freeze()


@pytest.fixture(autouse=True)
def no_spending_left_behind():
    """A test that started the app charged its paid requests to a ledger; the next test (the
    command line's, say) starts with none, as a fresh process does."""
    yield
    from inspector.retrieval.spending import uninstall

    uninstall()


@pytest.fixture(scope="session")
def sample_seed() -> Workspace:
    return Workspace(load_corpus(SAMPLE, mode="seed"), "seed")


@pytest.fixture(scope="session")
def sample_markdown() -> Workspace:
    return Workspace(load_corpus(SAMPLE, mode="markdown"), "markdown")


@pytest.fixture
def isolated_app(monkeypatch, tmp_path) -> Path:
    """An app environment of its own: a fresh data folder (review store, chunk sets), and no
    launch settings leaking in from the shell. Returns the data folder."""
    from inspector.data_folder import ENV_DATA
    from inspector.views.launch import ENV_CORPUS, ENV_ROOTS

    monkeypatch.delenv(ENV_ROOTS, raising=False)
    monkeypatch.delenv(ENV_CORPUS, raising=False)
    monkeypatch.delenv("CHUNK_INSPECTOR_ROLES", raising=False)
    folder = tmp_path / "data"
    monkeypatch.setenv(ENV_DATA, str(folder))
    return folder


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(SAMPLE)


@pytest.fixture(scope="module")
def work() -> Workspace:
    return Workspace(load_corpus(SAMPLE))


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL server of its own on 127.0.0.1 (Debian's), for the whole run of a worker."""
    from tests.support.services import postgres_binaries, started_postgres

    if postgres_binaries() is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's postgresql is not installed (CI is set, so this test may not be skipped)")
        pytest.skip("Debian's postgresql is not installed (apt-get install postgresql)")
    with started_postgres() as uri:
        yield uri


@pytest.fixture
def postgres_empty(postgres_url):
    """``postgres_url`` without the review store's tables."""
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS rounds, answers, audit, schema_version")
    return postgres_url
