"""Real stores filled by LangChain's and LlamaIndex's own ingestion, read back and placed on the
corpus: every chunk placed, the same chunk set as the same chunks imported from a JSONL file, the
store's files unchanged, and every chunk not placed exactly reported by kind."""

from __future__ import annotations

import builtins
import itertools
import re

import pytest

from inspector import Workspace, load_corpus
from inspector.chunks.importer import import_chunks
from inspector.chunks.sets import make_chunk_set
from inspector.errors import MissingExtra, StoreError
from inspector.extras import install_hint
from inspector.stores import parse_store, read_store
from tests.support import stores
from tests.support.files import write
from tests.support.paths import SAMPLE

FILLERS = {"chroma": stores.fill_chroma, "qdrant": stores.fill_qdrant, "milvus": stores.fill_milvus,
           "lancedb": stores.fill_lancedb}


@pytest.fixture(scope="module")
def raw() -> Workspace:
    """The bundled handbook read as a loader reads files: front matter kept (the whole corpus is
    read from a store by the command line's tests)."""
    return Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))


def the_set(work, placed):
    return make_chunk_set("x", work.fingerprint, work.documents, placed)


@pytest.mark.parametrize("kind", list(FILLERS))
def test_a_store_filled_by_langchain_is_placed_whole_and_equals_its_jsonl(kind, raw, chunks, tmp_path):
    target = tmp_path / ("store.db" if kind == "milvus" else "store")
    uri = FILLERS[kind](target, chunks)
    before = stores.tree_digest(target)
    found = read_store(parse_store(uri), list(raw.documents), headings=raw.headings)
    assert found.stored == len(chunks) == found.result.imported, found.lines()
    assert found.result.placements["offsets"] == len(chunks) and found.problems == ()
    assert found.conventions == {"langchain": len(chunks)} and found.strays() == {}
    from_file = import_chunks(stores.as_jsonl(chunks, tmp_path / "chunks.jsonl"), raw, workspace=raw)
    assert the_set(raw, found.result.chunks).id == the_set(raw, from_file.chunks).id, "the same spans and prefixes"
    assert stores.tree_digest(target) == before, "reading wrote nothing to the store"


def test_a_store_s_row_measures_as_the_same_chunks_imported(raw, chunks, tmp_path):
    found = read_store(parse_store(stores.fill_chroma(tmp_path / "c", chunks)), list(raw.documents))
    from_file = import_chunks(stores.as_jsonl(chunks, tmp_path / "chunks.jsonl"), raw)
    stored, imported = (raw.add_chunk_set(the_set(raw, r.chunks)) for r in (found.result, from_file))
    a, b = raw.summarize(stored, fits=800), raw.summarize(imported, fits=800)
    assert (a.chunks, a.survival_fit, a.span_chars) == (b.chunks, b.survival_fit, b.span_chars)
    assert raw.sizes(stored) == raw.sizes(imported) == [len(c.page_content) for c in sorted(
        chunks, key=lambda c: (raw.documents.index(next(d for d in raw.documents if c.metadata["source"].endswith(
            "/" + d.id))), c.metadata["start_index"]))]


def test_haystack_s_qdrant_store_is_placed_by_its_split_offsets_and_equals_its_dicts(raw, tmp_path):
    """Haystack's own pipeline (converter, word splitter, ``DocumentWriter`` into its
    ``QdrantDocumentStore``): every split placed by ``file_path`` and ``split_idx_start``, the same
    spans as its documents' ``to_dict()`` read from a file, flat or with ``meta`` nested."""
    import json

    documents = stores.haystack_documents(SAMPLE / "handbook")
    target = tmp_path / "haystack"
    uri = stores.fill_qdrant_haystack(target, documents)
    before = stores.tree_digest(target)
    found = read_store(parse_store(uri), list(raw.documents), headings=raw.headings)
    assert found.stored == found.result.imported == len(documents) and found.problems == (), found.lines()
    assert found.result.placements["offsets"] == len(documents) and found.conventions == {"haystack": len(documents)}
    for flatten in (True, False):
        lines = [json.dumps(d.to_dict(flatten=flatten) | {"embedding": None}) for d in documents]
        from_file = import_chunks("\n".join(lines).encode(), raw, fmt="jsonl", workspace=raw)
        assert from_file.placements["offsets"] == len(documents), flatten
        assert the_set(raw, found.result.chunks).id == the_set(raw, from_file.chunks).id, flatten
    assert stores.tree_digest(target) == before, "reading wrote nothing to the store"


def test_llamaindex_nodes_in_chroma_are_placed_by_their_char_offsets(raw, tmp_path):
    folder = tmp_path / "llama"
    uri = stores.fill_chroma_llamaindex(folder, SAMPLE / "handbook")
    before = stores.tree_digest(folder)
    found = read_store(parse_store(uri), list(raw.documents))
    assert found.stored > 100 and found.result.imported == found.stored, found.lines()
    assert found.conventions == {"llamaindex": found.stored}
    assert found.result.placements["offsets"] == found.stored
    assert stores.tree_digest(folder) == before


def test_chunks_of_documents_outside_the_corpus_are_counted_per_document(tmp_path):
    chunks = stores.langchain_chunks()
    handbook = load_corpus(SAMPLE / "handbook", keep_front_matter=True)
    found = read_store(parse_store(stores.fill_qdrant(tmp_path / "q", chunks)), list(handbook.documents))
    inside = sum("/handbook/" in c.metadata["source"] for c in chunks)
    assert found.result.imported == inside and found.stored == len(chunks)
    strays = found.strays()
    assert sum(strays.values()) == len(chunks) - inside and all(not d.startswith(str(SAMPLE / "handbook"))
                                                               for d in strays)
    blog = next(d for d in strays if d.endswith("designing-tiered-storage.md"))
    lines = found.lines()
    assert any(f"{strays[blog]:,} stored chunks of {blog}: not a document of the corpus" in line for line in lines)
    assert not any("unknown-document" in line for line in lines), "counted per document, not one line a chunk"


def test_what_a_pipeline_put_before_the_text_becomes_the_chunk_s_prefix(tmp_path):
    from langchain_core.documents import Document

    body = "# Ports\n\nThe admin port is 7440 on every node of the cluster.\n\nReplication uses port 7430."
    write(tmp_path, "docs/ports.md", body)
    corpus = load_corpus(tmp_path / "docs")
    header = "Title: Ports\nSection: Ports\n\n"
    stored = [Document(page_content=header + "The admin port is 7440 on every node of the cluster.",
                       metadata={"source": "ports.md"}),
              Document(page_content="Replication uses port 7430.", metadata={"source": "ports.md"})]
    found = read_store(parse_store(stores.fill_chroma(tmp_path / "c", stored)), list(corpus.documents))
    (first, second) = found.result.chunks["ports.md"]
    assert corpus.documents[0].text[first.start:first.end] == "The admin port is 7440 on every node of the cluster."
    assert first.prefix == header and second.prefix == ""
    assert [p.kind for p in found.problems] == ["prefixed"]
    work = Workspace(corpus)
    spec = work.add_chunk_set(the_set(work, found.result.chunks))
    assert work.sizes(spec) == [len(d.page_content) for d in stored], "measured on the stored text"


def test_repeated_text_in_a_store_without_order_is_reported_as_a_guess(tmp_path):
    from langchain_core.documents import Document

    write(tmp_path, "docs/twice.md", "Run hbl status first.\n\nThen restart.\n\nRun hbl status first.\n")
    corpus = load_corpus(tmp_path / "docs")
    stored = [Document(page_content=t, metadata={"source": "twice.md"})
              for t in ("Run hbl status first.", "Then restart.", "Run hbl status first.")]
    found = read_store(parse_store(stores.fill_qdrant(tmp_path / "q", stored)), list(corpus.documents))
    kinds = sorted(p.kind for p in found.problems)
    assert kinds == ["ambiguous", "duplicate"], found.lines()
    assert "occurs again at" in next(p.message for p in found.problems if p.kind == "ambiguous")


def test_duplicate_ids_are_reported(raw, chunks, tmp_path):
    import lancedb

    rows = [{"vector": [0.0] * 8, "id": "same", "text": c.page_content, "metadata": c.metadata} for c in chunks[:3]]
    lancedb.connect(str(tmp_path / "l")).create_table("docs", data=rows)
    found = read_store(parse_store(f"lancedb:{tmp_path / 'l'}?table=docs"), list(raw.documents))
    assert found.result.imported == 3
    assert [p.kind for p in found.problems] == ["duplicate-id", "duplicate-id"]


def test_a_store_that_cannot_be_opened_says_which_and_what_to_do(raw, chunks, tmp_path):
    uri = stores.fill_chroma(tmp_path / "c", chunks[:5])
    documents = list(raw.documents)
    with pytest.raises(StoreError, match=r"no collection 'other' in the store \(it has: docs\)"):
        read_store(parse_store(uri.replace("collection=docs", "collection=other")), documents)
    with pytest.raises(StoreError, match="does not exist"):
        read_store(parse_store(f"qdrant:{tmp_path / 'none'}?collection=docs"), documents)
    (tmp_path / "empty").mkdir()
    with pytest.raises(StoreError, match="holds no chroma store"):
        read_store(parse_store(f"chroma:{tmp_path / 'empty'}?collection=docs"), documents)
    assert list((tmp_path / "empty").iterdir()) == [], "nothing created where no store was"
    lance = stores.fill_lancedb(tmp_path / "l", chunks[:5])
    with pytest.raises(StoreError, match="no table 'other'"):
        read_store(parse_store(lance.replace("table=docs", "table=other")), documents)


def test_a_missing_client_names_its_extra(raw, chunks, tmp_path, monkeypatch):
    uri = stores.fill_qdrant(tmp_path / "q", chunks[:5])
    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name.startswith("qdrant_client"):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    import sys

    for name in [m for m in sys.modules if m.startswith("qdrant_client")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(MissingExtra, match=re.escape(install_hint("qdrant"))):
        read_store(parse_store(uri), list(raw.documents))


@pytest.mark.parametrize("kind", list(FILLERS))
def test_a_store_of_several_pages_is_read_whole_and_counted(kind, tmp_path):
    """Readers ask a page at a time (1,000 rows; Qdrant's local mode 10,000): 2,345 chunks come
    back every one, counted, none twice."""
    from langchain_core.documents import Document

    lines = [f"Line {i} records the value {i * 7}." for i in range(2_345)]
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "lines.md").write_text("\n".join(lines) + "\n")
    work = Workspace(load_corpus(folder, keep_front_matter=True))
    starts = [0, *itertools.accumulate(len(line) + 1 for line in lines[:-1])]
    chunks = [Document(page_content=line, metadata={"source": str(folder / "lines.md"), "start_index": start})
              for line, start in zip(lines, starts)]
    uri = FILLERS[kind](tmp_path / ("s.db" if kind == "milvus" else "s"), chunks)
    found = read_store(parse_store(uri), list(work.documents))
    assert found.stored == found.result.imported == len(lines) == found.result.placements["offsets"], found.lines()
    assert sorted(c.start for c in found.result.all_chunks()) == starts and found.problems == ()
