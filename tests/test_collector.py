"""``inspector.collector``: the cyclic collector waits during bulk work and comes back as it was."""

from __future__ import annotations

import pytest

from inspector import Workspace, split_document


def test_splitting_pauses_the_collector_and_restores_it(sample_markdown, monkeypatch):
    """The collector is off while a corpus is split, and afterwards as it was before."""
    import gc

    import inspector.measure.workspace as workspace_module
    from inspector.collector import collection_paused

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
