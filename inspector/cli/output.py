"""What the commands print besides their results: one-line refusals, the progress bar, the chunks
not taken as given, and where MLflow logged the runs."""

from __future__ import annotations

import sys
import time

from .options import Tracking

#: The longest refusal printed (the rest of a long value is left out).
MAX_MESSAGE = 600
#: Chunks placed by their text a fixed shift from their offsets are harmless: the first few are
#: shown, the rest counted, so the lines that matter are not lost among them.
SHIFTS_SHOWN = 3


#: Seconds between two progress lines written to a log (stderr not a terminal).
LOGGED_EVERY = 10.0


class ProgressBar:
    """A one-line progress bar on stderr: redrawn in place on a terminal; in a log (a CI job's,
    a file), a line when a stage starts or ends and every ``LOGGED_EVERY`` seconds between."""

    def __init__(self, stream=None, enabled: bool = True, estimate: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.estimate = estimate
        """Say how long the rest will take, at the pace so far."""
        self.started = time.perf_counter()
        self._logged: tuple[str, float] | None = None  # the stage and time of the last line logged

    def __call__(self, what: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if not self.stream.isatty():
            now = time.perf_counter()
            if self._logged is not None and self._logged[0] == what and done < total and \
                    now - self._logged[1] < LOGGED_EVERY:
                return
            self._logged = (what, now)
        width = 24
        filled = int(width * done / total) if total else width
        elapsed = time.perf_counter() - self.started
        left = f", about {elapsed / done * (total - done):.0f}s left" if self.estimate and 0 < done < total else ""
        line = f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {what} ({elapsed:.1f}s{left})"
        end = "\n" if done >= total or not self.stream.isatty() else ""
        self.stream.write(("\r" if self.stream.isatty() else "") + line.ljust(72) + end)
        self.stream.flush()


def fail(message: str) -> int:
    """Print a refusal as the command line's one-line error; exit status 2."""
    sys.stderr.write(f"chunk-inspector: error: {one_line(message)}\n")
    return 2


def one_line(message: str) -> str:
    """A refusal as one printable line: control characters from the arguments shown escaped, a
    long refused value cut short."""
    if not message.isprintable():
        message = "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "…"


def say_problems(problems, source: str = "") -> None:
    """Every chunk made elsewhere that was not taken as given, one line each on stderr (harmless
    shifts summarised)."""
    shifted = [p for p in problems if p.is_shift]
    for problem in problems:
        if problem.is_shift and shifted.index(problem) >= SHIFTS_SHOWN:
            continue
        where = f"{source}:{problem.line}" if source else problem.chunk_id
        sys.stderr.write(f"{where}: {problem.kind}: {problem.message}\n")
    if len(shifted) > SHIFTS_SHOWN:
        sys.stderr.write(f"... and {len(shifted) - SHIFTS_SHOWN:,} more chunks placed by their text, their offsets "
                         f"shifted ({len(shifted):,} offset-mismatch in all)\n")


def tracking_ready(tracking: Tracking) -> bool:
    """Whether ``--mlflow`` can log (checked before the work, so a long run is not lost at its end)."""
    if not tracking.on:
        return True
    from ..reports.tracking import mlflow_available

    return mlflow_available()


def log_to_mlflow(tracking: Tracking, runs, status: int) -> int:
    """Log ``runs`` where ``--mlflow`` says (the report is printed already), and say so on
    stderr; ``status``, or 2 with one line saying why MLflow could not log them."""
    from ..errors import TrackingError
    from ..reports.tracking import log_runs, shown, tracking_uri

    try:
        ids = log_runs(runs, tracking.uri, tracking.experiment)
    except TrackingError as exc:
        return fail(f"{exc}; the report above was not logged")
    sys.stderr.write(f"logged {len(ids)} MLflow run{'s' * (len(ids) != 1)} to {shown(tracking_uri(tracking.uri))} "
                     f"(experiment {tracking.experiment})\n")
    return status


def confirmed(yes: bool, requests: int, bound: str = "") -> bool:
    """Whether to send the plan printed above: ``--yes``, or an answer on a terminal. Without a
    terminal and without ``--yes`` nothing is sent (exit status 1)."""
    if yes:
        return True
    if not sys.stdin.isatty():
        sys.stderr.write(f"nothing sent: {requests:,} requests need --yes when no terminal can confirm "
                         "them (or look first with --dry-run)\n")
        return False
    sys.stderr.write(f"send {bound}{requests:,} requests? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer in ("y", "yes"):
        return True
    sys.stderr.write("nothing sent\n")
    return False
