"""A command's run: its configuration, the files it reads (listed once), and the engine it opens
on them (``engines.open``), closed when the command ends."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Generic

from ..corpus.listing import read_listing
from ..errors import ArgumentRefused, CorpusError
from .config import CommandOptions, RunConfig
from .output import ProgressBar


class Run(Generic[CommandOptions]):
    """One command run: its ``config``, what it listed and what it opened."""

    def __init__(self, config: RunConfig[CommandOptions]) -> None:
        self.config = config
        self._listing = None
        self.opened: list = []
        """Engines to close when the command ends (batches parked on disk)."""

    def listing(self):
        """The files the command reads: the corpus folder's, or those ``--files-from`` lists in it
        (listed once, as a listing on standard input can be read only once)."""
        if self._listing is None:
            from ..corpus.listing import list_corpus, list_files

            source = self.config.corpus
            if not os.path.exists(source.path):  # the hint is the command line's: CORPUS may be left out
                raise CorpusError(f"corpus path not found: {source.path} (with no CORPUS, a command reads the "
                                  "bundled sample corpus)")
            if source.files_from:
                if not os.path.isdir(source.path):
                    raise CorpusError(f"--files-from names files inside a corpus folder; {source.path} is not a "
                                      "folder")
                self._listing = list_files(read_listing(source.files_from), root=source.path)
            else:
                self._listing = list_corpus(source.path, mode=source.mode)
        return self._listing

    def engine(self) -> str:
        """Where the command measures (``engines.open.engine_for``)."""
        from ..engines.open import engine_for

        return engine_for(self.config.corpus.engine, self.listing())

    def reading(self, progress=None):
        """How the command reads its files (``corpus.Reading``), converted files kept in the data folder."""
        from ..corpus.conversions import FOLDER_NAME, ConversionCache
        from ..corpus.convert import check_converter
        from ..corpus.load import Reading

        source = self.config.corpus
        check_converter(source.converter)
        folder = Path(self.config.services.data) / FOLDER_NAME
        return Reading(source.mode, conversions=ConversionCache(folder, source.converter),
                       progress=progress, keep_front_matter=source.keep_front_matter, converter=source.converter)

    def close(self) -> None:
        for opened in self.opened:
            opened.close()


def default_jobs() -> int:
    return min(4, os.cpu_count() or 1)


def read_corpus(run: Run, progress=None, ahead=None):
    """The corpus held here, its converted files kept in the data folder (a bar while files
    convert); ``ahead`` as in ``load_listing``."""
    from ..corpus.load import load_listing

    bar = progress or ProgressBar(enabled=sys.stderr.isatty())
    return load_listing(run.listing(), run.reading(lambda done, total: bar("files converted", done, total)), ahead)


def read_alone(run: Run, engine: str, progress=None, jobs: int = 0):
    """The corpus read by the streamed or Ray engine (``engines.open.open_alone``), its converted
    files and analyses kept in the data folder; the files it could not read on stderr.
    ``ArgumentRefused`` when none could be read."""
    from ..engines.open import open_alone

    bar = progress or ProgressBar(enabled=sys.stderr.isatty())
    config = run.config
    workspace = open_alone(engine, run.listing(), run.reading(), config.services, jobs=jobs or default_jobs(),
                           fingerprint=config.command == "check" or config.tracking.on, progress=bar)
    run.opened.append(workspace)
    for skipped in workspace.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not workspace.corpus_facts().documents:
        raise ArgumentRefused(f"no readable documents in {config.corpus.path}")
    return workspace


def load(run: Run, *, alone: bool = False) -> tuple:
    """``(corpus, workspace)`` of a command (``ArgumentRefused`` when no document is readable).
    ``alone``: the command needs no more than an engine gives, so (the engine permitting) the
    corpus is streamed from disk or held by the Ray cluster, one object being both."""
    from ..engines.open import holds, open_held

    engine = run.engine()
    if not holds(engine, alone):
        found = read_alone(run, engine)
        return found, found
    held_anyway(run.config.corpus.engine, alone)
    corpus = read_corpus(run)
    for skipped in corpus.skipped:
        sys.stderr.write(f"skipped {skipped.path}: {skipped.reason}\n")
    if not corpus.documents:
        raise ArgumentRefused(f"no readable documents in {run.config.corpus.path}")
    return corpus, open_held(corpus, engine, run.config.corpus.mode, run.config.services)


def held_anyway(engine: str, alone: bool) -> None:
    """Say so when ``--engine stream`` or ``ray`` was asked for and the command needs the corpus
    in this process's memory."""
    if engine in ("stream", "ray") and not alone:
        where = "streamed" if engine == "stream" else "held by the cluster"
        sys.stderr.write("note: what this command measures needs the whole corpus (what your own "
                         "system retrieved, imported chunks or a store's), "
                         f"so it is held in memory here rather than {where}\n")


def analysis_store(run: Run):
    """Where the run's analyses are kept between runs: its data folder."""
    from ..atoms.store import AnalysisStore

    return AnalysisStore(run.config.services.data)
