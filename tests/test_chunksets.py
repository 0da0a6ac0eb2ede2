"""Chunk sets: imported chunks as a spec (``imported:ID``) that every measure, the probe, the
renderer and the Orphan Test treat exactly like a built-in splitter's chunks."""

from __future__ import annotations

import json
import os
import pathlib
from dataclasses import replace

import pytest

from inspector import SplitterSpec, Workspace, load_corpus
from inspector.chunks.export import export_text
from inspector.chunks.importer import import_chunks
from inspector.chunks.sets import ChunkSetStore, chunk_set_from_import, from_json, make_chunk_set
from inspector.errors import ChunkSetError, SpecError
from inspector.lengths import get_length
from inspector.review.reveal import context
from inspector.review.rounds import ReviewRound, draw
from inspector.spec import MAX_BUDGET
from inspector.views.frames import doc_view
from inspector.views.state import AppState

SAMPLE = pathlib.Path(__file__).resolve().parent.parent / "sample_corpus"


@pytest.fixture(scope="module")
def work() -> Workspace:
    return Workspace(load_corpus(SAMPLE))


def chunks_of(work: Workspace, spec: str, documents=None) -> dict:
    return {r.doc_id: r.chunks for r in work.split(spec) if documents is None or r.doc_id in documents}


# -- the spec -----------------------------------------------------------------------------------

def test_an_imported_spec_reads_and_prints_its_short_form():
    spec = SplitterSpec.parse("imported:0123456789abcdef")
    assert (spec.kind, spec.chunk_set, spec.unit, spec.is_imported) == ("imported", "0123456789abcdef", "chars", True)
    assert str(spec) == "imported:0123456789abcdef" and spec.label == "imported 01234567"
    tokens = SplitterSpec.parse("imported:0123456789abcdef:cl100k_base")
    assert tokens.unit == "cl100k" and str(tokens) == "imported:0123456789abcdef:cl100k"
    assert SplitterSpec.parse(str(tokens)) == tokens
    assert not SplitterSpec.parse("structured:800").is_imported


@pytest.mark.parametrize("text", ["imported:800", "imported:0123456789ABCDEF", "imported:0123456789abcde",
                                  "imported:0123456789abcdef0", "imported:../../etc/passwd"])
def test_malformed_imported_specs_are_refused_with_the_form_to_use(text):
    with pytest.raises(SpecError, match="imported:ID"):
        SplitterSpec.parse(text)


def test_imported_chunks_take_no_budget_overlap_or_flags():
    with pytest.raises(SpecError, match="fixed"):
        SplitterSpec("imported", 800, chunk_set="0123456789abcdef")
    with pytest.raises(SpecError, match="fixed"):
        replace(SplitterSpec.imported("0123456789abcdef"), heading_prefix=True)
    with pytest.raises(SpecError, match="only imported"):
        SplitterSpec("structured", 800, chunk_set="0123456789abcdef")
    with pytest.raises(SpecError, match="no budget"):
        SplitterSpec.imported("0123456789abcdef").with_budget(400)
    assert SplitterSpec.imported("0123456789abcdef").budget == MAX_BUDGET


# -- making a set --------------------------------------------------------------------------------

def test_the_id_depends_on_corpus_and_places_only(work):
    chunks = chunks_of(work, "fixed:500", {d.id for d in work.documents[:4]})
    first = make_chunk_set("a.jsonl", work.fingerprint, work.documents, chunks)
    shuffled = {doc: tuple(reversed(cs)) for doc, cs in reversed(list(chunks.items()))}
    again = make_chunk_set("b.csv", work.fingerprint, work.documents, shuffled)
    assert first.id == again.id and len(first.id) == 16
    assert list(first.chunks) == list(again.chunks)  # corpus order, whatever the input order
    other_corpus = make_chunk_set("a.jsonl", "f" * 32, work.documents, chunks)
    assert other_corpus.id != first.id
    doc = next(iter(chunks))
    prefixed = dict(chunks, **{doc: (replace(chunks[doc][0], prefix="# Title\n"), *chunks[doc][1:])})
    assert make_chunk_set("a.jsonl", work.fingerprint, work.documents, prefixed).id != first.id
    for doc_chunks in first.chunks.values():
        assert [c.index for c in doc_chunks] == list(range(len(doc_chunks)))
        assert all(c.spec == f"imported:{first.id}" for c in doc_chunks)
        assert [(c.start, c.end) for c in doc_chunks] == sorted((c.start, c.end) for c in doc_chunks)
    assert first.info.chunks == sum(len(c) for c in chunks.values()) and first.info.documents == 4


def test_a_set_refuses_unknown_documents_bad_spans_and_emptiness(work):
    doc = work.documents[0]
    good = chunks_of(work, "fixed:500", {doc.id})
    with pytest.raises(ChunkSetError, match="not in the corpus"):
        make_chunk_set("x", work.fingerprint, work.documents, {"nope.md": good[doc.id]})
    bad = replace(good[doc.id][0], start=len(doc.text), end=len(doc.text) + 5)
    with pytest.raises(ChunkSetError, match="not a span"):
        make_chunk_set("x", work.fingerprint, work.documents, {doc.id: (bad,)})
    with pytest.raises(ChunkSetError, match="at least one"):
        make_chunk_set("x", work.fingerprint, work.documents, {doc.id: ()})


# -- measured like a splitter ---------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["structured:800", "fixed:800/120", "heading:256t"])
def test_a_set_of_a_splitters_chunks_measures_exactly_like_the_splitter(spec):
    work = Workspace(load_corpus(SAMPLE))
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, spec))
    imported = SplitterSpec.imported(work.add_chunk_set(chunk_set).chunk_set, SplitterSpec.parse(spec).unit)
    built_in, copy = work.summarize(spec, fits=800), work.summarize(imported, fits=800)
    assert copy.chunks == built_in.chunks and copy.span_chars == built_in.span_chars
    assert copy.survival_all == built_in.survival_all and copy.survival_fit == built_in.survival_fit
    assert copy.oversized == 0
    a, b = work.probe(spec), work.probe(imported)
    assert (a.answer_rate, a.cut_rate, a.miss_rate, a.context_chars, a.context_tokens) == \
        (b.answer_rate, b.cut_rate, b.miss_rate, b.context_chars, b.context_tokens)
    assert work.header_carry(spec) == work.header_carry(imported)
    assert [(c.doc_id, c.start, c.end, c.prefix) for c in work.chunks(spec)] == \
        [(c.doc_id, c.start, c.end, c.prefix) for c in work.chunks(imported)]


def test_token_fits_count_atoms_in_the_specs_unit(work):
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "structured:200t"))
    work.add_chunk_set(chunk_set)
    in_tokens = work.summarize(SplitterSpec.imported(chunk_set.id, "o200k"), fits=200)
    assert in_tokens.survival_fit == work.summarize("structured:200t", fits=200).survival_fit
    in_chars = work.summarize(SplitterSpec.imported(chunk_set.id), fits=200)
    assert in_chars.survival_fit != in_tokens.survival_fit  # 200 characters hold fewer atoms than 200 tokens


def test_a_partial_set_leaves_other_documents_without_chunks(work):
    covered = {d.id for d in work.documents[:3]}
    chunk_set = make_chunk_set("part", work.fingerprint, work.documents, chunks_of(work, "recursive:800", covered))
    results = work.split(work.add_chunk_set(chunk_set))
    assert [r.doc_id for r in results] == [d.id for d in work.documents]
    assert {r.doc_id for r in results if r.chunks} == covered


def test_a_workspace_refuses_another_corpus_and_unknown_sets(work, tmp_path):
    stranger = make_chunk_set("x", "0" * 32, work.documents, chunks_of(work, "fixed:900", {work.documents[0].id}))
    with pytest.raises(ChunkSetError, match="another corpus"):
        work.add_chunk_set(stranger)
    fresh = Workspace(work.documents)
    with pytest.raises(ChunkSetError, match="registered"):
        fresh.split("imported:0123456789abcdef")
    fresh.chunk_set_store = ChunkSetStore(tmp_path)
    with pytest.raises(ChunkSetError, match="Import page"):
        fresh.split("imported:0123456789abcdef")


def test_the_overlay_view_of_an_imported_set_is_the_splitters(work):
    doc = work.documents[5]
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "fixed:700"))
    spec = work.add_chunk_set(chunk_set)
    length = get_length("chars")
    mine, theirs = doc_view(work, doc, spec, length), doc_view(work, doc, "fixed:700", length)
    assert mine.result.spans == theirs.result.spans and mine.cuts == theirs.cuts and mine.sizes == theirs.sizes


# -- the store --------------------------------------------------------------------------------------

def test_the_store_keeps_sets_across_instances_and_lists_them_by_corpus(work, tmp_path):
    first = make_chunk_set("one.jsonl", work.fingerprint, work.documents, chunks_of(work, "fixed:600"),
                           created="2026-01-01T00:00:00+00:00")
    second = make_chunk_set("two.jsonl", work.fingerprint, work.documents, chunks_of(work, "sentence:600"),
                            created="2026-02-01T00:00:00+00:00")
    store = ChunkSetStore(tmp_path / "sets")
    assert store.infos() == []
    for chunk_set in (first, second):
        store.save(chunk_set)
    store.save(first)  # idempotent
    assert sorted(os.listdir(tmp_path / "sets")) == sorted([f"{first.id}.json", f"{second.id}.json"])
    reopened = ChunkSetStore(tmp_path / "sets")
    assert [i.id for i in reopened.infos(work.fingerprint)] == [second.id, first.id]  # newest first
    assert reopened.infos("f" * 32) == []
    loaded = reopened.load(first.id, work.documents, work.fingerprint)
    assert loaded == first
    fresh = Workspace(work.documents)
    fresh.chunk_set_store = reopened
    assert fresh.chunks(first.spec) == [c for cs in first.chunks.values() for c in cs]
    assert reopened.delete(first.id) and not reopened.delete(first.id)
    assert [i.id for i in reopened.infos()] == [second.id]


def test_damaged_edited_and_foreign_files_are_refused_by_name(work, tmp_path):
    store = ChunkSetStore(tmp_path)
    chunk_set = make_chunk_set("one.jsonl", work.fingerprint, work.documents, chunks_of(work, "fixed:600"))
    path = store.save(chunk_set)
    data = json.loads(path.read_text())
    first_doc = next(iter(data["chunks"]))
    data["chunks"][first_doc][0][1] -= 1  # one offset edited by hand
    path.write_text(json.dumps(data))
    with pytest.raises(ChunkSetError, match="does not match its own chunks"):
        store.load(chunk_set.id, work.documents, work.fingerprint)
    path.write_text('{"format": "chunk-inspector/chunk-set", "version": 1, "id": ')
    with pytest.raises(ChunkSetError, match="damaged"):
        store.load(chunk_set.id, work.documents, work.fingerprint)
    assert store.infos() == []  # a damaged file is not offered
    path.write_text(chunk_set.to_json())
    with pytest.raises(ChunkSetError, match="another corpus"):
        store.load(chunk_set.id, work.documents, "a" * 32)
    for bad in ("../../x", "0123456789ABCDEF", ""):
        with pytest.raises(ChunkSetError, match="16 hex"):
            store.load(bad, work.documents, work.fingerprint)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_store_says_it_cannot_save(work, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    chunk_set = make_chunk_set("one", work.fingerprint, work.documents, chunks_of(work, "fixed:600"))
    try:
        with pytest.raises(ChunkSetError, match="cannot save"):
            ChunkSetStore(folder).save(chunk_set)
    finally:
        folder.chmod(0o700)


def test_the_store_lives_in_the_data_folder(tmp_path):
    assert ChunkSetStore.in_data_folder({"CHUNK_INSPECTOR_DATA": str(tmp_path)}).folder == tmp_path / "chunk-sets"


def test_from_json_reads_back_exactly_what_to_json_wrote(work):
    chunk_set = make_chunk_set("r.jsonl", work.fingerprint, work.documents, chunks_of(work, "heading:300"))
    assert from_json(chunk_set.to_json(), work.documents, work.fingerprint) == chunk_set


# -- from an import, and back out -------------------------------------------------------------------

def test_an_import_becomes_a_set_and_its_export_imports_to_the_same_set(work):
    result = import_chunks(export_text(work, "structured:800").encode(), work, name="mine.jsonl")
    chunk_set = chunk_set_from_import(result, work)
    assert chunk_set.name == "mine.jsonl" and chunk_set.info.chunks == len(work.chunks("structured:800"))
    spec = work.add_chunk_set(chunk_set)
    again = import_chunks(export_text(work, spec).encode(), work, name="again.jsonl")
    assert not again.problems
    assert chunk_set_from_import(again, work).id == chunk_set.id


# -- review and app state ----------------------------------------------------------------------------

def test_an_orphan_round_over_imported_chunks_draws_them_in_any_unit(work):
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "recursive:600"))
    work.add_chunk_set(chunk_set)
    in_tokens = ReviewRound.create(work, f"imported:{chunk_set.id}:o200k", size=10, seed=3)
    in_chars = ReviewRound.create(work, f"imported:{chunk_set.id}", size=10, seed=3)
    assert in_tokens == in_chars and in_chars.spec == f"imported:{chunk_set.id}"
    assert ReviewRound.from_query_params(in_chars.to_query_params()) == in_chars
    drawn = draw(in_chars, work)
    assert len(drawn) == 10 and all(c.chunk.spec == f"imported:{chunk_set.id}" for c in drawn)
    middle = next(c.chunk for c in drawn if 0 < c.chunk.index < len(chunk_set.chunks[c.chunk.doc_id]) - 1)
    around = context(middle, work)
    siblings = chunk_set.chunks[middle.doc_id]
    document = next(d for d in work.documents if d.id == middle.doc_id)
    assert around.previous == siblings[middle.index - 1].text(document)
    assert around.next == siblings[middle.index + 1].text(document)


def test_app_state_keeps_the_budget_while_imported_chunks_are_chosen():
    state = AppState(budget=512, overlap=64, kind="fixed")
    spec = SplitterSpec.imported("0123456789abcdef", "o200k")
    chosen = state.with_spec(spec)
    assert chosen.spec() == spec and (chosen.budget, chosen.overlap) == (512, 64)
    assert chosen.to_query_params()["spec"] == "imported:0123456789abcdef:o200k"
    again, problems = AppState.from_query_params(chosen.to_query_params())
    assert not problems and again.spec() == spec
    back = chosen.with_spec(SplitterSpec.parse("structured:900"))
    assert back.chunk_set == "" and back.spec() == SplitterSpec.parse("structured:900")


# -- the command line ----------------------------------------------------------------------------------

def test_the_command_line_reads_stored_sets_and_names_missing_ones(work, tmp_path, monkeypatch, capsys):
    from inspector.cli import main

    monkeypatch.setenv("CHUNK_INSPECTOR_DATA", str(tmp_path))
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "structured:800"))
    ChunkSetStore.in_data_folder().save(chunk_set)
    spec = f"imported:{chunk_set.id}"
    assert main(["export", str(SAMPLE), "--spec", spec]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(work.chunks("structured:800"))
    assert {json.loads(line)["spec"] for line in lines} == {spec}
    assert main(["report", str(SAMPLE), "--spec", spec, "--spec", "structured:800", "--json", "--quiet"]) == 0
    imported_row, structured_row = json.loads(capsys.readouterr().out)["compare"]
    assert {k: v for k, v in imported_row.items() if k not in ("splitter", "spec")} == \
        {k: v for k, v in structured_row.items() if k not in ("splitter", "spec")}
    assert main(["export", str(SAMPLE), "--spec", "imported:00000000000000aa"]) == 2
    assert "no imported chunk set 00000000000000aa" in capsys.readouterr().err
