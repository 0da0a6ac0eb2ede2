"""A hostile upload in a real Chromium: the DOCX zip bomb is refused with its reason beside the
page uploaded with it, and the server answers its health endpoint within a second throughout."""

from __future__ import annotations

import threading
import time
import urllib.request

import pytest

from tests.support.bombs import zip_bomb_docx
from tests.support.browser import assert_no_exception, open_app, settle, shoot

pytestmark = pytest.mark.browser


class HealthWatch:
    """Asks ``/_stcore/health`` every 100 ms on a thread of its own; the slowest answer."""

    def __init__(self, url: str) -> None:
        self.url, self.times, self.failures = url + "/_stcore/health", [], []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.stopped.is_set():
            started = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as answer:
                    answer.read()
            except OSError as exc:
                self.failures.append(str(exc))
            self.times.append(time.monotonic() - started)
            self.stopped.wait(0.1)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join()


def test_a_zip_bomb_upload_is_refused_while_the_server_keeps_answering(page, app_url, tmp_path):
    from playwright.sync_api import expect

    bomb = tmp_path / "expenses.docx"
    bomb.write_bytes(zip_bomb_docx())
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nSee [the docs](https://example.com) for all 3 steps here.\n", encoding="utf-8")
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_text("Upload files").click()
    settle(page)
    with HealthWatch(app_url) as health:
        page.get_by_test_id("stSidebar").locator("input[type=file]").set_input_files([str(notes), str(bomb)])
        skipped = page.get_by_test_id("stExpander").filter(has_text="1 file skipped")
        expect(skipped).to_be_visible()
        time.sleep(1.0)  # and a moment after
    skipped.click()
    expect(skipped).to_contain_text("expenses.docx")
    shoot(page, "upload-zip-bomb")
    assert_no_exception(page)
    assert not health.failures and len(health.times) >= 3
    assert max(health.times) < 1.0, sorted(health.times)[-5:]
