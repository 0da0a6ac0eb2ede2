"""``inspector.measure.workers``: forked analysis workers share the corpus out evenly, and
analyse a text several files hold once."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import Workspace
from inspector.atoms.detect import analyze
from inspector.atoms.store import AnalysisStore
from inspector.corpus.load import Reading
from inspector.engines import reading as reading_module
from inspector.engines.reading import read_analysed
from inspector.measure import analysing as analysing_module
from inspector.measure.workers import EarlyAnalysis, Workers, shares
from inspector.model import Document
from tests.support.paths import ROOT, SAMPLE


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.sampled_from([0, 1, 10, 1000, 5000]), min_size=2, max_size=12),
       jobs=st.integers(2, 6), head=st.sampled_from([0.0, 0.05, 0.2, 1.0, 3.0]))
def test_every_worker_gets_documents(sizes, jobs, head):
    docs = [Document(f"d{i}", "x" * size) for i, size in enumerate(sizes)]
    bounds = shares([len(d.text) for d in docs], jobs, head)
    assert bounds[0] == 0 and bounds[-1] == len(docs)
    assert len(bounds) == min(jobs - 1, len(docs)) + 2
    assert all(a <= b for a, b in zip(bounds, bounds[1:]))
    assert all(a < b for a, b in zip(bounds[1:], bounds[2:]))


TEXTS = ("# A\n\nThe plan costs 5 euros a month since 2021 for every single seat.\n",
         "# B\n\n| plan | price |\n|---|---|\n| pro | 9 |\n\nSee [the docs](http://x.io) from 2020 onwards.\n",
         "# C\n\n```\ncode 1\n```\n\nThe third page lists 3 figures in 2019 and 2022 for testing.\n")


def copies() -> list[Document]:
    """Each text in three files (as a page kept in every version of the docs)."""
    return [Document(f"v{k}/{i}.md", text) for k in range(3) for i, text in enumerate(TEXTS)]


def test_a_text_several_files_hold_is_analysed_once():
    docs = copies()
    workers = Workers(docs, "markdown", 2, 0.0)
    try:
        assert [d.id for d in workers.documents] == ["v0/0.md", "v0/1.md", "v0/2.md"]
        assert [(d.id, earlier.id) for d, earlier in workers.twins] == [
            (f"v{k}/{i}.md", f"v0/{i}.md") for k in (1, 2) for i in range(3)]
        work = Workspace(docs, "markdown")
        analyses = work.analyses(workers=workers)
    finally:
        workers.close()
    alone = Workspace(docs, "markdown")
    assert analyses == alone.analyses()
    assert all(analyses[i] is analyses[i % 3] for i in range(len(docs)))
    assert work.queries() == alone.queries()


def test_in_this_process_too_a_text_is_analysed_once(monkeypatch):
    calls = []
    real = analysing_module.analyze
    monkeypatch.setattr(analysing_module, "analyze", lambda text, mode: calls.append(text) or real(text, mode))
    work = Workspace(copies(), "markdown")
    analyses = work.analyses()
    assert sorted(calls) == sorted(TEXTS)
    assert analyses == [analyze(d.text, "markdown") for d in copies()]


def test_a_streamed_batch_analyses_a_text_once(tmp_path, monkeypatch):
    for document in copies():
        (tmp_path / document.id).parent.mkdir(exist_ok=True)
        (tmp_path / document.id).write_text(document.text)
    calls = []
    real = reading_module.analyze
    monkeypatch.setattr(reading_module, "analyze", lambda text, mode: calls.append(text) or real(text, mode))
    entries = [(d.id, str(tmp_path / d.id)) for d in copies()]
    found = read_analysed(Reading("markdown"), str(tmp_path / "data"), entries)
    assert sorted(calls) == sorted(TEXTS)
    assert [a for _, a in found] == [analyze(d.text, "markdown") for d in copies()]
    calls.clear()
    assert [a for _, a in read_analysed(Reading("markdown"), str(tmp_path / "data"), entries)] == \
        [a for _, a in found] and calls == []  # each text was kept once, for all its files


def test_early_workers_take_every_text_file_while_others_convert(tmp_path):
    store = AnalysisStore(tmp_path)
    docs = copies()
    store.save([(docs[0].text, analyze(docs[0].text, "markdown"))])
    early = EarlyAnalysis(store, "markdown", 2)
    try:
        early.files_listed([("a.html", "a.html")])  # no conversions kept: converted here
        assert early.texts_read(docs) is None
        assert set(early.kept) == {"v0/0.md", "v1/0.md", "v2/0.md"}  # kept: not analysed again
        assert early.workers.own == []
        assert [d.id for d in early.workers.documents] == ["v0/1.md", "v0/2.md"]
    finally:
        early.close()
    early = EarlyAnalysis(store, "markdown", 2)
    try:
        early.files_listed([])
        early.texts_read(docs)  # nothing to convert: this process analyses a share too
        assert early.workers.own != []
    finally:
        early.close()


@pytest.mark.parametrize("texts", [3, 0])
def test_a_process_converts_ahead_while_this_process_builds_the_encoding(tmp_path, monkeypatch, texts):
    """With the conversions kept on disk, a process forked when the files are listed converts
    them, and this process reads what it kept."""
    from inspector import lengths
    from inspector.corpus import ConversionCache
    from inspector.corpus import convert as convert_module
    from inspector.corpus.listing import list_corpus
    from inspector.corpus.load import load_corpus, load_listing

    folder = tmp_path / "corpus"
    folder.mkdir()
    for n in range(texts):
        (folder / f"t{n}.md").write_text(f"# Text {n}\n\nSome words, {n} of them.\n")
    for name in ("b.html", "c.html"):
        (folder / name).write_text(f"<h1>{name}</h1><p>Converted by a worker.</p>")
    (folder / "d.html").write_bytes(b"<p>\0binary</p>")
    converted_here = []
    real = convert_module.to_markdown
    monkeypatch.setattr(convert_module, "_MEMO", {})
    pid = os.getpid()
    monkeypatch.setattr("inspector.corpus.conversions.to_markdown",
                        lambda raw, kind, converter="markitdown", limits=None:
                        (os.getpid() == pid and converted_here.append(kind)) or real(raw, kind, converter, limits))
    built = []
    build = lengths.get_length
    monkeypatch.setattr(lengths, "get_length", lambda name: built.append(name) or build(name))
    reading = Reading("markdown", conversions=ConversionCache(tmp_path / "conversions"))
    early = EarlyAnalysis(AnalysisStore(tmp_path / "data"), "markdown", 2, reading)
    try:
        corpus = load_listing(list_corpus(folder), reading, early)
        own = [d.id for d in early.workers.own] if early.workers else []
    finally:
        early.close()
    assert sorted(early.analysed) == own and (own or not texts), "its own share analysed meanwhile"
    assert all(early.analysed[d.id] == analyze(d.text, "markdown") for d in corpus.documents if d.id in own)
    assert converted_here == [], "the refusal of the file the process could not convert is kept like a conversion"
    assert built == ["o200k"], "built here while the files converted"
    assert corpus == load_corpus(folder)
    assert [s.path for s in corpus.skipped] == ["d.html"]
    again = EarlyAnalysis(AnalysisStore(tmp_path / "data"), "markdown", 2, reading)
    try:
        kept = [(name, str(folder / name)) for name in ("b.html", "c.html", "d.html")]
        again.files_listed(kept)
        assert again.texts_read([]) is None, "every conversion (or refusal) kept: read here, no encoding built"
        (folder / "e.html").write_text("<p>New.</p>")
        again.files_listed([("e.html", str(folder / "e.html"))])
        assert again.texts_read([]) is not None
    finally:
        again.close()


def test_the_report_starts_its_workers_before_the_engine_is_imported(tmp_path):
    # Whatever this process imports before forking is time the workers do not parse in.
    code = ("import sys; from inspector.measure import workers; seen = []; call = workers.EarlyAnalysis.texts_read\n"
            "def spy(self, documents):\n"
            "    seen.append(sorted(m for m in ('numpy', 'tiktoken', 'markitdown') if m in sys.modules))\n"
            "    return call(self, documents)\n"
            "workers.EarlyAnalysis.texts_read = spy\n"
            "from inspector.cli import main; status = main(['report', sys.argv[1], '--json', '--quiet'])\n"
            "print(status, seen)")
    found = subprocess.run([sys.executable, "-c", code, str(SAMPLE)], capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "CHUNK_INSPECTOR_DATA": str(tmp_path)}, check=True)
    assert found.stdout.splitlines()[-1] == "0 [[]]"
