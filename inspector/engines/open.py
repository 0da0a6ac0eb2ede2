"""The engines' registry: which engine measures a run, opened once.

``local`` holds a corpus whose files total under ``STREAM_BYTES`` in memory (its configurations
measured in parallel, each split once) and streams a larger one; ``memory`` always holds it,
``stream`` always streams it, ``ray`` measures it on a Ray cluster. A command that needs no more
than an engine gives (``alone``) gets the streamed or Ray engine as it is, the engine being its
corpus too; one that needs the documents themselves (what the user's system retrieved, imported
chunks, a store's) holds them, measured on the cluster's partitions with ``ray``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line reads ``ENGINES`` before anything is measured: nothing heavy loads
    from ..atoms.analysis import Analysis
    from ..corpus.listing import Listing
    from ..corpus.load import Corpus, Reading
    from ..measure.engine import Engine
    from ..measure.services import Services
    from ..measure.workspace import Workspace

#: Where a command reads and measures its corpus (``--engine``).
ENGINES: tuple[str, ...] = ("local", "memory", "stream", "ray")
#: The file bytes from which ``local`` streams a corpus rather than hold it: below them the corpus
#: held in memory is measured sooner (its configurations in parallel, each split once).
STREAM_BYTES = 16 << 20

Progress = Callable[[str, int, int], None]


def engine_for(name: str, listing: Listing) -> str:
    """The engine ``name`` (one of ``ENGINES``) means for ``listing``: ``local`` made ``memory``
    or ``stream`` by the files' size."""
    if name not in ENGINES:
        raise ValueError(f"no engine {name!r}: one of {', '.join(ENGINES)}")
    if name != "local":
        return name
    return "stream" if sum(listing.sizes()) >= STREAM_BYTES else "memory"


def holds(engine: str, alone: bool) -> bool:
    """Whether the run holds its corpus in this process: with ``memory``, or whenever the
    command needs more than an engine gives."""
    return engine == "memory" or not alone


def open_alone(engine: str, listing: Listing, reading: Reading, services: Services, *, jobs: int,
               fingerprint: bool = False, progress: Progress | None = None) -> Engine:
    """The streamed (``stream``) or Ray (``ray``) engine of ``listing``, built with ``services``
    (its converted files and analyses kept in their data folder); ``fingerprint``: digest the
    corpus as it is read (Ray reads it once); ``jobs`` reading workers of the streamed engine.
    Close it when done (``close``)."""
    if engine == "ray":
        from .ray.corpus import read_on_cluster

        return read_on_cluster(listing, reading, services.data, fingerprint=fingerprint, progress=progress,
                               services=services)
    if engine != "stream":
        raise ValueError(f"the {engine} engine holds its corpus: open it with open_held")
    from .stream.read import read_streamed

    return read_streamed(listing, reading, services.data, jobs=jobs, progress=progress, services=services)


def open_held(corpus: Corpus, engine: str, mode: str, services: Services, *,
              kept: Mapping[str, Analysis] | None = None, analysed: Mapping[str, Analysis] | None = None) -> Workspace:
    """The engine of a corpus held in this process, built with ``services`` (its analyses and what
    runs derive from them kept in their data folder): the reference ``Workspace``, or with
    ``ray`` one whose built-in splitters are measured on the cluster's partitions (the analyses
    it lacks made on the cluster).
    Analyses already at hand by document id: ``kept`` ones read from the store, ``analysed``
    ones made while the files were read (kept now)."""
    if engine == "ray":
        from .ray.partitions import PartitionedWorkspace

        workspace = PartitionedWorkspace(corpus, mode, services=services)
    else:
        from ..measure.workspace import Workspace

        workspace = Workspace(corpus, mode, services)
    workspace.add_analyses(kept or {})
    workspace.add_analyses(analysed or {}, new=True)
    if engine != "ray":
        return workspace
    from .ray.session import ray_analyses

    workspace.read_analyses()
    missing = [d for d in workspace.documents if not workspace.has_analysis(d)]
    workspace.add_analyses(dict(zip((d.id for d in missing), ray_analyses(missing, workspace.mode))), new=True)
    workspace.save_analyses()
    return workspace
