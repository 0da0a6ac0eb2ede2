"""``inspector.chunks.export``: JSONL a pipeline can use, that imports back to the very same spans."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from inspector import get_length
from inspector.chunks.export import FIELDS, export_chunks, export_length, export_text
from inspector.chunks.importer import import_chunks
from inspector.split.adapters import available_adapters
from tests.support.paths import ROOT, SAMPLE

BUILT_IN = ("fixed:800", "fixed:800/120", "paragraph:800", "recursive:800", "sentence:800",
            "structured:800", "heading:800", "heading:256t/32:cl100k")


@pytest.mark.parametrize("spec", BUILT_IN)
def test_export_then_import_gives_identical_spans(spec, sample_markdown):
    text = export_text(sample_markdown, spec)
    result = import_chunks(text.encode(), sample_markdown, name="export.jsonl")
    assert result.problems == ()
    assert result.placements["offsets"] == result.imported == result.records
    original = sample_markdown.chunks(spec)
    imported = result.all_chunks()
    assert [(c.doc_id, c.start, c.end, c.prefix, c.heading_path) for c in imported] == \
        [(c.doc_id, c.start, c.end, c.prefix, c.heading_path) for c in original]


def test_records_carry_what_a_pipeline_needs(sample_markdown):
    spec = "structured:800"
    records = [json.loads(line) for line in export_text(sample_markdown, spec).splitlines()]
    chunks = sample_markdown.chunks(spec)
    assert len(records) == len(chunks)
    o200k = get_length("o200k")
    texts = {d.id: d.text for d in sample_markdown.documents}
    for record, chunk in list(zip(records, chunks))[::25]:
        assert tuple(record) == FIELDS
        assert record["text"] == texts[record["doc_id"]][record["start"]:record["end"]]
        assert record["tokens"] == o200k.count(record["prefix"] + record["text"])
        assert record["token_unit"] == "o200k"
        assert record["chunk_id"] == chunk.id and record["spec"] == "structured:800"
        assert record["heading_path"] == list(chunk.heading_path)
    assert any(r["prefix"] for r in records), "structured repeats table headers as prefixes"


def test_token_counts_use_the_specs_own_unit(sample_markdown):
    assert export_length("fixed:800").name == "o200k"
    assert export_length("heading:256t:cl100k").name == "cl100k"
    buffer = io.StringIO()
    count = export_chunks(sample_markdown, "heading:256t:cl100k", buffer)
    first = json.loads(buffer.getvalue().splitlines()[0])
    assert count == len(buffer.getvalue().splitlines())
    assert first["token_unit"] == "cl100k"
    assert first["tokens"] == get_length("cl100k").count(first["prefix"] + first["text"])


def test_seed_mode_keeps_its_tag(sample_seed):
    first = json.loads(export_text(sample_seed, "fixed:800").splitlines()[0])
    assert first["spec"] == "fixed:800@seed"


def test_cli_export_to_a_file_and_to_stdout(tmp_path, capsys):
    from inspector.cli import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("leave-policy.md", "remote-work.md"):
        (corpus / name).write_text((SAMPLE / "handbook" / name).read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "chunks.jsonl"
    run = subprocess.run([sys.executable, "-m", "inspector", "export", str(corpus), "--spec", "structured:800",
                          "-o", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert f"wrote {len(lines)} chunks" in run.stderr
    assert {json.loads(line)["doc_id"] for line in lines} == {"leave-policy.md", "remote-work.md"}
    specs = ["paragraph:400"] + [f"{n}:400" for n in available_adapters() if n == "ext-semantic-text"]
    for spec in specs:
        assert main(["export", str(corpus), "--spec", spec]) == 0
        records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert records and {r["spec"] for r in records} == {spec}


def test_cli_export_refuses_bad_arguments(tmp_path, capsys):
    from inspector.cli import main

    assert main(["export", str(SAMPLE)]) == 2
    assert "needs --spec" in capsys.readouterr().err
    assert main(["export", str(SAMPLE), "--spec", "fixed:0"]) == 2
    assert main(["export", str(tmp_path / "missing"), "--spec", "fixed:800"]) == 2
    assert main(["export", str(SAMPLE / "handbook"), "--spec", "fixed:800", "-o",
                 str(tmp_path / "no" / "dir" / "x.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 3 and "Traceback" not in err
