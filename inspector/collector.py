"""Holding off Python's cyclic garbage collector during bulk work that makes no cycles.

Splitting a corpus and reading markdown-it's tokens allocate tens of thousands of tuples,
lists and chunks and no reference cycle. Every few hundred allocations the collector runs
anyway, and now and then it walks every live object: all the analyses, or markdown-it's whole
token list while it is still alive. Those walks find nothing to free but can cost more than
the work itself. Reference counting frees everything as usual while the collector waits.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collection_paused() -> Iterator[None]:
    """Turn the collector off for the block; it is turned back on only if it was on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
