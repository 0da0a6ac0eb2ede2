"""``inspector.views.kept_results``: the pages' tables kept across restarts come back as they
were computed, under a key that changes with anything they depend on, and never stale."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

from inspector import Workspace, load_corpus
from inspector.measure.services import Services
from inspector.reports import fix_steps, measure_step
from inspector.retrieval.golden_files import load_golden
from inspector.views import kept_results
from inspector.views import offload as offload_module
from inspector.views.frames import compare_frame, probe_verdict, survival_verdict
from inspector.views.kept_results import KeptResults, NotKept, result_key
from inspector.views.offload import Offload, corpus_handle, kept_key
from tests.support.paths import SAMPLE

CORPUS = load_corpus(SAMPLE)


def test_a_table_and_a_fix_row_come_back_as_they_were_kept(workspace, tmp_path):
    store = KeptResults(tmp_path)
    frame = compare_frame(workspace, ["fixed:400", "structured:800"], fits=800)
    assert store.put("a", frame)
    back = KeptResults(tmp_path).get("a")
    pd.testing.assert_frame_equal(back, frame)
    # The verdicts read the per-document groups and the probe's hits: the same from the kept table.
    assert survival_verdict(back) == survival_verdict(frame) and probe_verdict(back) == probe_verdict(frame)
    row = measure_step(workspace, fix_steps(workspace, "recursive:400")[2], retriever="bm25")
    assert store.put("b", row) and KeptResults(tmp_path).get("b") == row
    assert store.put("c", {"en": 5}) and store.get("c") == {"en": 5}
    assert store.get("missing") is None


def test_a_damaged_row_is_not_read(workspace, tmp_path):
    store = KeptResults(tmp_path)
    store.put("a", compare_frame(workspace, ["fixed:400"], fits=400))
    with sqlite3.connect(tmp_path / kept_results.STORE_NAME) as connection:
        connection.execute("UPDATE results SET plain = substr(plain, 1, 100) || x'00' || substr(plain, 102)")
        connection.execute("INSERT INTO results SELECT 'moved', plain, written FROM results WHERE key = 'a'")
    assert store.get("a") is None and store.get("moved") is None


def test_a_store_that_cannot_be_written_only_saves_no_time(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    store = KeptResults(tmp_path / "file")
    assert store.put("a", {"en": 1}) is False and store.get("a") is None


def test_the_key_changes_with_every_part_a_result_depends_on(monkeypatch):
    golden = load_golden(SAMPLE / "golden-paraphrase.csv", CORPUS)
    base = ("compare", "f1", "markdown", (("fixed:400",), 400, "bm25", ""), ("", ""))
    key = result_key(*base)
    assert result_key(*base) == key
    changed = [("compare", "f2", *base[2:]), (*base[:2], "seed", *base[3:]),
               (*base[:3], (("fixed:401",), 400, "bm25", ""), base[4]),
               (*base[:4], ("http://127.0.0.1:1", "")), ("sweep", *base[1:])]
    assert len({key, *(result_key(*parts) for parts in changed)}) == 1 + len(changed)
    with_golden = result_key("fix_step", "f1", "markdown", (golden, "bm25"))
    assert with_golden == result_key("fix_step", "f1", "markdown", (load_golden(
        SAMPLE / "golden-paraphrase.csv", CORPUS), "bm25"))  # a golden set is a value
    with pytest.raises(NotKept):
        result_key("golden", "f1", "markdown", (object(),))
    monkeypatch.setattr(kept_results, "results_version", lambda: "another library")
    assert result_key(*base) != key


def test_a_restarted_server_reads_what_it_computed(monkeypatch, tmp_path):
    calls = []
    measure = offload_module.TASKS["compare"]

    def counted(*args):
        calls.append(args[1:])
        return measure(*args)

    monkeypatch.setitem(offload_module.TASKS, "compare", counted)
    workspace = Workspace(CORPUS)
    handle = corpus_handle(CORPUS, "markdown", tmp_path / "corpora", Services(str(tmp_path), str(tmp_path / "sets")))
    first = Offload(0).run("compare", workspace, handle, ("fixed:400",), 400)
    again = Offload(0).run("compare", workspace, handle, ("fixed:400",), 400)  # another server, the same folder
    pd.testing.assert_frame_equal(again, first)
    assert len(calls) == 1
    in_batch = dict(Offload(0).each("compare", workspace, handle, [(("fixed:400",), 400), (("fixed:500",), 500)]))
    pd.testing.assert_frame_equal(in_batch[0], first)
    assert len(calls) == 2  # only the new configuration was measured
    Offload(0).run("compare", workspace, corpus_handle(CORPUS, "markdown", tmp_path / "corpora"),
                   ("fixed:400",), 400)
    assert len(calls) == 3  # without a data folder nothing is kept


def test_what_reads_changing_things_is_never_kept(tmp_path):
    handle = corpus_handle(CORPUS, "markdown", tmp_path / "corpora", Services(str(tmp_path), str(tmp_path / "sets")))
    assert kept_key("compare", handle, (("fixed:400",), 400, "bm25", "")) is not None
    assert kept_key("compare", handle, (("fixed:400", "structured:400+context"), 400, "bm25", "")) is None
    assert kept_key("probe_searched", handle, ("imported:x", "chroma:docs", "bm25")) is None
    assert kept_key("golden", handle, (object(), "fixed:400", "label", None, "bm25")) is None
