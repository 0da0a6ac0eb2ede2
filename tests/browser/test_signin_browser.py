"""Signing in for real: an OpenID Connect provider on 127.0.0.1 (``oidc-provider-mock``, from the
package index), the app with ``[auth]`` in its ``.streamlit/secrets.toml`` and roles in
``CHUNK_INSPECTOR_ROLES``, and Chromium signing people in through the provider's form. Two
signed-in reviewers' answers are recorded under their identities and appear on each other's
Results tab by themselves; a visitor with the link reads but cannot save, a reviewer cannot open
a folder, the admin can, and the audit trail says so. Someone whose provider did not verify the
admin's address they registered is signed in as a viewer and told why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from inspector import Workspace, load_corpus
from inspector.access import AuditTrail
from inspector.review import ReviewStore
from inspector.review.database import STORE_NAME
from inspector.review.rounds import ReviewRound, draw
from tests.support.browser import answer, card_title, free_port, settle, wait_until_healthy
from tests.support.paths import ROOT

pytestmark = pytest.mark.browser

WORKSPACE = Workspace(load_corpus(ROOT / "sample_corpus"))
ROUND = ReviewRound.create(WORKSPACE, "structured:800", size=3, seed=5)
COUNT = len(draw(ROUND, WORKSPACE))
PEOPLE = ({"sub": "dana", "email": "dana@acme.com", "name": "Dana", "email_verified": True},
          {"sub": "ravi", "email": "ravi@acme.com", "name": "Ravi", "email_verified": True},
          # Registered Dana's address where the provider never checked it: it must grant nothing.
          {"sub": "mallory", "email": "dana@acme.com", "name": "Mallory", "email_verified": False})


@pytest.fixture(scope="module")
def signed_app(chromium_path, tmp_path_factory):
    """The provider and the app, each a process of its own; yields (app url, data folder, a
    folder only an admin may open)."""
    import json

    home = tmp_path_factory.mktemp("signed")
    docs = home / "docs"
    docs.mkdir()
    (docs / "ports.md").write_text("# Ports\n\nReplication uses port 7430.\n")
    provider_port, app_port = free_port(), free_port()
    (home / ".streamlit").mkdir()
    (home / ".streamlit" / "secrets.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{app_port}/oauth2callback"\n'
        'cookie_secret = "a-cookie-secret-for-the-test-only"\n'
        'client_id = "chunk-inspector"\nclient_secret = "test-secret"\n'
        f'server_metadata_url = "http://127.0.0.1:{provider_port}/.well-known/openid-configuration"\n')
    claims = [arg for person in PEOPLE for arg in ("--user-claims", json.dumps(person))]
    logs = ROOT / "artifacts"
    logs.mkdir(exist_ok=True)
    provider_log = open(logs / "oidc-provider.log", "wb")
    provider = subprocess.Popen([str(Path(sys.executable).parent / "oidc-provider-mock"), "-p", str(provider_port),
                                 *claims], stdout=provider_log, stderr=subprocess.STDOUT)
    env = dict(os.environ, CHUNK_INSPECTOR_DATA=str(home / "data"), CHUNK_INSPECTOR_ROOTS=str(docs),
               CHUNK_INSPECTOR_ROLES="admin=dana@acme.com;reviewer=@acme.com")
    env.pop("CHUNK_INSPECTOR_CORPUS", None)
    app_log_path = logs / "streamlit-signed.log"
    with open(app_log_path, "wb") as app_log:
        app = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
                                "--server.headless=true", f"--server.port={app_port}", "--server.address=127.0.0.1",
                                "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
                               cwd=home, env=env, stdout=app_log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{app_port}"
        wait_until_healthy(app, url, app_log_path, 60)
        _wait_for(provider, f"http://127.0.0.1:{provider_port}/.well-known/openid-configuration",
                  logs / "oidc-provider.log")
        yield url, home / "data", docs
    finally:
        for process in (app, provider):
            os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        provider_log.close()


def _wait_for(server, url: str, log: Path, seconds: float = 30.0) -> None:
    import time
    import urllib.request

    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the provider did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.25)


def signed_in(browser, url: str, link: str, subject: str):
    """A browser profile of its own, signed in through the provider's form as ``subject``, then
    on ``link``."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1300, "height": 1400})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(url)
    settle(page)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_placeholder("sub").fill(subject)
    page.get_by_role("button", name="Authorize").click()
    page.wait_for_url(f"{url}/**")
    settle(page)
    expect(page.get_by_text("Signed in as", exact=False)).to_be_visible()
    page.goto(link)
    settle(page)
    return page


def test_signed_in_reviewers_answer_under_their_identities_and_only_an_admin_opens_a_folder(browser, signed_app):
    from playwright.sync_api import expect

    url, data, docs = signed_app
    link = f"{url}/orphan-test?" + urlencode({"spec": ROUND.spec, **ROUND.to_query_params()})

    visitor = browser.new_context(viewport={"width": 1300, "height": 1400}).new_page()
    visitor.goto(link)
    settle(visitor)
    expect(visitor.get_by_text("To save review answers you need the reviewer role", exact=False)).to_be_visible()
    expect(visitor.get_by_label("Your name", exact=True)).to_have_count(0)

    dana = signed_in(browser, url, link, "dana")
    expect(dana.get_by_text("Reviewing as Dana (dana@acme.com).")).to_be_visible()
    expect(card_title(dana)).to_have_text(f"Chunk 1 of {COUNT}")
    answer(dana, 1, COUNT, (True, True, True))
    dana.get_by_role("tab", name="Results").click()
    results = dana.get_by_role("tabpanel", name="Results")
    reviewers = results.get_by_test_id("stMetric").filter(
        has=dana.get_by_test_id("stMetricLabel").get_by_text("Reviewers", exact=True)).get_by_test_id("stMetricValue")
    expect(reviewers).to_have_text("1")

    ravi = signed_in(browser, url, link, "ravi")
    expect(ravi.get_by_text("Signed in as Ravi (ravi@acme.com): reviewer.")).to_be_visible()
    answer(ravi, 1, COUNT, (True, False, True))
    # Dana touches nothing: Ravi's answer reaches her open Results tab at the next 5-second reading
    # (app_pages/orphan/results.EVERY), drawn within 1.5 s of it.
    expect(reviewers).to_have_text("2", timeout=6_500)
    expect(results.get_by_test_id("stTable").first).to_contain_text("ravi@acme.com")
    store = ReviewStore(data / STORE_NAME)
    assert store.reviewers(ROUND.id) == ["dana@acme.com", "ravi@acme.com"]

    folder = f"{url}/?" + urlencode({"corpus": str(docs)})
    ravi.goto(folder)
    settle(ravi)
    expect(ravi.get_by_text("you need the admin role; you are a reviewer", exact=False)).to_be_visible()
    dana.goto(folder)
    settle(dana)
    expect(dana.get_by_text("1 document, ", exact=False)).to_be_visible()
    dana.get_by_text("Audit trail").click()
    trail = dana.get_by_test_id("stExpander").filter(has_text="Audit trail")
    expect(trail.get_by_test_id("stDataFrame")).to_be_visible()
    dana.screenshot(path=str(ROOT / "artifacts" / "screenshots" / "signed-in-admin.png"), full_page=True)
    (entry,) = AuditTrail(data / STORE_NAME).recent()
    assert (entry.who, entry.verified, entry.role, entry.action) == ("Dana (dana@acme.com)", True, "admin",
                                                                     "open folder")

    mallory = signed_in(browser, url, folder, "mallory")
    expect(mallory.get_by_text("did not say dana@acme.com is verified, so that address grants no role here",
                               exact=False)).to_be_visible()
    expect(mallory.get_by_text("you need the admin role; you are a viewer", exact=False)).to_be_visible()
    assert len(AuditTrail(data / STORE_NAME).recent()) == 1, "the folder was not opened for her"
