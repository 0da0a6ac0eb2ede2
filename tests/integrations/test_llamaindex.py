"""``inspector.integrations.llamaindex``: the LlamaIndex node parser gives exactly our chunks."""

from __future__ import annotations

import pytest

from inspector import split_document
from inspector.errors import SpecError
from tests.support.drop_in import SPECS, our_chunks, without

pytest.importorskip("llama_index.core")
from llama_index.core import Document  # noqa: E402
from llama_index.core.ingestion import IngestionPipeline  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode  # noqa: E402

from inspector.extras import install_hint
from inspector.integrations.llamaindex import ChunkInspectorNodeParser  # noqa: E402


@pytest.mark.parametrize("spec", SPECS)
def test_the_parser_gives_our_chunks_on_the_sample_corpus(sample_markdown, spec):
    parser = ChunkInspectorNodeParser.from_spec(spec)
    for document, ours in our_chunks(sample_markdown, spec):
        nodes = parser.get_nodes_from_documents([Document(text=document.text, metadata={"source": document.id})])
        assert [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes] == [
            c.embedded_text(document) for c in ours], document.id
        assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [c.span for c in ours]
        assert [n.metadata["chunk_id"] for n in nodes] == [c.id for c in ours]


def test_offsets_slice_the_source_even_where_llamaindex_would_search_elsewhere():
    # The same paragraph twice: a text search puts both nodes on the first; the spans do not.
    paragraph = "A paragraph that the document repeats, word for word, in two places. " * 8
    text = f"# Twice\n\n{paragraph}\n\n## Again\n\n{paragraph}\n"
    parser = ChunkInspectorNodeParser("structured:800", prefix="metadata")
    nodes = parser.get_nodes_from_documents([Document(text=text, metadata={"title": "Twice"})])
    assert len(nodes) >= 2
    assert all(n.text == text[n.start_char_idx:n.end_char_idx] for n in nodes)
    assert nodes[-1].start_char_idx > text.index("## Again")


def test_prefix_metadata_and_relationships_are_what_llamaindex_pipelines_expect(sample_markdown):
    document = next(d for d in sample_markdown.documents if d.id == "handbook/benefits-by-country.md")
    source = Document(text=document.text, metadata={"source": "benefits.md", "title": "Benefits", "version": "2026.1"})
    stamped = ChunkInspectorNodeParser("structured:800+address").get_nodes_from_documents([source])
    assert stamped[1].text.startswith("Benefits > ") and "version 2026.1" in stamped[1].text
    # What LlamaIndex embeds is the chunk with the document's own metadata, not the keys we add.
    embedded = stamped[1].get_content(metadata_mode=MetadataMode.EMBED)
    assert embedded.endswith(stamped[1].text.strip()) and "source: benefits.md" in embedded
    assert "chunk_id" not in embedded and "heading_path" not in embedded
    kept = ChunkInspectorNodeParser("structured:800+address", prefix="metadata").get_nodes_from_documents([source])
    assert all(n.text == document.text[n.start_char_idx:n.end_char_idx] for n in kept)
    assert kept[1].metadata["prefix"].startswith("Benefits > ") and kept[1].metadata["spec"] == "structured:800+address"
    assert kept[0].metadata["source"] == "benefits.md" and isinstance(kept[0], TextNode)
    assert {n.ref_doc_id for n in kept} == {source.doc_id}
    assert kept[1].relationships[NodeRelationship.PREVIOUS].node_id == kept[0].node_id
    assert kept[0].relationships[NodeRelationship.NEXT].node_id == kept[1].node_id


def test_an_ingestion_pipeline_runs_it_and_splits_nodes_too(sample_markdown):
    document = sample_markdown.documents[0]
    parser = ChunkInspectorNodeParser("recursive:800")
    ours = split_document(document, "recursive:800", sample_markdown.analysis(document)).chunks
    nodes = IngestionPipeline(transformations=[parser]).run(documents=[Document(text=document.text)])
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [c.span for c in ours]
    again = parser([TextNode(text=document.text)])
    assert [n.text for n in again] == [n.text for n in nodes]
    # The pipeline's cache tells transformations apart by their serialised fields: the spec is one.
    assert parser.to_dict()["spec"] == "recursive:800" and parser.to_dict()["class_name"] == "ChunkInspectorNodeParser"


def test_what_cannot_run_is_refused_with_the_reason():
    with pytest.raises(SpecError, match="budget"):
        ChunkInspectorNodeParser("structured:0")
    with pytest.raises(SpecError, match="built-in splitter"):
        ChunkInspectorNodeParser("structured:800+context;llm=m").get_nodes_from_documents([Document(text="x")])
    with pytest.raises(SpecError, match="prefix goes in the content or the metadata"):
        ChunkInspectorNodeParser("structured:800", prefix="elsewhere")


def test_without_llamaindex_inspector_imports_and_the_parser_names_the_extra():
    shown = without(["llama_index", "llama_index.core"], "inspector.integrations.ChunkInspectorNodeParser")
    assert "MissingExtra" in shown and install_hint("llamaindex") in shown
