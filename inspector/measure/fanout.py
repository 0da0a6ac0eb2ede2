"""The held engine's work shared out to forked workers: ``fan_out`` runs a function of the
workspace over items in this process and in workers forked from it, which inherit the
workspace's analyses, splits and term index instead of computing them again.

A forked worker is handed the workspace and the function through this module (a pool's
function and its arguments are pickled; the workspace is what must not be), set just before
the workers fork and cleared after.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from ..forking import can_fork, forked_pool

_SHARED: tuple | None = None  # (workspace, function, let_go) inherited by the forked workers


def fan_out(workspace, function: Callable, items: Sequence, jobs: int, let_go: Callable | None = None,
            before: Callable[[], None] | None = None) -> Iterator:
    """``function(workspace, item)`` for every item (given costliest first), yielded as they
    finish; with ``jobs`` > 1 and fork, in this process and ``jobs - 1`` forked workers, after
    each of which ``let_go(workspace, item)`` frees what the item held (a worker's next item is
    another). This process works too rather than wait: every forked worker copies the pages of
    the analyses it reads (their reference counts change), a second copy of most of the corpus's
    analyses that one fewer worker saves. Serially, the items run in the order given. ``before``
    builds what the workers share, just before they fork."""
    global _SHARED
    items = list(items)
    if jobs <= 1 or len(items) <= 1 or not can_fork():
        for item in items:
            yield function(workspace, item)
        return
    workers = min(jobs, len(items)) - 1
    if before is not None:
        before()
    _SHARED = workspace, function, let_go
    try:
        with forked_pool(workers) as pool:
            yield from _shared_out(pool, workers, items)
    finally:
        _SHARED = None


def _in_worker(item):
    """One item, in a worker or in this process while workers run."""
    assert _SHARED is not None
    workspace, function, let_go = _SHARED
    try:
        return function(workspace, item)
    finally:
        if let_go is not None:
            let_go(workspace, item)


def _shared_out(pool, workers: int, items: list) -> Iterator:
    """The items' results, the workers taking the costliest first and this process the
    cheapest, until none is left. Each worker has a second item queued, so that it does not wait
    for this process to finish one before it gets the next."""
    waiting = list(items)
    running: list = []
    while waiting or running:
        for result in [r for r in running if r.ready()]:
            running.remove(result)
            yield result.get()
        while waiting and len(running) < 2 * workers:
            running.append(pool.apply_async(_in_worker, (waiting.pop(0),)))
        if waiting:
            yield _in_worker(waiting.pop())
        elif running:
            running[0].wait(0.05)
