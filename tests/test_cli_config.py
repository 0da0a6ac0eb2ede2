"""``inspector.cli.config``: argv read once into a frozen ``RunConfig``; the options every command
shares are declared once and read into typed values, refused with the reason when unusable."""

from __future__ import annotations

import dataclasses

import pytest

from inspector.cli import build_parser
from inspector.cli.config import CheckOptions, ReportOptions, RunConfig, TuneOptions, run_config
from inspector.cli.options import CorpusSource
from inspector.errors import ArgumentRefused, RetrieverError


def config(*argv: str, environ=None) -> RunConfig:
    given = build_parser(measure_help=False).parse_args(list(argv))
    return run_config(given, environ={} if environ is None else environ)


def test_a_report_is_read_into_typed_values():
    found = config("report", "docs", "--spec", "fixed:400", "--spec", "structured:800", "--engine", "stream",
                   "--retriever", "dense", "--expand", "1", "--expand", "2", "--expand", "1", "--golden", "a.jsonl",
                   "--mlflow", "--by-language", "--atoms", "seed")
    assert found.corpus == CorpusSource("docs", "seed", None, False, "markitdown", "stream")
    assert found.specs == ("fixed:400", "structured:800") and found.golden == ("a.jsonl",)
    assert str(found.retrieval.retriever) == "dense" and found.retrieval.expand == (1, 2)
    assert found.tracking.on and found.tracking.uri == "./mlruns"
    assert isinstance(found.options, ReportOptions) and found.options.by_language and not found.options.by_format
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.json = True  # type: ignore[misc]


def test_every_command_reads_its_corpus_with_the_same_options():
    for command in ("report", "check", "export", "tune", "context"):
        found = config(command, "docs", "--files-from", "list.txt", "--keep-front-matter", "--converter", "docling",
                       *(["--spec", "fixed:400"] if command in ("check", "export", "context") else []))
        assert (found.corpus.files_from, found.corpus.keep_front_matter, found.corpus.converter) == (
            "list.txt", True, "docling"), command


def test_the_context_model_comes_from_the_flag_then_the_environment():
    assert config("report", "docs").context_model == ""
    assert config("report", "docs", environ={"CHUNK_INSPECTOR_CONTEXT_MODEL": " m "}).context_model == "m"
    assert config("report", "docs", "--context-model", "x",
                  environ={"CHUNK_INSPECTOR_CONTEXT_MODEL": "m"}).context_model == "x"


def test_check_and_tune_keep_their_own_options():
    check = config("check", "docs", "--spec", "fixed:400", "--min", "code=0.9", "--golden", "g.jsonl", "--strict")
    assert isinstance(check.options, CheckOptions) and check.options.floors == ("code=0.9",) and check.options.strict
    assert check.spec == "fixed:400" and check.golden_file == "g.jsonl"
    tune = config("tune", "docs", "--cap", "512t", "--context", "1000")
    assert tune.options == TuneOptions(1000, "512t", None, None)


@pytest.mark.parametrize("argv, error, message", [
    (["--store", "nowhere"], ArgumentRefused, "store"),
    (["--store-field", "doc=source"], ArgumentRefused, "--store-field goes with --store"),
    (["--store", "chroma:db?collection=a", "--store", "chroma:db?collection=a"], ArgumentRefused, "given twice"),
    (["--rerank-depth", "20"], RetrieverError, "--rerank-depth goes with --rerank"),
    (["--retriever", "dense|rerank=tei", "--rerank", "tei"], RetrieverError, "give the reranker once"),
])
def test_unusable_arguments_are_refused_with_the_reason(argv, error, message):
    with pytest.raises(error, match=message):
        config("report", "docs", *argv)


@pytest.mark.parametrize(("argv", "reason"), [
    (("report", "docs", "--budgets", "400,x"), "--budgets must be whole numbers"),
    (("report", "docs", "--budgets", ",".join(["100"] * 25)), "--budgets takes at most 24 budgets"),
    (("report", "docs", "--jobs", "65"), "--jobs must be from 1 to 64"),
    (("report", "docs", "--fixes", "imported:0123456789abcdef"), "--fixes takes a built-in splitter"),
    (("tune", "docs", "--jobs", "-1"), "--jobs must be from 1 to 64"),
    (("tune", "docs", "--context", "0"), "--context is a number of tokens"),
    (("tune", "docs", "--max-duplication", "0.5"), "--max-duplication is a ratio of 1 or more"),
    (("tune", "docs", "--expand", "1"), "tune does not search neighbour windows"),
])
def test_a_command_s_own_options_are_refused_as_argv_is_read(argv, reason):
    """Before any file is read: the command is given checked options (``report --budgets`` as numbers)."""
    with pytest.raises(ArgumentRefused, match=reason):
        config(*argv)
    assert config("report", "docs", "--budgets", "800, 400").options.budgets == (800, 400)
