"""The streamed local engine: a corpus read and measured a batch at a time, parked on disk,
prints what the corpus held in memory prints, byte for byte, in both atom modes, with
unreadable files, on a few thousand documents, for ``check`` and ``export``; the command's own
process never builds a workspace, and the parked batches are gone when the command ends."""

from __future__ import annotations

import errno
import json

import pytest

from inspector import load_corpus
from inspector.cli import main
from inspector.corpus.listing import list_corpus
from inspector.corpus.load import Reading
from inspector.data_folder import ENV_DATA
from inspector.engines import open as engines_open
from inspector.engines.stream import read as stream
from inspector.engines.stream.read import read_streamed
from inspector.engines.stream.spill import Spill
from inspector.errors import EngineError
from inspector.measure.workspace import Workspace
from inspector.spec import ARTICLE_SPECS
from tests.support.engines import (
    BUILD,
    check_and_export,
    count_batches,
    generated,
    left_in,
    nothing_derived_again,
    report,
    with_unreadable_files,
    workers_alone_build_workspaces,
)
from tests.support.paths import SAMPLE


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_streamed_corpus_prints_the_held_corpus_report(capsys, monkeypatch, tmp_path, parked, mode):
    corpus = with_unreadable_files(tmp_path / "corpus")
    grouped = ["--by-format", "--by-language"]
    held = report(capsys, monkeypatch, corpus, tmp_path / "memory", "--atoms", mode, "--engine", "memory", *grouped)
    assert held.count('"reason"') == 2 and '"by_language"' in held
    assert '"format": "pdf"' in held if mode == "markdown" else '"format": "markdown"' in held
    workers_alone_build_workspaces(monkeypatch)
    streamed = report(capsys, monkeypatch, corpus, tmp_path / "stream", "--atoms", mode, "--engine", "stream",
                      "--jobs", "2", *grouped)
    assert streamed == held
    # Again, the analyses now read from the data folder by the readers.
    assert report(capsys, monkeypatch, corpus, tmp_path / "stream", "--atoms", mode, "--engine", "stream",
                  "--jobs", "2", *grouped) == held
    assert (tmp_path / "stream" / "analyses.sqlite3").stat().st_size > 100_000
    assert left_in(parked) == []  # every parked batch removed


def test_a_few_thousand_documents_in_many_batches_give_the_same_report(capsys, monkeypatch, tmp_path, parked):
    corpus = generated(tmp_path / "corpus")
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)  # about 26 batches
    spec = ["--spec", "structured:400", "--spec", "heading:128t", "--spec", "fixed:400/50", "--budgets", "400,800"]
    held = report(capsys, monkeypatch, corpus, tmp_path / "memory", *spec, "--engine", "memory")
    assert '"documents": 2000' in held
    batches = count_batches(monkeypatch)
    assert report(capsys, monkeypatch, corpus, tmp_path / "stream", *spec, "--engine", "stream") == held
    assert len(batches) > 20


def test_check_and_export_stream_too(capsys, monkeypatch, tmp_path, parked):
    held = check_and_export(capsys, monkeypatch, tmp_path / "memory", "memory")
    workers_alone_build_workspaces(monkeypatch)
    assert check_and_export(capsys, monkeypatch, tmp_path / "stream", "stream") == held
    assert '"fingerprint"' in held[1] and held[0].count('"chunk_id"') > 300
    assert left_in(parked) == []


def test_local_streams_a_corpus_from_its_size_on(capsys, monkeypatch, tmp_path, parked):
    streamed = []
    original = stream.read_streamed
    monkeypatch.setattr(stream, "read_streamed", lambda *a, **k: streamed.append(a) or original(*a, **k))
    args = ["--spec", "fixed:400", "--budgets", "400"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "a", *args)
    assert streamed == []  # the sample corpus is under STREAM_BYTES: held in memory
    monkeypatch.setattr(engines_open, "STREAM_BYTES", 1)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "b", *args) == held
    assert len(streamed) == 1
    # What needs the corpus in memory holds it, whatever its size (imported chunks); asked to
    # stream, it says so.
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(json.dumps({"doc_id": "handbook/leave-policy.md", "text": "Annual leave"}) + "\n")
    assert main(["check", str(SAMPLE), "--chunks", str(chunks), "--engine", "stream"]) == 0
    assert "held in memory here rather than streamed" in capsys.readouterr().err
    assert len(streamed) == 1


def test_a_streamed_corpus_refuses_what_needs_it_in_memory(tmp_path, parked):
    listing = list_corpus(SAMPLE)
    with read_streamed(listing, Reading("markdown"), str(tmp_path)) as work:
        assert len(work) > 50 and work.characters > 100_000
        with pytest.raises(EngineError, match="needs the corpus in memory"):
            work.summarize("imported:0123456789abcdef")
        # Asked one at a time, measures match a workspace holding the corpus.
        corpus = load_corpus(SAMPLE)
        held = Workspace(corpus)
        assert work.summarize("fixed:400", fits=800) == held.summarize("fixed:400", fits=800)
        assert work.header_carry() == held.header_carry()
        assert work.probe("sentence:800", k=3) == held.probe("sentence:800", k=3)
        for retriever in ("dense", "hybrid"):
            assert work.probe("sentence:800", retriever=retriever) == held.probe("sentence:800", retriever=retriever)
        # Neighbour windows asked afterwards: ranked again, the winners read back with theirs.
        assert work.probe("sentence:800", k=3, expand=2) == held.probe("sentence:800", k=3, expand=2)
        assert work.fingerprint == corpus.fingerprint
        assert len(left_in(parked)) == 1
    assert left_in(parked) == []


def copies(folder, count: int = 3):
    """``count`` copies of the sample corpus's markdown files."""
    for copy in range(count):
        for path in SAMPLE.rglob("*.md"):
            target = folder / f"copy{copy}" / path.relative_to(SAMPLE)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return folder


def test_a_hybrid_ranking_counts_ranks_over_the_batches_only_when_a_candidate_may_win(tmp_path, monkeypatch,
                                                                                     parked):
    """The fused top k over 22 batches of chunks tied with their twins is the held corpus's; the
    second pass (ranks counted over every batch) runs when some candidate known to be among one
    ranking's first D only may still win, and is skipped when none may."""
    corpus = copies(tmp_path / "corpus")
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    held = Workspace(load_corpus(corpus))
    passes = {}
    with read_streamed(list_corpus(corpus), Reading("markdown"), str(tmp_path / "data")) as work:
        for spec, k in (("fixed:400", 5), ("structured:1600", 1), ("structured:1600", 40)):
            first = len(work.passes)
            assert work.probe(spec, k=k, retriever="hybrid") == held.probe(spec, k=k, retriever="hybrid")
            passes[spec, k] = [what for what, _ in work.passes[first:]].count("rank")
    assert passes == {("fixed:400", 5): 2, ("structured:1600", 1): 1, ("structured:1600", 40): 2}


@pytest.mark.parametrize("retriever", ["dense", "hybrid"])
def test_dense_and_hybrid_retrievers_rank_over_the_batches_as_over_the_held_corpus(capsys, monkeypatch, tmp_path,
                                                                                   parked, retriever):
    """Two copies of the sample corpus's markdown: every chunk ties with its twin in both
    rankings, and the twins lie in different batches; a hybrid ranking's ranks are counted
    over all of them."""
    copies(tmp_path / "corpus", 2)
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    unnamed = tmp_path / "golden.jsonl"  # each quote located in every copy
    unnamed.write_text("".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "doc_id"}) + "\n"
                               for line in (SAMPLE / "golden-questions.jsonl").read_text().splitlines()))
    args = ["--retriever", retriever, "--spec", "fixed:400", "--budgets", "800", "--questions",
            str(SAMPLE / "golden-questions.jsonl"), "--golden", str(unnamed)]
    if retriever == "hybrid":  # the fixes over the batches: test_the_fixes_table_is_measured_over_the_batches
        args += ["--spec", "heading:256t", "--expand", "1"]
    held = report(capsys, monkeypatch, tmp_path / "corpus", tmp_path / "memory", *args, "--engine", "memory")
    assert json.loads(held)["retriever"] == retriever and json.loads(held)["golden"][0]["rows"]
    workers_alone_build_workspaces(monkeypatch)
    batches = count_batches(monkeypatch)
    assert report(capsys, monkeypatch, tmp_path / "corpus", tmp_path / "stream", *args, "--engine", "stream",
                  "--jobs", "2") == held
    assert len(batches) > 12
    assert left_in(parked) == []


def test_one_pass_measures_everything_asked_ahead(tmp_path, monkeypatch, parked):
    with read_streamed(list_corpus(SAMPLE), Reading("markdown"), str(tmp_path), jobs=2) as work:
        specs = list(ARTICLE_SPECS)
        work.measure_ahead([(s, 800) for s in specs], specs, ["structured:800"])
        results = [(work.summarize(s, fits=800), work.probe(s)) for s in specs], work.header_carry("structured:800")
        # Reading, measuring, ranking, and the batches holding the winners read back.
        batches = len(work.batches)
        assert batches > 1 and [what for what, _ in work.passes] == ["read", "measure", "rank", "read back"]
        assert work.passes[:2] == [("read", batches), ("measure", batches)]
        held = Workspace(load_corpus(SAMPLE))
        assert results == ([(held.summarize(s, fits=800), held.probe(s)) for s in specs],
                           held.header_carry("structured:800"))


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_neighbour_windows_are_read_from_the_batches_as_from_the_held_corpus(capsys, monkeypatch, tmp_path, parked,
                                                                             mode):
    """Each winner is read back with its window (its document's chunks either side; a document
    lies in one batch), the widest once, every width judged from it: table b's rows read ±1 and
    ±3, and check's gate read ±2, as the held corpus's, over more than ten batches."""
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 32 << 10)
    args = ["--atoms", mode, "--spec", "fixed:200", "--spec", "sentence:400", "--budgets", "400"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--expand", "1", "--expand", "3",
                  "--engine", "memory")
    assert held.count('"expand": 3') == 2  # each compared splitter
    batches = count_batches(monkeypatch)
    workers_alone_build_workspaces(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--expand", "1", "--expand", "3",
                  "--engine", "stream") == held
    assert len(batches) > 10
    gate = ["check", str(SAMPLE), "--atoms", mode, "--spec", "fixed:200", "--expand", "2", "--json"]
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "stream"))
    assert main([*gate, "--engine", "stream"]) == 0
    streamed = capsys.readouterr()
    assert "held in memory" not in streamed.err
    monkeypatch.setattr(Workspace, "__init__", BUILD)
    assert main([*gate, "--engine", "memory"]) == 0
    assert streamed.out == capsys.readouterr().out and "with 2 neighbours either side" in streamed.out


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_the_fixes_table_is_measured_over_the_batches(capsys, monkeypatch, tmp_path, parked, mode):
    """Every step of the fixes (with a golden set and neighbours read) in one pass over the
    batches, suspects counted batch by batch: the held corpus's table, byte for byte (in seed
    mode beside the article's structured splitter, which repeats no table header)."""
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    args = ["--atoms", mode, "--spec", "structured:800+path", "--budgets", "400", "--fixes", "recursive:800",
            "--expand", "2", "--golden", str(SAMPLE / "golden-questions.jsonl")]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    assert held.count('"suspects"') == 5 and '"omitted"' in held  # the context step omitted
    workers_alone_build_workspaces(monkeypatch)
    passes = []
    crossed = stream.StreamWorkspace.crossed
    monkeypatch.setattr(stream.StreamWorkspace, "crossed",
                        lambda self, what, *a: passes.append(what) or crossed(self, what, *a))
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held
    assert passes.count("suspects") == 4  # one per measured step but the neighbours'


def test_export_keeps_corpus_order_across_batches(tmp_path, monkeypatch, parked, capsys):
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 16 << 10)
    monkeypatch.setenv(ENV_DATA, str(tmp_path))
    batches = count_batches(monkeypatch)
    assert main(["export", str(SAMPLE), "--spec", "paragraph:800", "--engine", "stream", "-o", "-"]) == 0
    streamed = capsys.readouterr().out
    assert len(batches) > 10
    assert main(["export", str(SAMPLE), "--spec", "paragraph:800", "--engine", "memory", "-o", "-"]) == 0
    assert streamed == capsys.readouterr().out
    ids = list(dict.fromkeys(json.loads(line)["doc_id"] for line in streamed.splitlines()))
    assert ids == [d.id for d in load_corpus(SAMPLE).documents]


def test_a_full_disk_ends_the_command_with_the_reason_and_leaves_nothing(capsys, monkeypatch, tmp_path, parked):
    def full(self, batch, documents, analyses):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Spill, "write", full)  # in the forked readers too
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    assert main(["report", str(SAMPLE), "--engine", "stream", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "TMPDIR" in err and "Traceback" not in err
    assert left_in(parked) == []


def test_a_corpus_with_nothing_readable_is_refused_and_leaves_nothing(capsys, monkeypatch, tmp_path, parked):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "binary.md").write_bytes(b"\x00\x01")
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    assert main(["check", str(corpus), "--spec", "fixed:400", "--engine", "stream"]) == 2
    err = capsys.readouterr().err
    assert "skipped binary.md" in err and "no readable documents" in err
    assert left_in(parked) == []


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_your_questions_are_asked_of_the_streamed_corpus_as_of_the_held_one(capsys, monkeypatch, tmp_path, parked,
                                                                            mode):
    questions = tmp_path / "questions.jsonl"
    lines = [json.dumps({"question": q}) for q in (
        "How many vacation days do employees get?", "What does the rate limiter return when the quota is exceeded?",
        "Which regions store backups?", "zzzz qqqq", "Wie viele Urlaubstage gibt es?", "退款需要多少天")]
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["--atoms", mode, "--questions", str(questions), "--spec", "fixed:400", "--spec", "heading:256t",
            "--budgets", "800"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    assert json.loads(held)["questions"]["rows"][0]["ctx_tokens"] > 0
    workers_alone_build_workspaces(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held
    # What the user's own system retrieved is placed on the whole corpus: that one is held.
    monkeypatch.setattr(Workspace, "__init__", BUILD)  # the command's process builds one this time
    theirs = tmp_path / "theirs.jsonl"
    theirs.write_text(json.dumps({"question": "How long is parental leave?", "retrieved": [
        {"doc_id": "handbook/parental-leave.md", "text": "18 weeks of fully paid parental leave"}]}) + "\n",
        encoding="utf-8")
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "memory"))
    assert main(["report", str(SAMPLE), "--json", "--quiet", "--questions", str(theirs), "--spec", "fixed:400",
                 "--budgets", "800", "--engine", "memory"]) == 0
    held = capsys.readouterr().out
    assert main(["report", str(SAMPLE), "--json", "--quiet", "--questions", str(theirs), "--spec", "fixed:400",
                 "--budgets", "800", "--engine", "stream"]) == 0
    shown = capsys.readouterr()
    assert shown.out == held and '"yours"' in held and "held in memory here rather than streamed" in shown.err


def test_a_second_streamed_run_splits_tokenizes_and_counts_nothing(capsys, monkeypatch, tmp_path, parked):
    """The workers read and fill the data folder's kept store as the held corpus does."""
    args = ("--jobs", "1", "--spec", "structured:400", "--spec", "recursive:300", "--budgets", "400,800")
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held
    assert (tmp_path / "stream" / "kept.sqlite3").is_file()
    nothing_derived_again(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held


def test_the_similarity_chunkers_give_the_held_corpus_report_over_the_batches(capsys, monkeypatch, tmp_path, parked):
    """Each worker loads the embedder itself; the chunks, and so every number, are the held corpus's."""
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    args = ("--jobs", "1", "--spec", "semantic:800+atoms", "--spec", "cluster:300t", "--budgets", "400")
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    assert '"semantic:800+atoms"' in held and '"cluster:300t"' in held
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held


def test_a_library_splitter_is_measured_over_the_batches(capsys, monkeypatch, tmp_path, parked):
    """Another library's splitter makes each document's chunks alone: the report, ``check`` (the
    chunks it misplaced named in corpus order) and ``export`` over the batches are the held
    corpus's, and no workspace is built in the command's process."""
    from inspector.split import adapters

    real = adapters.RUNNERS["ext-langchain"]

    def shifted(text, budget, overlap, length):  # every document's second chunk said 5 characters late
        found = real(text, budget, overlap, length)
        return found[:1] + [(found[1][0] + 5, *found[1][1:])] + found[2:] if len(found) > 1 else found

    monkeypatch.setitem(adapters.RUNNERS, "ext-langchain", shifted)  # the forked workers inherit it
    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    args = ["--spec", "ext-langchain:400", "--spec", "fixed:400", "--budgets", "400"]
    outputs = {}
    for engine in ("memory", "stream"):
        if engine == "stream":
            workers_alone_build_workspaces(monkeypatch)
        shown = [report(capsys, monkeypatch, SAMPLE, tmp_path / engine, *args, "--engine", engine)]
        for command in (["check", "--json"], ["export", "-o", "-"]):
            assert main([command[0], str(SAMPLE), "--spec", "ext-langchain:300", *command[1:], "--engine", engine]) == 0
            found = capsys.readouterr()
            shown += [found.out, found.err]
        outputs[engine] = shown
    assert outputs["stream"] == outputs["memory"]
    assert '"ext-langchain:400"' in outputs["memory"][0]
    said = outputs["memory"][2]  # check's stderr: the first few named, then how many in all
    assert said.count(": offset-mismatch: ") == 3 and int(said.split(" offset-mismatch in all")[0].split("(")[-1]) > 20


def test_context_lines_are_read_in_the_batches(capsys, monkeypatch, tmp_path, parked):
    """A ``+context`` spec and the fixes table's context step read their lines where the batches
    are measured: the held corpus's report; lines missing are refused as for the held corpus."""
    from inspector.context.store import ContextStore, document_hash
    from inspector.reports import fix_specs

    monkeypatch.setattr("inspector.engines.stream.spill.MOST_BYTES", 64 << 10)
    work = Workspace(load_corpus(SAMPLE))
    for engine in ("memory", "stream"):
        store = ContextStore(tmp_path / engine)
        for spec in ("recursive:800", fix_specs("recursive:800")["address"]):
            for document, result in zip(work.documents, work.split(spec)):
                store.put("m", document_hash(document.text), [(*chunk.span, f"Part of {document.title}.")
                                                              for chunk in result.chunks])
    args = ["--spec", "recursive:800+context;llm=m", "--spec", "fixed:400", "--budgets", "400",
            "--fixes", "recursive:800", "--context-model", "m"]
    held = report(capsys, monkeypatch, SAMPLE, tmp_path / "memory", *args, "--engine", "memory")
    rows = json.loads(held)["fixes"]["rows"]
    assert [row.get("omitted", "") for row in rows if row["step"] == "context"] == [""]
    workers_alone_build_workspaces(monkeypatch)
    assert report(capsys, monkeypatch, SAMPLE, tmp_path / "stream", *args, "--engine", "stream") == held
    refusals = []
    for engine in ("memory", "stream"):
        monkeypatch.setenv(ENV_DATA, str(tmp_path / engine))
        if engine == "memory":
            monkeypatch.setattr(Workspace, "__init__", BUILD)
        else:
            workers_alone_build_workspaces(monkeypatch)
        assert main(["check", str(SAMPLE), "--spec", "recursive:300+context;llm=m", "--engine", engine]) == 2
        refusals.append(capsys.readouterr().err)
    assert refusals[0] == refusals[1] and "chunks of recursive:300 have no context line from m" in refusals[0]
