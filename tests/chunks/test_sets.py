"""``inspector.chunks.sets``: ids from content, checks on every read, and the store in the data folder."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from inspector import Workspace
from inspector.chunks.export import export_text
from inspector.chunks.importer import import_chunks
from inspector.chunks.sets import ChunkSetStore, chunk_set_from_import, from_json, make_chunk_set
from inspector.errors import ChunkSetError
from inspector.measure import Services
from tests.support.chunks import chunks_of


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
    assert Services.in_folder(tmp_path).chunk_set_store().folder == tmp_path / "chunk-sets"


def test_from_json_reads_back_exactly_what_to_json_wrote(work):
    chunk_set = make_chunk_set("r.jsonl", work.fingerprint, work.documents, chunks_of(work, "heading:300"))
    assert from_json(chunk_set.to_json(), work.documents, work.fingerprint) == chunk_set


def test_an_import_becomes_a_set_and_its_export_imports_to_the_same_set(work):
    result = import_chunks(export_text(work, "structured:800").encode(), work, name="mine.jsonl")
    chunk_set = chunk_set_from_import(result, work)
    assert chunk_set.name == "mine.jsonl" and chunk_set.info.chunks == len(work.chunks("structured:800"))
    spec = work.add_chunk_set(chunk_set)
    again = import_chunks(export_text(work, spec).encode(), work, name="again.jsonl")
    assert not again.problems
    assert chunk_set_from_import(again, work).id == chunk_set.id


def test_coverage_says_what_a_partial_set_means_and_nothing_for_a_whole_one(work):
    chunks = chunks_of(work, "fixed:500", {d.id for d in work.documents[:3]})
    info = make_chunk_set("three.jsonl", work.fingerprint, work.documents, chunks).info
    total = len(work.documents)
    assert info.coverage(total) == (f"These chunks cover 3 of the {total} documents: corpus-wide measures count "
                                    "the other documents' atoms as lost and their questions as missed.")
    assert info.coverage(3) is None
    assert info.title == f"imported: three.jsonl ({info.chunks:,} chunks)"
