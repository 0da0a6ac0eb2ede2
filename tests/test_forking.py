"""``inspector.forking``: the cyclic collector waits during bulk work and comes back as it was."""

from __future__ import annotations

import pytest

from inspector import Workspace, split_document


def test_splitting_pauses_the_collector_and_restores_it(sample_markdown, monkeypatch):
    """The collector is off while a corpus is split, and afterwards as it was before."""
    import gc

    import inspector.measure.workspace as workspace_module
    from inspector.forking import collection_paused

    seen = []

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return split_document(*args, **kwargs)

    monkeypatch.setattr(workspace_module, "split_document", spy)
    work = Workspace(sample_markdown.documents[:3], "markdown")
    assert gc.isenabled()
    try:
        work.split("structured:300")
        assert seen and not any(seen) and gc.isenabled()
        gc.disable()
        work.split("sentence:300")
        assert len(seen) == 6 and not gc.isenabled()  # left off, as it was found
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with collection_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_forked_workers_never_walk_what_they_inherited():
    """A forked worker's collections skip every object it inherited (they are frozen there),
    and this process's objects are collected as before once the workers are up."""
    import gc

    from inspector.forking import forked_pool

    inherited = [[i] for i in range(50_000)]  # objects the collector tracks
    frozen = gc.get_freeze_count()  # the test runner's (tests/conftest.py)
    gc.unfreeze()
    try:
        with forked_pool(1) as pool:
            frozen_there = pool.apply(gc.get_freeze_count)
            assert gc.get_freeze_count() == 0
        assert frozen_there >= len(inherited)
        gc.freeze()  # some frozen already: what the pool froze stays frozen with them
        with forked_pool(1) as pool:
            assert pool.apply(gc.get_freeze_count) >= len(inherited)
        assert gc.get_freeze_count() >= len(inherited)
    finally:
        if not frozen:
            gc.unfreeze()
