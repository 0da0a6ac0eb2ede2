"""``inspector.corpus.box``: work on untrusted bytes in a process of its own, stopped at its
memory, CPU and clock limits with the reason, while the host and the caller carry on."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time

import pytest

from inspector.corpus.box import BoxLimits, run_boxed
from inspector.errors import UnreadableFile
from tests.support.paths import ROOT

WORK = "tests.support.boxed_work"
SMALL = dataclasses.replace(BoxLimits.default(), memory=200_000_000, cpu_seconds=2, wall_seconds=4.0)
#: For the CPU limit alone: on a busy machine a spinning worker may get its 2 s of CPU only after
#: 4 s of clock, so the clock limit is far away.
CPU_BOUND = dataclasses.replace(SMALL, wall_seconds=60.0)


def boxed(function: str, header: dict | None = None, limits: BoxLimits = SMALL) -> dict:
    return run_boxed(f"{WORK}.{function}", header or {}, b"raw bytes", limits)


def test_a_job_runs_in_a_worker_of_its_own_and_answers():
    answer = boxed("echo", {"kind": "docx"})
    assert answer["header"] == {"kind": "docx"} and answer["size"] == 9
    assert answer["worker"] != os.getpid() and answer["host"] != os.getpid()
    assert boxed("echo")["host"] == answer["host"], "one host serves this process's jobs"


@pytest.mark.parametrize(("function", "header", "reason", "limits"), [
    ("eat_memory", {"blocks": 10}, "exceeds 200 MB while converting", SMALL),
    ("import_when_full", {}, "exceeds 200 MB while converting", SMALL),
    ("spin", {}, "took more than 2 s of CPU to convert", CPU_BOUND),
    ("sleep", {"seconds": 30}, "took longer than 4 s to convert", SMALL),
    ("crash", {}, "the converter crashed (signal SIGABRT)", SMALL),
])
def test_a_worker_over_its_limits_is_stopped_with_the_reason_and_the_host_serves_on(function, header, reason,
                                                                                    limits):
    host = boxed("echo")["host"]
    started = time.monotonic()
    with pytest.raises(UnreadableFile, match=reason.replace("(", r"\(").replace(")", r"\)")):
        boxed(function, header, limits)
    assert time.monotonic() - started < limits.wall_seconds + 3
    assert boxed("echo")["host"] == host


def test_jobs_of_several_threads_run_at_once():
    answers, started = [], time.monotonic()
    threads = [threading.Thread(target=lambda: answers.append(boxed("sleep", {"seconds": 1.5}))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == [{}] * 4 and time.monotonic() - started < 4.5  # not one after another (6 s)


def test_the_host_ends_with_the_process_that_started_it():
    code = f"from inspector.corpus.box import run_boxed, BoxLimits; print(run_boxed('{WORK}.echo', {{}}, b'', " \
           "BoxLimits.default())['host'])"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    host = int(done.stdout.strip())
    deadline = time.monotonic() + 15
    while os.path.exists(f"/proc/{host}") and time.monotonic() < deadline:
        time.sleep(0.1)
    alive = os.path.exists(f"/proc/{host}") and "Z" not in open(f"/proc/{host}/stat").read().split()[2]
    assert not alive


def test_a_host_that_was_killed_is_started_again_for_the_next_job():
    import signal

    host = boxed("echo")["host"]
    os.kill(host, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{host}") and "Z" not in open(f"/proc/{host}/stat").read().split()[2] \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert boxed("echo")["host"] != host


def test_a_host_that_died_leaves_no_socket_folder_behind(tmp_path, monkeypatch):
    import signal
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def echoed() -> int:  # a host of this test's own: no other test prepares with ``ready``
        return run_boxed(f"{WORK}.echo", {}, b"", SMALL, prepare=f"{WORK}.ready")["host"]

    first = echoed()
    (folder,) = tmp_path.glob("ci-box-*")
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{first}") and "Z" not in open(f"/proc/{first}/stat").read().split()[2] \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert echoed() != first
    assert not folder.exists() and len(list(tmp_path.glob("ci-box-*"))) == 1, "the dead host's folder is removed"


def test_a_caller_whose_host_was_killed_leaves_no_socket_folder_when_it_exits(tmp_path):
    script = ("import os, signal, sys, time\n"
              "from inspector.corpus.box import BoxLimits, run_boxed\n"
              f"host = run_boxed('{WORK}.echo', {{}}, b'', BoxLimits.default())['host']\n"
              "os.kill(host, signal.SIGKILL)\n"
              "while os.path.exists(f'/proc/{host}') and 'Z' not in open(f'/proc/{host}/stat').read().split()[2]:\n"
              "    time.sleep(0.05)\n"
              "print(len(os.listdir(sys.argv[1])))\n")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1", "the killed host's folder was there while its caller ran"
    assert not list(tmp_path.glob("ci-box-*")), "the caller's exit removes its hosts' folders"
