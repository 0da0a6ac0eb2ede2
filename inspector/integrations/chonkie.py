"""``ChunkInspectorChunker``: a Chonkie chunker that splits as a spec does.

``ChunkInspectorChunker("structured:800")(text)`` (or ``.chunk(text)``) returns Chonkie
``Chunk`` objects: ``text`` is what an embedder receives (prefix and span), ``start_index`` /
``end_index`` the span in the text given, ``token_count`` the size in the spec's own unit (o200k
tokens when the budget counts characters), and ``metadata`` the heading path, chunk id, spec and
prefix. Batches and documents go through Chonkie's own ``chunk_batch`` / ``chunk_document``;
``chunk(text, metadata)`` names the document (title, version, date) for an address stamp.
"""

from __future__ import annotations

from ..errors import MissingExtra
from ..extras import install_hint
from ..lengths import get_length
from ..spec import SplitterSpec, parse_spec
from .core import split_source

try:
    from chonkie import BaseChunker
    from chonkie.types import Chunk as ChonkieChunk
except ImportError as exc:  # pragma: no cover - exercised by a test that hides the package
    raise MissingExtra(f"ChunkInspectorChunker needs Chonkie: {install_hint('chonkie')}") from exc


class ChunkInspectorChunker(BaseChunker):
    """Chunk Inspector's splitter for ``spec``, as a Chonkie chunker."""

    def __init__(self, spec: SplitterSpec | str = "structured:800", *, mode: str = "markdown") -> None:
        super().__init__("character")  # Chonkie's own tokenizer is not used; "character" needs no download
        self.spec, self.mode = parse_spec(spec), mode
        self.length = get_length(self.spec.unit if self.spec.in_tokens else "o200k")

    def chunk(self, text: str, metadata: dict | None = None) -> list[ChonkieChunk]:
        """``text``'s chunks; ``metadata`` (``title``, ``version``, ``updated``, ``source``) names
        the document for ``+address`` stamps and chunk ids."""
        document, chunks = split_source(text, self.spec, metadata, mode=self.mode)
        texts = [c.embedded_text(document) for c in chunks]
        counts = self.length.count_many(texts)
        return [ChonkieChunk(text=embedded, start_index=c.start, end_index=c.end, token_count=count,
                             metadata={"heading_path": list(c.heading_path), "chunk_id": c.id, "spec": str(self.spec),
                                       "prefix": c.prefix})
                for c, embedded, count in zip(chunks, texts, counts)]
