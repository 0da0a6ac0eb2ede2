"""Eight writer processes of 200 answers each, plus a ninth killed while it writes, on the SQLite
file and on a PostgreSQL server the test starts: every answer of the eight is kept, and every
answer the killed one was told was saved."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from inspector.review import PostgresReviewStore, ReviewStore
from tests.support.review import CHUNKS, ROUND

WRITERS, EACH, KILLED = 8, 200, 8


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.service)])
def opened(request, tmp_path):
    """``(open, store)``: how a writer opens the store, and the test's own opened store."""
    if request.param == "sqlite":
        path = str(tmp_path / "reviews.sqlite3")
        opener = (ReviewStore, path)
    else:
        url = request.getfixturevalue("postgres_empty")
        opener = (PostgresReviewStore, url)
    store = opener[0](opener[1])
    store.save_round(ROUND, CHUNKS)
    yield opener, store
    store.close()


def _writer(opener, worker: int, acknowledged: str) -> None:
    store = opener[0](opener[1])
    said = os.open(acknowledged, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    for i in range(EACH):
        store.save_answer(ROUND.id, f"p{worker}-{i}", i + 1, f"process {worker}", address=True,
                          references=i % 2 == 0, completeness=True)
        os.write(said, f"{i}\n".encode())  # one write a save, after it returned: what the writer was told
        if worker == KILLED:
            time.sleep(0.01)  # slow enough to be killed half-way
    store.close()


def _told(path: Path) -> set[int]:
    return {int(line) for line in path.read_text().split()} if path.exists() else set()


def test_eight_writers_and_one_killed_lose_no_acknowledged_answer(opened, tmp_path):
    opener, store = opened
    context = multiprocessing.get_context("fork")  # spawn would re-import numpy nine times
    acks = [tmp_path / f"told-{w}" for w in range(WRITERS + 1)]
    workers = [context.Process(target=_writer, args=(opener, w, str(acks[w]))) for w in range(WRITERS + 1)]
    for worker in workers:
        worker.start()
    deadline = time.monotonic() + 120
    while len(_told(acks[KILLED])) < 50 and time.monotonic() < deadline and workers[KILLED].is_alive():
        time.sleep(0.01)
    os.kill(workers[KILLED].pid, signal.SIGKILL)
    for worker in workers:
        worker.join(120)
    assert [w.exitcode for w in workers] == [0] * WRITERS + [-signal.SIGKILL]
    kept = {a.chunk_id for a in store.answers(ROUND.id)}  # the test's own connection still works
    assert {f"p{w}-{i}" for w in range(WRITERS) for i in range(EACH)} <= kept, "1600 of 1600"
    told = {f"p{KILLED}-{i}" for i in _told(acks[KILLED])}
    assert 50 <= len(told) < EACH and told <= kept, "every answer the killed writer was told was saved"
    assert len(kept) - WRITERS * EACH in (len(told), len(told) + 1)  # at most one saved as it died, not yet told
