"""``ChunkInspectorSplitter``: a LangChain ``TextSplitter`` that splits as a spec does.

Built from a spec string (``ChunkInspectorSplitter.from_spec("structured:800")``), it returns
exactly the chunks Chunk Inspector shows for that spec. ``split_text`` gives what an embedder
receives (prefix and span); ``create_documents`` and ``split_documents`` give one ``Document``
per chunk with ``start_index`` / ``end_index`` (the span in the source text: they are offsets,
not a text search), ``heading_path``, ``chunk_id`` and ``spec`` in its metadata, and the prefix
either in the page content (``prefix="content"``, the default: what is embedded) or in the
metadata only (``prefix="metadata"``: the page content is the source's own slice).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

from ..errors import MissingExtra, SpecError
from ..extras import install_hint
from ..spec import SplitterSpec, parse_spec
from .core import split_source

try:
    from langchain_core.documents import Document as LangChainDocument
    from langchain_text_splitters import TextSplitter
except ImportError as exc:  # pragma: no cover - exercised by a test that hides the package
    raise MissingExtra(f"ChunkInspectorSplitter needs LangChain's splitters: {install_hint('langchain')}") from exc

PREFIX_PLACES = ("content", "metadata")


class ChunkInspectorSplitter(TextSplitter):
    """Chunk Inspector's splitter for ``spec``, as a LangChain ``TextSplitter``."""

    def __init__(self, spec: SplitterSpec | str = "structured:800", *, prefix: str = "content",
                 mode: str = "markdown", **kwargs) -> None:
        spec = parse_spec(spec)
        if prefix not in PREFIX_PLACES:
            raise SpecError(f"prefix goes in the {' or the '.join(PREFIX_PLACES)}, not {prefix!r}")
        super().__init__(chunk_size=spec.budget, chunk_overlap=spec.overlap, add_start_index=True,
                         strip_whitespace=False, **kwargs)
        self.spec, self.prefix, self.mode = spec, prefix, mode

    @classmethod
    def from_spec(cls, spec: SplitterSpec | str, **kwargs) -> "ChunkInspectorSplitter":
        """The splitter a spec string names."""
        return cls(spec, **kwargs)

    def split_text(self, text: str) -> list[str]:
        document, chunks = split_source(text, self.spec, mode=self.mode)
        if self.prefix == "content":
            return [c.embedded_text(document) for c in chunks]
        return [c.text(document) for c in chunks]

    def create_documents(self, texts: list[str], metadatas: list[dict] | None = None) -> list[LangChainDocument]:
        out = []
        for text, metadata in zip(texts, metadatas or [{}] * len(texts)):
            document, chunks = split_source(text, self.spec, metadata, self.mode)
            for chunk in chunks:
                extra = copy.deepcopy(metadata)
                extra.update(start_index=chunk.start, end_index=chunk.end, heading_path=list(chunk.heading_path),
                             chunk_id=chunk.id, spec=str(self.spec))
                content = chunk.text(document)
                if self.prefix == "content":
                    content = chunk.prefix + content
                elif chunk.prefix:
                    extra["prefix"] = chunk.prefix
                out.append(LangChainDocument(page_content=content, metadata=extra))
        return out

    def split_documents(self, documents: Iterable[LangChainDocument]) -> list[LangChainDocument]:
        documents = list(documents)
        return self.create_documents([d.page_content for d in documents], [d.metadata for d in documents])
