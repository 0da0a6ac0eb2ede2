"""``inspector.measure.derived``: splits, query candidates, terms and token counts kept between runs."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from inspector import Document, Workspace
from inspector.cli import main
from inspector.data_folder import drop_oldest
from inspector.measure import derived as derived_module
from inspector.measure.derived import DerivedStore, derived_version
from inspector.measure.services import Services
from inspector.reports.article import build_report
from inspector.spec import parse_spec
from tests.support.engines import nothing_derived_again
from tests.support.paths import SAMPLE

TEXT = ("# Title\n\nIntro with 12 figures in it, and a sentence long enough to split.\n\n"
        "## Costs\n\n| plan | price |\n|---|---|\n| basic | 5 |\n| pro | 9 |\n\n"
        "The basic plan costs 5 euros a month since 2021, the professional one 9 euros.\n\n"
        "```\nprint('hello')\n```\n")


def documents(n: int = 6) -> list[Document]:
    return [Document(f"d{i}.md", TEXT.replace("12", str(10 + i)) + f"\nEnding number {i} here with words.\n",
                     title=f"Doc {i}") for i in range(n)]


def workspace(docs: list[Document], folder: Path | None, mode: str = "markdown") -> Workspace:
    work = Workspace(docs, mode)
    work.kept = DerivedStore(folder) if folder is not None else None
    return work


SPECS = ("fixed:200", "recursive:300", "structured:300", "sentence:300+address", "recursive:60t")


def report(work: Workspace, jobs: int = 1) -> dict:
    return build_report(work, specs=SPECS, budgets=(200, 400), jobs=jobs)


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_a_second_run_reads_everything_and_measures_the_same(tmp_path, mode, monkeypatch):
    docs = documents()
    plain = report(workspace(docs, None, mode))
    first = workspace(docs, tmp_path, mode)
    assert report(first) == plain
    assert first.kept.writes > 0 and (tmp_path / "kept.sqlite3").is_file()
    nothing_derived_again(monkeypatch)
    second = workspace(docs, tmp_path, mode)
    assert report(second) == plain
    assert second.kept.writes == 0 and second.kept.hits >= len(docs) * (len(SPECS) + 2) + 1


def test_forked_workers_keep_what_they_compute(tmp_path, monkeypatch):
    docs = documents(12)
    plain = report(workspace(docs, None))
    assert report(workspace(docs, tmp_path), jobs=2) == plain
    monkeypatch.setattr("inspector.measure.workspace.chunk_spans", lambda *a, **k: 1 / 0)
    assert report(workspace(docs, tmp_path), jobs=2) == plain


def test_where_the_words_occur_is_kept_for_one_corpus_and_one_set_of_words(tmp_path):
    docs = documents()
    store = DerivedStore(tmp_path)
    words = frozenset({"costs", "professional"})
    key = store.corpus_key("occurrences", workspace(docs, None).fingerprint, "markdown", words)
    assert key == store.corpus_key("occurrences", workspace(docs, None).fingerprint, "markdown", set(words))
    assert key != store.corpus_key("occurrences", workspace(docs, None).fingerprint, "markdown", words | {"plan"})
    assert key != store.corpus_key("occurrences", workspace(docs[:-1], None).fingerprint, "markdown", words)
    assert key != store.corpus_key("occurrences", workspace(docs, None).fingerprint, "seed", words)
    assert store.value(key, lambda: (b"1", b"2")) == (b"1", b"2") and store.writes == 1
    assert store.value(key, lambda: 1 / 0) == (b"1", b"2") and store.hits == 1


def test_a_changed_document_is_computed_alone(tmp_path):
    docs = documents()
    work = workspace(docs, tmp_path)
    work.probe("recursive:300")
    changed = [*docs[:2], Document("d2.md", docs[2].text + "\nOne more line of 7 words in it.\n", title="Doc 2"),
               *docs[3:]]
    again = workspace(changed, tmp_path)
    result = again.probe("recursive:300")
    # the changed document's split, candidates and terms; the chunks it ends with that were never counted
    assert 3 <= again.kept.writes <= 3 + 5
    assert result == workspace(changed, None).probe("recursive:300")


def test_copies_of_one_text_share_their_kept_values_but_a_stamp_tells_them_apart(tmp_path):
    one, other = Document("a.md", TEXT, title="Alpha"), Document("b.md", TEXT, title="Beta")
    store = DerivedStore(tmp_path)
    assert store.key("split:x", one, "markdown") == store.key("split:x", other, "markdown")
    stamped = parse_spec("sentence:300+address")
    assert store.split_kind(stamped, one) != store.split_kind(stamped, other)
    assert store.split_kind(parse_spec("sentence:300"), one) == store.split_kind(parse_spec("sentence:300"), other)
    for spec in ("sentence:300+address", "sentence:300"):
        work = workspace([one, other], tmp_path)
        kept = work.pool(spec)
        plain = workspace([one, other], None).pool(spec)
        assert kept.prefixes == plain.prefixes and kept.starts.tolist() == plain.starts.tolist()


def test_what_is_kept_and_what_is_not():
    assert DerivedStore.keeps(parse_spec("recursive:800"))
    assert DerivedStore.keeps(parse_spec("recursive:200:cl100k"))
    assert not DerivedStore.keeps(parse_spec("imported:" + "0123456789abcdef"))
    assert not DerivedStore.keeps(parse_spec("ext-langchain:800"))
    assert not DerivedStore.keeps(parse_spec("recursive:800:hf:some/tokenizer.json"))


def test_changed_code_reads_nothing_stale(tmp_path, monkeypatch):
    root = Path(derived_module.__file__).resolve().parent.parent
    copy = tmp_path / "copy"
    for room in ("atoms", "split", "retrieval"):
        (copy / room).mkdir(parents=True)
        for path in (root / room).glob("*.py"):
            shutil.copy(path, copy / room / path.name)
    for name in ("lengths.py", "spec.py", "model.py"):
        shutil.copy(root / name, copy / name)
    assert derived_version(copy) == derived_version()
    (copy / "split" / "pieces.py").write_text("# changed\n" + (root / "split" / "pieces.py").read_text())
    assert derived_version(copy) != derived_version()
    docs = documents(3)
    workspace(docs, tmp_path).probe("recursive:300")
    monkeypatch.setattr(derived_module, "derived_version", lambda root=None: "another")
    fresh = workspace(docs, tmp_path)
    fresh.probe("recursive:300")
    assert fresh.kept.hits == 0 and fresh.kept.writes > 0


def test_a_damaged_row_or_an_unusable_folder_only_costs_the_time(tmp_path):
    docs = documents(3)
    plain = workspace(docs, None).probe("structured:300")
    workspace(docs, tmp_path).probe("structured:300")
    with sqlite3.connect(tmp_path / "kept.sqlite3") as connection:
        connection.execute("UPDATE kept SET plain = ?", (b"\x00garbage",))
    assert workspace(docs, tmp_path).probe("structured:300") == plain
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    work = workspace(docs, blocked)
    assert work.probe("structured:300") == plain and work.kept.writes == 0


def test_a_kept_count_of_the_wrong_type_is_counted_again(tmp_path):
    store = DerivedStore(tmp_path)
    count = store.counter("o200k")
    assert count(["hello world", "hello world"]) == [2, 2]
    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE kept SET plain = ?", (__import__("marshal").dumps("two"),))
    assert DerivedStore(tmp_path).counter("o200k")(["hello world"]) == [2]


def test_the_store_stays_bounded(tmp_path):
    with sqlite3.connect(tmp_path / "t.sqlite3") as connection:
        connection.execute("CREATE TABLE t (v BLOB, written REAL)")
        connection.executemany("INSERT INTO t VALUES (?, ?)", [(b"x" * 1000, i) for i in range(400)])
        drop_oldest(connection, "t", 10_000_000)
        assert connection.execute("SELECT COUNT(*) FROM t").fetchone()[0] == 400, "under the bound: all stay"
        drop_oldest(connection, "t", 100_000)
        assert [r[0] for r in connection.execute("SELECT written FROM t ORDER BY written")] == list(range(200, 400))
    store = DerivedStore(tmp_path / "small", max_bytes=64 * 1024)
    count = store.counter("o200k")
    count([f"text number {i} " * 20 for i in range(2_000)])
    rows = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM kept").fetchone()[0]
    assert 0 < rows < 2_000, "the older half went each time the pages passed the bound"


def test_a_second_report_splits_and_counts_nothing_and_prints_the_same(capsys, isolated_app, monkeypatch):
    args = ["report", str(SAMPLE / "handbook"), "--quiet", "--json", "--jobs", "2"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert (isolated_app / "kept.sqlite3").is_file()
    monkeypatch.setattr("inspector.measure.workspace.chunk_spans", lambda *a, **k: 1 / 0)
    monkeypatch.setattr(derived_module, "get_length", lambda *a, **k: 1 / 0)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first


def test_a_workspace_keeps_its_analyses_and_what_it_derives_in_one_folder(tmp_path):
    work = Workspace(documents(2), services=Services(data=str(tmp_path)))
    work.probe("recursive:300")
    assert work.analysis_store.path.parent == work.kept.path.parent == tmp_path
    assert {p.name for p in tmp_path.glob("*.sqlite3")} == {"analyses.sqlite3", "kept.sqlite3"}


def test_a_store_opens_one_connection_a_thread_and_process_and_pickles_without_it(tmp_path, monkeypatch):
    import os
    import pickle
    import threading

    from inspector.lengths import get_length

    tokens = get_length("o200k").count
    opened = []
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: opened.append(threading.get_ident()) or connect(*a, **k))
    store = DerivedStore(tmp_path)
    count = store.counter("o200k")
    for n in range(3):
        assert count([f"text {n}", "hello world"]) == [tokens(f"text {n}"), 2]
    assert len(opened) == 1, "every read and write of this thread on one connection"
    hits = store.hits
    seen = []
    worker = threading.Thread(target=lambda: seen.append(count(["text 1", "a new one"])))
    worker.start()
    worker.join()
    assert seen == [[tokens("text 1"), 3]] and len(opened) == 2, "another thread: its own connection"
    assert store.hits == hits + 1, "and the rows this one wrote"
    copy = pickle.loads(pickle.dumps(store))
    assert copy.counter("o200k")(["text 2"]) == [tokens("text 2")] and copy.hits == store.hits + 1
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # a forked process: a connection of its own, never its parent's
        try:
            before = len(opened)
            ok = count(["text 0", "forked"]) == [tokens("text 0"), tokens("forked")] and len(opened) == before + 1
            os.write(write, b"ok" if ok else b"no")
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 2) == b"ok"
    hits = store.hits
    assert count(["forked"]) == [tokens("forked")] and store.hits == hits + 1, "what the child wrote is read here"
