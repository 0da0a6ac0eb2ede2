"""Several forked processes doing one thing at the same moment, for races between processes."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable


def _run(prepare: Callable, act: Callable, round_: int, argument, barrier, queue) -> None:
    prepared = prepare(round_, argument)  # whatever takes time, done before the start line
    barrier.wait()
    queue.put(act(prepared))


def at_once(prepare: Callable, act: Callable, arguments: list, rounds: int) -> list:
    """In one forked process per argument, ``act(prepare(round, argument))``, every process
    released together after its ``prepare``, ``rounds`` times: every result, in no set order."""
    context = multiprocessing.get_context("fork")
    results = []
    for round_ in range(rounds):
        barrier, queue = context.Barrier(len(arguments)), context.Queue()
        processes = [context.Process(target=_run, args=(prepare, act, round_, argument, barrier, queue))
                     for argument in arguments]
        for process in processes:
            process.start()
        results += [queue.get(timeout=60) for _ in processes]
        for process in processes:
            process.join(60)
    return results
