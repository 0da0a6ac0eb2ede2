"""``inspector.atoms.store``: analyses kept between runs, keyed by text, mode and detector."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from inspector import Document, Workspace, analyze
from inspector.atoms import store as store_module
from inspector.atoms.store import DETECTOR_VERSION, AnalysisStore, analysis_key, detector_version
from inspector.cli import main
from tests.support.at_once import at_once
from tests.support.paths import SAMPLE

TEXT = "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nIt costs 5 euros. See [x](http://y).\n\n```\ncode\n```\n"


def test_an_analysis_comes_back_as_it_was_kept(tmp_path):
    store = AnalysisStore(tmp_path)
    for mode in ("markdown", "seed"):
        analysis = analyze(TEXT, mode)
        assert store.save([(TEXT, analysis)]) == 1
        (again,) = store.load([TEXT], mode)
        assert again == analysis and again.tables == analysis.tables and again.headings == analysis.headings
    assert store.load([TEXT + " "], "markdown") == [None], "another text is another key"
    assert analysis_key(TEXT, "seed") != analysis_key(TEXT, "markdown")
    assert DETECTOR_VERSION in analysis_key(TEXT, "seed")


def test_more_analyses_than_one_batch_are_kept_and_read_in_order(tmp_path):
    store = AnalysisStore(tmp_path)
    texts = [f"# Doc {i}\n\nIt costs {i} EUR.\n" for i in range(1_203)]
    assert store.save([]) == 0 and not list(tmp_path.iterdir()), "nothing to keep opens no store"
    assert store.save((t, analyze(t, "markdown")) for t in texts[:1_201]) == 1_201
    found = store.load(texts, "markdown")
    assert found[:1_201] == [analyze(t, "markdown") for t in texts[:1_201]] and found[1_201:] == [None, None]
    again = store.load([texts[3], texts[3], texts[3]], "markdown")
    assert again == [analyze(texts[3], "markdown")] * 3, "copies of one text share its analysis"


def test_a_damaged_row_or_an_unusable_folder_only_costs_the_time(tmp_path):
    store = AnalysisStore(tmp_path)
    store.save([(TEXT, analyze(TEXT))])
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE analyses SET plain = ?", (b"\x00garbage",))
    assert store.load([TEXT], "markdown") == [None]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert AnalysisStore(blocked).load([TEXT], "markdown") == [None]
    assert AnalysisStore(blocked).save([(TEXT, analyze(TEXT))]) == 0


def test_a_workspace_reads_what_an_earlier_one_kept(tmp_path, monkeypatch):
    documents = [Document(f"d{i}.md", TEXT.replace("5", str(i))) for i in range(5)]
    first = Workspace(documents)
    first.analysis_store = AnalysisStore(tmp_path)
    analyses = first.analyses()
    assert first.analysis_store.writes == 5
    second = Workspace(documents + [Document("new.md", "# New\n\nIt is 7 metres.\n")])
    second.analysis_store = AnalysisStore(tmp_path)
    computed = []
    monkeypatch.setattr("inspector.measure.analysing.analyze", lambda text, mode: computed.append(text) or
                        analyze(text, mode))
    assert second.analyses()[:5] == analyses
    assert computed == ["# New\n\nIt is 7 metres.\n"], "only the new document is analysed"
    assert second.analysis_store.hits == 5 and second.analysis_store.writes == 1


def test_a_second_report_reads_every_analysis_and_prints_the_same(capsys, isolated_app, monkeypatch):
    args = ["report", str(SAMPLE / "handbook"), "--quiet", "--json", "--jobs", "2"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)

    def refuse(text, mode):
        raise AssertionError("analysed again")

    monkeypatch.setattr("inspector.measure.analysing.analyze", refuse)
    monkeypatch.setattr("inspector.measure.workers.analyze", refuse)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert main(["check", str(SAMPLE / "handbook"), "--spec", "structured:800"]) == 0


def test_the_detector_version_follows_the_rooms_code(tmp_path):
    room = Path(store_module.__file__).parent
    assert detector_version() == DETECTOR_VERSION == detector_version(room)
    for path in room.glob("*.py"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    assert detector_version(tmp_path) == DETECTOR_VERSION
    (tmp_path / "detect.py").write_text("# changed\n" + (room / "detect.py").read_text())
    assert detector_version(tmp_path) != DETECTOR_VERSION


def test_processes_opening_a_new_store_at_once_all_keep_their_analyses(tmp_path):
    """What ``--engine ray``'s readers do: several processes open a store that does not exist
    yet, and none passes over it (the journal-mode switch waits out the others' lock)."""
    def prepare(round_, k):
        text = f"# Doc {k}\n"
        return tmp_path / str(round_), text, analyze(text, "markdown")

    written = at_once(prepare, lambda found: AnalysisStore(found[0]).save([found[1:]]), [0, 1, 2, 3], 8)
    assert written == [1] * 32
