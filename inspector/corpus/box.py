"""Work on untrusted bytes in a box: a process of its own with a memory limit, a CPU-time limit
and a wall-clock deadline, killed on breach, the reason told in words.

A converter reads whatever a visitor uploads: a zip bomb, a PDF with a content stream of a
gigabyte, XML nested a hundred thousand deep. None of that is parsed in the calling process
(the app's server, the command line): each job runs in a *worker* forked for it, under
``RLIMIT_AS`` and ``RLIMIT_CPU``, watched by a *monitor* that kills it at the deadline and
tells how it ended. Workers are forked from a *host*, one per calling process and work
function, started once (``python -c`` with the work function's module imported: MarkItDown's
half second is paid once, not per file) and single-threaded, so forking it is safe even when
the caller runs threads. The host ends when its caller does (its standard input closes).

A job travels over a Unix socket in a folder only this user may open, as a JSON header and the
raw bytes; the answer is JSON. Nothing is unpickled: a connection, however it came, can only
ask for work under the limits it states.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ..errors import UnreadableFile
from ..limits import human_size
from ..scratch import scratch_folder

#: Seconds a caller waits for a host beyond the job's own deadline before giving up on it.
SLACK = 30.0
#: Seconds without a job after which a host is idle (and imports what only some jobs need).
IDLE = 1.0
_LENGTH = struct.Struct(">Q")


@dataclass(frozen=True, slots=True)
class BoxLimits:
    """What one job may use (``limits.MAX_CONVERSION_*``, ``MAX_ZIP_*`` and ``MAX_XML_DEPTH`` by
    default: the app and the command line convert under the same ones)."""

    memory: int
    """Bytes of memory the worker may take beyond what it was forked with."""

    cpu_seconds: int
    wall_seconds: float
    zip_members: int
    zip_member_bytes: int
    zip_bytes: int
    zip_ratio: int
    xml_depth: int

    @classmethod
    def default(cls) -> "BoxLimits":
        from .. import limits  # read at call time, so a test (or an operator's code) may change them

        return cls(limits.MAX_CONVERSION_MEMORY, limits.MAX_CONVERSION_CPU_SECONDS, limits.MAX_CONVERSION_SECONDS,
                   limits.MAX_ZIP_MEMBERS, limits.MAX_ZIP_MEMBER_BYTES, limits.MAX_ZIP_BYTES, limits.MAX_ZIP_RATIO,
                   limits.MAX_XML_DEPTH)

    @property
    def key(self) -> str:
        """Names these limits in a cache key: a refusal under them is not one under others."""
        return ",".join(str(value) for value in asdict(self).values())


class _Hosts:
    """This process's hosts, one per work function. A forked child uses its parent's (it
    connects by path); when that one is gone it starts its own."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running: dict[tuple[str, str], tuple[int, subprocess.Popen, str]] = {}

    def address(self, entry: str, prepare: str, later: str) -> str:
        key = (entry, prepare)
        with self.lock:
            found = self.running.get(key)
            if found is not None and (found[0] != os.getpid() or found[1].poll() is None):
                return found[2]
            if found is not None:  # this process's host died (killed, out of memory): it cleans up no more
                _remove_socket(found[2])
            # Mode 0700: only this user connects. Removed by the host when its caller ends, and
            # by the caller at its exit too, for a host that was killed and never replaced.
            folder = scratch_folder("ci-box-")
            path = os.path.join(folder, "host")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(path)
            listener.listen(64)
            code = f"from {__name__} import serve; serve({listener.fileno()}, {entry!r}, {prepare!r}, {later!r})"
            # What converters print (warnings, a MemoryError in a generator's cleanup) is not the
            # caller's: every outcome comes back as an answer.
            host = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, pass_fds=(listener.fileno(),), close_fds=True,
                                    start_new_session=True)
            listener.close()
            self.running[key] = (os.getpid(), host, path)
            return path

    def forget(self, entry: str, prepare: str) -> None:
        """Start another host next time (the one known could not be reached)."""
        with self.lock:
            found = self.running.pop((entry, prepare), None)
        if found is not None and found[0] == os.getpid():
            if found[1].poll() is None:
                found[1].kill()
            _remove_socket(found[2])


def _remove_socket(path: str) -> None:
    """A host's socket and its folder, which a host killed before it could end leaves behind."""
    for stale in (path, os.path.dirname(path)):
        with contextlib.suppress(OSError):
            os.unlink(stale) if stale == path else os.rmdir(stale)


_HOSTS = _Hosts()


def run_boxed(entry: str, header: dict, raw: bytes, limits: BoxLimits, prepare: str = "", later: str = "") -> dict:
    """``entry`` (``module.function``: ``function(header, raw, limits)`` returns a JSON-able
    dict) run on ``raw`` in a worker under ``limits``; its dict, or ``UnreadableFile`` saying
    how the worker ended when it gave none (out of memory, time or CPU, or crashed).
    ``prepare`` (``module.function``, no arguments) runs once in the host, before any worker is
    forked: what every job imports, imported once; ``later`` likewise once the host is idle
    (what only some jobs need)."""
    job = json.dumps({"header": header, "limits": asdict(limits)}).encode("utf-8")
    with _connected(entry, prepare, later, limits) as connection:
        try:
            connection.sendall(_LENGTH.pack(len(job)) + job + _LENGTH.pack(len(raw)))
            connection.sendall(raw)
            answer = _receive(connection)
        except (ConnectionError, EOFError) as exc:  # the job is not sent twice: a bomb would be paid twice
            raise UnreadableFile(f"could not be converted: the conversion process failed ({exc})") from None
        except TimeoutError:
            raise UnreadableFile(f"took longer than {limits.wall_seconds:g} s to convert") from None
    outcome = json.loads(answer)
    if "refused" in outcome:
        raise UnreadableFile(outcome["refused"])
    return outcome["done"]


def _connected(entry: str, prepare: str, later: str, limits: BoxLimits) -> socket.socket:
    """A connection to the host (started again once when the one known is gone)."""
    for attempt in range(2):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(limits.wall_seconds + SLACK)
        try:
            connection.connect(_HOSTS.address(entry, prepare, later))
            return connection
        except (ConnectionError, FileNotFoundError) as exc:
            connection.close()
            _HOSTS.forget(entry, prepare)
            if attempt:
                raise UnreadableFile(f"could not be converted: the conversion process cannot be reached ({exc})") \
                    from None
    raise AssertionError("unreachable")


def start_host(entry: str, prepare: str = "", later: str = "") -> None:
    """Start the host of ``run_boxed(entry, ...)`` now, so that its imports are done by the time
    the first job comes (a forked child uses it too)."""
    _HOSTS.address(entry, prepare, later)


def _receive(connection: socket.socket) -> bytes:
    size = _LENGTH.unpack(_exactly(connection, _LENGTH.size))[0]
    return _exactly(connection, size)


def _exactly(connection: socket.socket, size: int) -> bytes:
    parts, left = [], size
    while left:
        part = connection.recv(min(left, 1 << 20))
        if not part:
            raise EOFError("the conversion process closed the connection")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


# -- the host's side ----------------------------------------------------------------------

def serve(listener_fd: int, entry: str, prepare: str, later: str = "") -> None:
    """The host: for each connection, fork a monitor that runs the job in a worker. Ends when
    standard input closes (its caller has ended)."""
    work = _named(entry)
    if prepare:
        _named(prepare)()
    listener = socket.socket(fileno=listener_fd)
    path = listener.getsockname()
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [], IDLE if later else 5.0)
        if later and not ready:
            _named(later)()
            later = ""
        _reap()
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1):
            _remove_socket(path)
            return
        if listener not in ready:
            continue
        connection, _ = listener.accept()
        if os.fork() == 0:  # the monitor: never returns
            listener.close()
            _monitor(connection, work)
        connection.close()


def _named(name: str) -> Callable:
    import importlib

    module, _, function = name.rpartition(".")
    return getattr(importlib.import_module(module), function)


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return


def _monitor(connection: socket.socket, work) -> None:
    code = 0
    try:
        job = json.loads(_receive(connection))
        raw = _receive(connection)
        limits = BoxLimits(**job["limits"])
        answer = _watched(job["header"], raw, limits, work)
        connection.sendall(_LENGTH.pack(len(answer)) + answer)
    except BaseException:  # the caller sees the connection close, and says so
        code = 1
    finally:
        os._exit(code)


def _watched(header: dict, raw: bytes, limits: BoxLimits, work) -> bytes:
    """Run the worker and wait for it until the deadline; what it answered, or how it ended."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _worker(write_end, header, raw, limits, work)
    os.close(write_end)
    parts, late = [], False
    deadline = time.monotonic() + limits.wall_seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            late = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([read_end], [], [], left)
        if ready:
            part = os.read(read_end, 1 << 20)
            if not part:
                break
            parts.append(part)
    os.close(read_end)
    _, status, usage = os.wait4(pid, 0)
    answer = b"".join(parts)
    if late:
        return _refused(f"took longer than {limits.wall_seconds:g} s to convert")
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and answer:
        return answer
    cpu = usage.ru_utime + usage.ru_stime
    if cpu >= limits.cpu_seconds:
        return _refused(f"took more than {limits.cpu_seconds} s of CPU to convert")
    if usage.ru_maxrss * 1024 > limits.memory // 2:  # it crashed when an allocation was refused
        return _refused(f"exceeds {human_size(limits.memory)} while converting")
    how = (f"signal {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
           else f"exit status {os.WEXITSTATUS(status)}")
    return _refused(f"the converter crashed ({how}): a damaged file, or one that needs more than the "
                    f"{human_size(limits.memory)} a conversion may use")


def _worker(pipe: int, header: dict, raw: bytes, limits: BoxLimits, work) -> None:
    # Made before the limits hold: telling that memory ran out must not need memory.
    exceeded = _refused(f"exceeds {human_size(limits.memory)} while converting")
    code = 0
    try:
        try:
            _limit(limits)
            answer = json.dumps({"done": work(header, raw, limits)}).encode("utf-8", "surrogatepass")
        except UnreadableFile as exc:
            answer = _refused(exc.reason)
        except MemoryError:
            answer = exceeded
        except _OutOfCpu:
            answer = _refused(f"took more than {limits.cpu_seconds} s of CPU to convert")
        except RecursionError:
            answer = _refused("nested too deeply to convert")
        except Exception as exc:  # a converter's own failure, told as it is
            if out_of_memory(exc):
                answer = exceeded
            else:
                answer = _refused(f"the converter failed ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})")
    except MemoryError:
        answer = exceeded
    try:
        view = memoryview(answer)
        while view:
            view = view[os.write(pipe, view):]
    except BaseException:
        code = 1
    finally:
        os._exit(code)


#: What the dynamic loader says when the limit refuses to map a shared object.
_UNMAPPED = ("failed to map segment", "Cannot allocate memory")


def out_of_memory(exc: BaseException) -> bool:
    """Whether a failure, or one it came from, is the memory limit refusing an allocation: a
    converter that loads a module late (an XLSX reader's numpy) fails to map its shared object
    under the limit, and the library may wrap that ImportError in advice of its own."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError) or (isinstance(exc, OSError) and exc.errno == errno.ENOMEM):
            return True
        if isinstance(exc, ImportError) and any(sign in str(exc) for sign in _UNMAPPED):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class _OutOfCpu(Exception):
    pass


def _out_of_cpu(signum, frame):
    raise _OutOfCpu()


def _limit(limits: BoxLimits) -> None:
    import resource

    signal.signal(signal.SIGXCPU, _out_of_cpu)
    cpu = limits.cpu_seconds + int(resource.getrusage(resource.RUSAGE_SELF).ru_utime)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))  # soft: a Python error; hard: killed
    memory = _address_space() + limits.memory
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def _address_space() -> int:
    """The bytes of address space this process holds now (a fork holds its host's)."""
    with open("/proc/self/statm", "rb") as stream:
        return int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _refused(reason: str) -> bytes:
    return json.dumps({"refused": reason}).encode("utf-8")

