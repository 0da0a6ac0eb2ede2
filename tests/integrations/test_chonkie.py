"""``inspector.integrations.chonkie``: the Chonkie chunker gives exactly our chunks."""

from __future__ import annotations

import pytest

from inspector import get_length, split_document
from inspector.kinds import offered_kinds
from tests.support.drop_in import without

pytest.importorskip("chonkie")
from inspector.extras import install_hint
from inspector.integrations.chonkie import ChunkInspectorChunker  # noqa: E402
from inspector.integrations.core import split_source  # noqa: E402

SPECS = [f"{kind}:800" for kind in offered_kinds()] + ["heading:256t", "structured:300t:cl100k"]


@pytest.mark.parametrize("spec", SPECS)
def test_the_chunker_gives_our_chunks_with_offsets_and_token_counts(sample_markdown, spec):
    chunker = ChunkInspectorChunker(spec)
    unit = get_length(chunker.spec.unit if chunker.spec.in_tokens else "o200k")
    for document in sample_markdown.documents[::5]:
        ours = split_document(document, spec, sample_markdown.analysis(document)).chunks
        theirs = chunker(document.text)
        assert [(c.start_index, c.end_index) for c in theirs] == [c.span for c in ours], document.id
        assert [c.text for c in theirs] == [c.embedded_text(document) for c in ours]
        assert all(c.text.endswith(document.text[c.start_index:c.end_index]) for c in theirs)
        assert [c.token_count for c in theirs] == unit.count_many([c.text for c in theirs])
        # Chonkie is handed a bare text: its chunks are named as our chunks of a document called "text".
        assert [c.metadata["chunk_id"] for c in theirs] == [c.id for c in split_source(document.text, spec)[1]]


def test_a_batch_goes_through_chonkies_own_batching(sample_markdown):
    texts = [d.text for d in sample_markdown.documents[:3]]
    batches = ChunkInspectorChunker("recursive:800").chunk_batch(texts, show_progress=False)
    assert [len(b) for b in batches] == [len(ChunkInspectorChunker("recursive:800").chunk(t)) for t in texts]


def test_without_chonkie_the_chunker_names_the_package():
    shown = without(["chonkie"], "import inspector.integrations.chonkie")
    assert "MissingExtra" in shown and install_hint("chonkie") in shown
