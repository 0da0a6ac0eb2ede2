"""Batches of a corpus parked on disk: how files are cut into batches, and what a batch gives back."""

from __future__ import annotations

import marshal
import os

from hypothesis import given
from hypothesis import strategies as st

from inspector.atoms.analysis import Analysis
from inspector.atoms.detect import analyze
from inspector.engines.stream.spill import LEAST_BYTES, MOST_BYTES, Spill, batch_runs
from inspector.model import Document


@given(sizes=st.lists(st.integers(0, 3 * MOST_BYTES), max_size=60), workers=st.integers(1, 8))
def test_batches_cover_every_file_once_in_order_within_their_share(sizes, workers):
    bounds = batch_runs(sizes, workers)
    assert bounds[0] == 0 and bounds[-1] == len(sizes)
    assert all(a < b for a, b in zip(bounds, bounds[1:]))  # no empty batch, order kept
    share = min(MOST_BYTES, max(LEAST_BYTES, sum(sizes) // (workers * 4)))
    for a, b in zip(bounds, bounds[1:]):
        # A batch stays within its share unless one file alone is larger, and it ends where the
        # next file would have taken it over.
        assert b - a == 1 or sum(sizes[a:b]) <= share
        if b < len(sizes):
            assert sum(sizes[a:b + 1]) > share


def test_a_small_corpus_still_gives_every_worker_batches():
    assert len(batch_runs([10_000] * 400, 2)) - 1 >= 8
    assert batch_runs([], 2) == [0]
    assert batch_runs([0, LEAST_BYTES + 1], 1) == [0, 1, 2]  # an empty file does not carry a larger one over


def test_a_batch_comes_back_as_it_was_parked(tmp_path):
    spill = Spill(tmp_path / "parked")
    spill.folder.mkdir()
    texts = ["# One\n\nA sentence with 42 in it.\n", "| a | b |\n|---|---|\n| 1 | 2 |\n", ""]
    documents = [Document(f"d{i}.md", text, title=f"T{i}") for i, text in enumerate(texts)]
    analyses = [analyze(text, "markdown") for text in texts]
    spill.write(0, documents[:2], analyses[:2])
    spill.add(2)
    spill.write(1, documents[2:], analyses[2:])
    spill.add(1)
    assert len(spill) == 2 and spill.bounds == [0, 2, 3]
    back, plains = spill.read(0)
    assert back == documents[:2]
    assert [Analysis.from_plain(marshal.loads(p)).to_plain() for p in plains] == [a.to_plain() for a in analyses[:2]]
    assert list(spill.documents()) == documents
    assert [spill.batch_of(d) for d in range(3)] == [(0, 0), (0, 1), (1, 0)]
    spill.close()
    assert not spill.folder.exists()


def test_only_the_process_that_made_the_folder_removes_it(tmp_path):
    spill = Spill(tmp_path / "parked")
    spill.folder.mkdir()
    pid = os.fork()
    if pid == 0:  # a worker's copy, let go when it ends
        spill.close()
        os._exit(0)
    os.waitpid(pid, 0)
    assert spill.folder.exists()
    spill.close()
    assert not spill.folder.exists()
