"""``inspector.integrations.langchain``: the LangChain splitter gives exactly our chunks."""

from __future__ import annotations

import importlib

import pytest

from inspector.errors import SpecError
from tests.support.drop_in import SPECS, our_chunks, without

pytest.importorskip("langchain_text_splitters")
from inspector.extras import install_hint
from inspector.integrations.langchain import ChunkInspectorSplitter  # noqa: E402


@pytest.mark.parametrize("spec", SPECS)
def test_the_splitter_gives_our_chunks_on_the_sample_corpus(sample_markdown, spec):
    splitter = ChunkInspectorSplitter.from_spec(spec)
    for document, ours in our_chunks(sample_markdown, spec):
        assert splitter.split_text(document.text) == [c.embedded_text(document) for c in ours], document.id
        pieces = splitter.create_documents([document.text], [{"source": document.id}])
        assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in pieces] == [c.span for c in ours]
        assert [d.metadata["chunk_id"] for d in pieces] == [c.id for c in ours]


def test_the_metadata_offsets_slice_the_source_and_the_prefix_can_stay_out_of_the_text(sample_markdown):
    document = next(d for d in sample_markdown.documents if d.id == "handbook/benefits-by-country.md")
    source = document.text
    splitter = ChunkInspectorSplitter("structured:800+address", prefix="metadata")
    pieces = splitter.split_documents([_langchain_document(source, {"source": "benefits.md", "title": "Benefits",
                                                                     "version": "2026.1"})])
    assert all(p.page_content == source[p.metadata["start_index"]:p.metadata["end_index"]] for p in pieces)
    assert pieces[1].metadata["prefix"].startswith("Benefits > ") and "version 2026.1" in pieces[1].metadata["prefix"]
    assert pieces[0].metadata["source"] == "benefits.md" and pieces[0].metadata["spec"] == "structured:800+address"
    stamped = ChunkInspectorSplitter("structured:800+address").create_documents([source], [{"title": "Benefits"}])
    assert stamped[1].page_content.startswith("Benefits > ")


def test_what_cannot_run_is_refused_with_the_reason():
    with pytest.raises(SpecError, match="built-in splitter"):
        ChunkInspectorSplitter("structured:800+context;llm=m").split_text("text")
    with pytest.raises(SpecError, match="prefix goes in the content or the metadata"):
        ChunkInspectorSplitter("structured:800", prefix="elsewhere")


def test_without_langchain_inspector_imports_and_the_splitter_names_the_package():
    shown = without(["langchain_text_splitters"], "import inspector.integrations.langchain")
    assert "MissingExtra" in shown and install_hint("langchain") in shown


def _langchain_document(text, metadata):
    return importlib.import_module("langchain_core.documents").Document(page_content=text, metadata=metadata)
