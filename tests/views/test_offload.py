"""``inspector.views.offload``: page computations in worker processes give what the page would
compute itself, and identical requests made at once share one computation."""

from __future__ import annotations

import threading
import time

import pandas as pd
import pytest

from inspector import Workspace, get_length, load_corpus
from inspector.measure.services import Services
from inspector.views import offload as offload_module
from inspector.views.frames import compare_frame, sizes_frame, sweep_frame
from inspector.views.offload import Offload, corpus_handle
from tests.support.paths import SAMPLE

CORPUS = load_corpus(SAMPLE)


@pytest.fixture(scope="module")
def workspace() -> Workspace:
    return Workspace(CORPUS)


@pytest.fixture(scope="module")
def pool():
    pool = Offload(1)
    yield pool
    pool.close()


def handle(tmp_path):
    return corpus_handle(CORPUS, "markdown", tmp_path / "corpora", Services(chunk_sets=str(tmp_path / "chunk-sets")))


def test_a_worker_process_computes_what_the_page_would(pool, workspace, tmp_path):
    where = handle(tmp_path)
    pd.testing.assert_frame_equal(pool.run("compare", workspace, where, ("fixed:400", "structured:800"), 800),
                                  compare_frame(workspace, ["fixed:400", "structured:800"], fits=800))
    pd.testing.assert_frame_equal(pool.run("sweep", workspace, where, "structured:800", (400, 1200)),
                                  sweep_frame(workspace, "structured:800", [400, 1200]))
    pd.testing.assert_frame_equal(pool.run("sizes", workspace, where, "heading:256t", "o200k"),
                                  sizes_frame(workspace, "heading:256t", get_length("o200k")))


def test_the_corpus_is_written_once_for_the_workers(tmp_path):
    first = handle(tmp_path)
    stamp = (tmp_path / "corpora" / first.path.rsplit("/", 1)[1]).stat().st_mtime_ns
    again = handle(tmp_path)
    assert again == first and len(list((tmp_path / "corpora").iterdir())) == 1
    assert (tmp_path / "corpora" / first.path.rsplit("/", 1)[1]).stat().st_mtime_ns == stamp
    assert corpus_handle(CORPUS, "seed", tmp_path / "corpora").path != first.path


def test_errors_reach_the_page_as_they_were_raised(pool, workspace, tmp_path):
    from inspector.errors import ChunkSetError

    with pytest.raises(ChunkSetError, match="no imported chunk set"):
        pool.run("compare", workspace, handle(tmp_path), ("imported:0123456789abcdef",), 800)
    with pytest.raises(ValueError, match="unknown task"):
        pool.run("explode", workspace, handle(tmp_path))


def test_identical_requests_at_the_same_time_share_one_computation(monkeypatch, workspace, tmp_path):
    calls = []

    def slow(work, specs, fits):
        calls.append(specs)
        time.sleep(0.3)
        return compare_frame(work, list(specs), fits=fits)

    monkeypatch.setitem(offload_module.TASKS, "compare", slow)  # seen in this process: in-thread mode only
    here = Offload(0)
    results = []
    threads = [threading.Thread(target=lambda: results.append(here.run("compare", workspace, handle(tmp_path),
                                                                        ("fixed:600",), 800))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [("fixed:600",)] and len(results) == 4
    assert all(r.equals(results[0]) for r in results)
    here.run("compare", workspace, handle(tmp_path), ("fixed:600",), 800)
    assert len(calls) == 2, "a finished request is not kept: the page's cache does that"


def test_rounds_import_measures_and_golden_recall_come_back_the_same(pool, workspace, tmp_path):
    from inspector.chunks import chunk_set_from_import
    from inspector.retrieval import golden_recall, load_golden
    from inspector.review import ReviewRound, draw
    from inspector.views.imports import import_upload, sample_export, side_by_side

    where = handle(tmp_path)
    review_round = ReviewRound.create(workspace, "structured:800", size=5, seed=2, source="probe")
    assert pool.run("round", workspace, where, review_round) == tuple(draw(review_round, workspace))
    result, _ = import_upload("s.jsonl", sample_export(workspace, "paragraph:600"), workspace)
    assert pool.run("side_by_side", workspace, where, result, "fixed:800", "mine") == \
        side_by_side(workspace, result, "fixed:800", label="mine")
    golden = load_golden(SAMPLE / "golden-questions.jsonl", CORPUS)
    chunk_set = chunk_set_from_import(result, workspace)
    workspace.add_chunk_set(chunk_set)
    assert pool.run("golden", workspace, where, golden, str(chunk_set.spec), "imported", chunk_set) == \
        golden_recall(workspace, golden, chunk_set.spec, label="imported")


@pytest.mark.parametrize("processes", [0, 2])
def test_each_call_of_a_batch_is_answered_at_its_position(processes, workspace, tmp_path):
    """The Tune page hands a rung of configurations to every worker at once: each result comes
    back with the position of the call it answers, whichever finishes first."""
    from inspector.tune.search import Goal, measure_candidate

    goal = Goal((), 2000)
    specs = ["fixed:400", "structured:800", "heading:512", "recursive:800"]
    pool = Offload(processes)
    try:
        found = list(pool.each("tune_candidate", workspace, handle(tmp_path), [(s, goal, "bm25", ()) for s in specs]))
    finally:
        pool.close()
    assert sorted(position for position, _ in found) == list(range(len(specs)))
    for position, candidate in found:
        assert candidate == measure_candidate(workspace, specs[position], goal, "bm25", ())


def test_the_sizes_of_runs_of_documents_make_the_corpus_sizes(pool, workspace, tmp_path):
    from inspector.views.frames import document_parts

    runs = document_parts(CORPUS.documents, 4)
    assert len(runs) > 1
    where = handle(tmp_path)
    parts = [pool.run("sizes", workspace, where, "heading:256t", "o200k", first, stop) for first, stop in runs]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True),
                                  sizes_frame(workspace, "heading:256t", get_length("o200k")))


def test_a_worker_that_never_read_an_imported_set_sizes_runs_of_its_documents(tmp_path):
    from inspector.chunks.sets import ChunkSetStore, make_chunk_set
    from inspector.views.frames import document_parts

    workspace = Workspace(CORPUS)
    chunks = {result.doc_id: result.chunks for result in workspace.split("structured:800")}
    stored = make_chunk_set("structured-800.jsonl", workspace.fingerprint, workspace.documents, chunks)
    ChunkSetStore(tmp_path / "chunk-sets").save(stored)
    fresh = Workspace(CORPUS)  # what a new worker holds: the set only on disk
    fresh.chunk_set_store = ChunkSetStore(tmp_path / "chunk-sets")
    spec = f"imported:{stored.id}"
    parts = [offload_module.TASKS["sizes"](fresh, spec, "o200k", first, stop)
             for first, stop in document_parts(CORPUS.documents, 4)]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True),
                                  sizes_frame(workspace, "structured:800", get_length("o200k")))
