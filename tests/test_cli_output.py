"""``cli.output``: the progress bar redraws in place on a terminal and writes a line now and then
to a log, so a long run in CI is never silent."""

from __future__ import annotations

import io

from inspector.cli import output
from inspector.cli.output import LOGGED_EVERY, ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _clock(monkeypatch) -> list[float]:
    now = [0.0]
    monkeypatch.setattr(output.time, "perf_counter", lambda: now[0])
    return now


def test_a_log_gets_a_line_per_stage_and_one_every_few_seconds(monkeypatch):
    log = io.StringIO()
    now = _clock(monkeypatch)
    bar = ProgressBar(stream=log, estimate=True)
    for done, at in zip(range(1, 6), (0.1, 1.0, 2.0, LOGGED_EVERY + 0.5, LOGGED_EVERY + 1.0)):
        now[0] = at
        bar("configurations measured", done, 6)
    now[0] = LOGGED_EVERY + 1.5
    bar("questions asked", 1, 2)
    bar("questions asked", 2, 2)
    lines = log.getvalue().splitlines()
    assert [line.split("] ")[1].split(" (")[0] for line in lines] == [
        "1/6 configurations measured", "4/6 configurations measured", "1/2 questions asked", "2/2 questions asked"]
    assert "\r" not in log.getvalue()


def test_a_terminal_sees_every_step_redrawn_in_place(monkeypatch):
    screen = Terminal()
    _clock(monkeypatch)
    bar = ProgressBar(stream=screen)
    for done in range(1, 4):
        bar("files read", done, 3)
    assert screen.getvalue().count("\r") == 3 and screen.getvalue().endswith("\n")
