"""Holding off Python's cyclic garbage collector where its walks find nothing to free.

Splitting a corpus and reading markdown-it's tokens allocate tens of thousands of tuples,
lists and chunks and no reference cycle. Every few hundred allocations the collector runs
anyway, and now and then it walks every live object: all the analyses, or markdown-it's whole
token list while it is still alive. Those walks find nothing to free but can cost more than
the work itself. Reference counting frees everything as usual while the collector waits.
A forked worker inherits every object of the process that forked it, which the worker's own
collections would walk again and again, copying each page they touch.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.pool
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


def can_fork() -> bool:
    """Whether workers can be forked here (they inherit this process's objects instead of a copy)."""
    return "fork" in multiprocessing.get_all_start_methods()


def forked_pool(processes: int) -> multiprocessing.pool.Pool:
    """A pool of ``processes`` forked workers whose collections skip what they inherited: the
    objects here are frozen while the workers fork (in a large process, a notebook's or the
    test runner's, a worker collecting after each batch took 7 times as long). They are thawed
    here afterwards unless some were frozen before (a thaw is of all or none)."""
    with _frozen():
        return multiprocessing.get_context("fork").Pool(processes)


def forked(target, *args) -> multiprocessing.process.BaseProcess:
    """One forked process running ``target(*args)`` (inherited, not pickled), started; its
    collections skip what it inherited, as a pool's do. No thread is left here to fork with."""
    with _frozen():
        process = multiprocessing.get_context("fork").Process(target=target, args=args, daemon=True)
        process.start()
        return process


@contextmanager
def _frozen() -> Iterator[None]:
    thaw = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        yield
    finally:
        if thaw:
            gc.unfreeze()
