"""What the engines' identity tests share: the corpora they measure (the sample corpus with two
unreadable files, a few thousand generated documents), one run of ``report``, of ``check`` and
``export``, and watches on the streamed engine (its batches, where workspaces are built)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from inspector.cli import main
from inspector.data_folder import ENV_DATA
from inspector.engines.stream.spill import Spill
from inspector.measure.workspace import Workspace
from tests.support.paths import SAMPLE


def report(capsys, monkeypatch, folder, data, *args) -> str:
    """What ``report --json`` prints, with ``data`` as the data folder."""
    monkeypatch.setenv(ENV_DATA, str(data))  # a fresh data folder: nothing is read from an earlier run
    assert main(["report", str(folder), "--json", "--quiet", *args]) == 0
    return capsys.readouterr().out


BUILD = Workspace.__init__


def workers_alone_build_workspaces(monkeypatch) -> None:
    """From here on, building a workspace in this process fails the test; the forked workers,
    which measure the batches, build theirs."""
    here, build = os.getpid(), BUILD

    def only_in_workers(self, *args, **kwargs):
        if os.getpid() == here:
            raise AssertionError("the command's process built a workspace: batches are measured by the workers")
        build(self, *args, **kwargs)

    monkeypatch.setattr(Workspace, "__init__", only_in_workers)


def count_batches(monkeypatch) -> list[int]:
    """The sizes of the batches parked from here on (in documents)."""
    batches, add = [], Spill.add
    monkeypatch.setattr(Spill, "add", lambda self, documents: batches.append(documents) or add(self, documents))
    return batches


def with_unreadable_files(folder: Path) -> Path:
    """A copy of the sample corpus with a binary file and a Latin-1 file added."""
    shutil.copytree(SAMPLE, folder)
    (folder / "binary.md").write_bytes(b"# Title\x00\x01")
    (folder / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    return folder


def generated(folder: Path, documents: int = 2_000) -> Path:
    """``documents`` notes of four of the sample corpus's paragraphs each, 500 to a subfolder."""
    paragraphs = [p for path in sorted(SAMPLE.rglob("*.md"))
                  for p in path.read_text(encoding="utf-8").split("\n\n") if p.strip() and not p.startswith("---")]
    for i in range(documents):
        part = folder / f"part-{i // 500}"
        part.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(paragraphs[(7 * i + k) % len(paragraphs)] for k in range(4))
        (part / f"doc-{i:04d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    return folder


def check_and_export(capsys, monkeypatch, data: Path, engine: str) -> tuple[str, str]:
    """What ``check`` (writing a baseline, failing a floor, and with a golden set read with
    neighbour windows) and ``export`` print with ``engine``, and the baseline written."""
    monkeypatch.setenv(ENV_DATA, str(data))
    baseline = data.parent / f"{data.name}-baseline.json"
    assert main(["check", str(SAMPLE), "--spec", "structured:800", "--json", "--engine", engine,
                 "--write-baseline", str(baseline)]) == 0
    assert main(["export", str(SAMPLE), "--spec", "heading:256t", "--engine", engine]) == 0
    assert main(["check", str(SAMPLE), "--spec", "fixed:400", "--engine", engine, "--min", "code=99%"]) == 1
    assert main(["check", str(SAMPLE), "--spec", "recursive:800", "--json", "--engine", engine, "--expand", "1",
                 "--golden", str(SAMPLE / "golden-questions.jsonl"), "--min", "recall@4000=10%"]) == 0
    return capsys.readouterr().out, baseline.read_text()


def nothing_derived_again(monkeypatch) -> None:
    """From here on, splitting a document, finding its query candidates or its terms, looking the
    probe's words up among the terms, or counting o200k tokens fails the test: all of it is to
    come from the data folder's kept store."""
    def refuse(*args, **kwargs):
        raise AssertionError("computed again, not read from the kept store")

    for name in ("inspector.measure.workspace.chunk_spans", "inspector.measure.analysing.query_candidates",
                 "inspector.measure.probing.query_candidates",
                 "inspector.retrieval.terms.TermTable.runs_of", "inspector.retrieval.terms.occurrences",
                 "inspector.measure.derived.get_length"):
        monkeypatch.setattr(name, refuse)


def left_in(parked) -> list:
    """What a command left where it parks its batches. The conversion host (``corpus.box``) is
    one per process, kept for every later conversion: when this test's command is the process's
    first to convert a file, the host's socket folder is made here and stays, as it should."""
    return [p for p in parked.iterdir() if not p.name.startswith("ci-box-")]
