"""``--store`` on ``report``, ``check`` and ``export``: the user's index beside our splitters, gated
like any chunking, exported as placed; refusals in one line, exit status 2."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from tests.support import stores
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def chunks():
    return stores.langchain_chunks()


@pytest.fixture(scope="module")
def chroma(chunks, tmp_path_factory) -> str:
    return stores.fill_chroma(tmp_path_factory.mktemp("stores") / "chroma", chunks)


@pytest.fixture(autouse=True)
def data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path / "data"))


def test_report_puts_your_index_beside_the_splitters(chroma, chunks, capsys):
    assert main(["report", str(SAMPLE), "--keep-front-matter", "--store", chroma, "--spec", "recursive:400/40",
                 "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    (store,) = report["stores"]
    assert store["store"] == chroma and store["stored"] == store["placed"] == len(chunks)
    assert store["placements"]["offsets"] == len(chunks) and store["problems"] == {} and store["strays"] == {}
    assert [r["splitter"] for r in report["compare"]] == ["recursive 400/40", "your index"]
    assert f"{len(chunks):,} of {len(chunks):,} records placed" in captured.err
    assert "documents; corpus-wide measures count" in captured.err, "the converted files hold no stored chunk"
    assert main(["report", str(SAMPLE), "--keep-front-matter", "--store", chroma, "--spec", "fixed:400",
                 "--quiet"]) == 0
    table = capsys.readouterr().out
    assert sum(line.startswith("your index ") for line in table.splitlines()) >= 2, "tables a and b"


def test_check_on_a_store_measures_as_on_the_same_chunks_from_a_file(chroma, chunks, tmp_path, capsys):
    jsonl = stores.as_jsonl(chunks, tmp_path / "chunks.jsonl")
    common = [str(SAMPLE), "--keep-front-matter", "--json", "--budget", "400"]
    assert main(["check", *common, "--store", chroma]) == 0
    stored = json.loads(capsys.readouterr().out)
    assert main(["check", *common, "--chunks", str(jsonl)]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert stored["measures"] == imported["measures"] and stored["measures"]["unplaced"] == 0
    assert stored["spec"] == chroma
    assert main(["check", str(SAMPLE), "--keep-front-matter", "--store", chroma, "--min", "code=1.0"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_export_writes_the_stored_chunks_as_placed(chroma, chunks, capsys):
    assert main(["export", str(SAMPLE), "--keep-front-matter", "--store", chroma]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(chunks)
    assert sorted(r["text"] for r in rows) == sorted(c.page_content for c in chunks)


@pytest.mark.parametrize("argv, words", [
    (["report", "--store", "postgresql://me:s3cret@db/rag?table=t"], "carries a password"),
    (["report", "--store", "chroma:/nowhere?collection=docs"], "/nowhere does not exist"),
    (["report", "--store-field", "doc=path"], "--store-field goes with --store"),
    (["check", "--store", "chroma:/x?collection=a", "--spec", "fixed:400"], "give one of --spec"),
    (["export"], "export needs --spec SPEC or --store URI"),
])
def test_bad_store_arguments_are_refused_in_one_line(argv, words, capsys):
    command, *rest = argv
    assert main([command, str(SAMPLE / "handbook"), *rest]) == 2
    err = capsys.readouterr().err
    assert words in err and "s3cret" not in err and "Traceback" not in err
    assert err.count("error:") == 1


def test_a_missing_collection_is_one_line_naming_the_store(chroma, capsys):
    wrong = chroma.replace("collection=docs", "collection=nope")
    assert main(["report", str(SAMPLE / "handbook"), "--store", wrong, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"{wrong}: no collection 'nope' in the store (it has: docs)" in err
