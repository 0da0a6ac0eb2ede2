"""``measure.engine.Engine``: every engine declares the protocol and answers every method of it
itself; what one does not do is refused by the protocol with ``EngineCannot``; no caller asks an
engine what it can do."""

from __future__ import annotations

import re

import pytest

from inspector.engines.ray.corpus import ClusterWorkspace
from inspector.engines.ray.partitions import PartitionedWorkspace
from inspector.engines.stream.workspace import StreamWorkspace
from inspector.errors import EngineCannot
from inspector.measure.engine import Engine
from inspector.measure.workspace import Workspace
from tests.support.paths import ROOT

#: What an engine may leave to the protocol: work done ahead, letting chunks go and forking
#: workers are optional (the protocol's own does without); holding chunk objects is for the
#: engines holding the corpus.
OPTIONAL = {"measure_ahead", "release", "fan_out", "chunks"}
DECLARED = sorted(name for name, value in vars(Engine).items()
                  if not name.startswith("_") and (callable(value) or isinstance(value, property)))


@pytest.mark.parametrize("engine", [Workspace, StreamWorkspace, ClusterWorkspace, PartitionedWorkspace])
def test_every_engine_answers_the_whole_protocol_itself(engine):
    assert Engine in engine.__mro__, "it declares the protocol"
    left = [name for name in DECLARED if name not in OPTIONAL and getattr(engine, name) is getattr(Engine, name)]
    assert left == [], f"{engine.__name__} leaves these to the protocol's refusal"


def test_the_protocol_declares_what_the_commands_ask():
    assert {"summarize", "probe", "header_carry", "sizes", "export", "ask", "scored_golden", "load_golden",
            "per_part", "summaries_by", "corpus_facts", "queries"} <= set(DECLARED)


def test_what_an_engine_does_not_do_is_refused_as_not_implemented():
    class Partial(Engine):
        mode = "markdown"

    with pytest.raises(EngineCannot, match="the Partial engine cannot run the probe") as raised:
        Partial().probe("fixed:400")
    assert isinstance(raised.value, NotImplementedError)
    assert Partial().measure_ahead() is None and Partial().release("fixed:400") is None


def test_the_streamed_engine_hands_out_no_chunk_objects():
    with pytest.raises(EngineCannot, match="export them instead"):
        StreamWorkspace.chunks(object.__new__(StreamWorkspace), "fixed:400")


#: An object asked, at run time, whether it has a method or an attribute: a probe of what an
#: engine (workspace) or a corpus can do.
PROBE = re.compile(r"\b(?:getattr|hasattr)\(\s*(?:self\.)?(?:workspace|work|measured|corpus|engine|part)\b")


def test_no_caller_asks_an_engine_what_it_can_do():
    found = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "inspector").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if PROBE.search(line)]
    assert found == []
    assert PROBE.search('located = getattr(corpus, "load_golden", None)')  # what it catches


def test_the_held_engine_fans_work_out_to_forked_workers_and_the_others_do_it_here(sample_markdown):
    """The reference forks: each item runs in some process, results come back whole, and a
    worker lets go of what an item held; an engine without workers runs the items here in order."""
    import os

    def where(work, item):
        return item, os.getpid()

    found = list(sample_markdown.fan_out(where, list(range(12)), jobs=3, let_go=lambda work, item: None))
    assert sorted(item for item, _ in found) == list(range(12))
    assert len({pid for _, pid in found}) >= 2, "forked workers took some items"

    class Here(Engine):
        mode = "markdown"

    assert list(Here().fan_out(where, [3, 1, 2], jobs=4)) == [(3, os.getpid()), (1, os.getpid()), (2, os.getpid())]
