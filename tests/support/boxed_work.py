"""Work functions for ``inspector.corpus.box`` tests: each misbehaves in one way (the box's host
imports them by name, so they live in an importable module)."""

from __future__ import annotations

import os
import time


def echo(header: dict, raw: bytes, limits) -> dict:
    """What it was given, and who ran it."""
    with open(f"/proc/{os.getppid()}/stat", encoding="ascii") as stream:
        host = int(stream.read().rsplit(")", 1)[1].split()[1])
    return {"header": header, "size": len(raw), "worker": os.getpid(), "host": host}


def eat_memory(header: dict, raw: bytes, limits) -> dict:
    held = [bytearray(50_000_000) for _ in range(header["blocks"])]
    return {"held": len(held)}


def spin(header: dict, raw: bytes, limits) -> dict:
    n = 0
    while True:
        n += 1


def sleep(header: dict, raw: bytes, limits) -> dict:
    time.sleep(header["seconds"])
    return {}


def crash(header: dict, raw: bytes, limits) -> dict:
    os.abort()


def ready() -> None:
    """A host's preparation that does nothing: a test's own host, apart from the others'."""


def import_when_full(header: dict, raw: bytes, limits) -> dict:
    """Takes memory until refused, lets a little go, then loads an extension module it has not
    loaded yet: the loader cannot map it ("failed to map segment"), an ImportError that means
    the memory ran out."""
    held = []
    try:
        while True:
            held.append(bytearray(5_000_000))
    except MemoryError:
        held.pop()
    import numpy  # noqa: F401  (not in the host: its shared objects are mapped here, under the limit)

    return {"held": len(held)}
