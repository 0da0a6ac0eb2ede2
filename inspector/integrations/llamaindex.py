"""``ChunkInspectorNodeParser``: a LlamaIndex ``NodeParser`` that splits as a spec does.

``ChunkInspectorNodeParser.from_spec("structured:800+header")`` turns documents (or nodes) into
exactly the chunks Chunk Inspector shows for that spec: a ``TextNode`` per chunk whose
``start_char_idx`` / ``end_char_idx`` are the chunk's span in its document's text (offsets, not a
text search), with ``heading_path``, ``chunk_id`` and ``spec`` in its metadata and the source,
previous and next relationships LlamaIndex's own parsers set. The node's text is what an embedder
receives (``prefix="content"``, the default) or the source's own slice with the prefix kept in
the metadata (``prefix="metadata"``). The keys it adds are left out of what LlamaIndex embeds and
shows the model, so the embedded text stays the chunk's; the document's own metadata is carried
as LlamaIndex carries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import MissingExtra, SpecError
from ..extras import install_hint
from ..spec import SplitterSpec, parse_spec
from .core import split_source

try:
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.node_utils import build_nodes_from_splits
    from llama_index.core.schema import BaseNode, Document, MetadataMode
    from llama_index.core.utils import get_tqdm_iterable
except ImportError as exc:  # pragma: no cover - exercised by a test that hides the package
    raise MissingExtra(f"ChunkInspectorNodeParser needs LlamaIndex: {install_hint('llamaindex')}") from exc

PREFIX_PLACES = ("content", "metadata")
#: What the parser adds to each node's metadata (kept out of the embedded and the model's text).
ADDED_KEYS = ("start_index", "end_index", "heading_path", "chunk_id", "spec", "prefix")


class ChunkInspectorNodeParser(NodeParser):
    """Chunk Inspector's splitter for ``spec``, as a LlamaIndex node parser."""

    spec: str = Field(default="structured:800", description="The Chunk Inspector spec string.")
    prefix: str = Field(default="content", description="Where a chunk's prefix goes: content or metadata.")
    mode: str = Field(default="markdown", description="The atom mode: markdown, plain or seed.")
    _spec: SplitterSpec = PrivateAttr()

    def __init__(self, spec: SplitterSpec | str = "structured:800", **kwargs: Any) -> None:
        parsed = parse_spec(spec)  # a bad spec is refused with its reason, not as a validation error
        if kwargs.get("prefix", "content") not in PREFIX_PLACES:
            raise SpecError(f"prefix goes in the {' or the '.join(PREFIX_PLACES)}, not {kwargs['prefix']!r}")
        super().__init__(spec=str(parsed), **kwargs)
        self._spec = parsed

    @classmethod
    def from_spec(cls, spec: SplitterSpec | str, **kwargs: Any) -> "ChunkInspectorNodeParser":
        """The parser a spec string names."""
        return cls(spec, **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "ChunkInspectorNodeParser"

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        out: list[BaseNode] = []
        for node in get_tqdm_iterable(nodes, show_progress, "Splitting with Chunk Inspector"):
            source = node.get_content(metadata_mode=MetadataMode.NONE)
            document, chunks = split_source(source, self._spec, node.metadata, self.mode)
            texts = [c.embedded_text(document) if self.prefix == "content" else c.text(document) for c in chunks]
            for chunk, made in zip(chunks, build_nodes_from_splits(texts, node, id_func=self.id_func)):
                made.start_char_idx, made.end_char_idx = chunk.start, chunk.end
                added = {"start_index": chunk.start, "end_index": chunk.end, "heading_path": list(chunk.heading_path),
                         "chunk_id": chunk.id, "spec": self.spec}
                if self.prefix == "metadata" and chunk.prefix:
                    added["prefix"] = chunk.prefix
                made.metadata = {**node.metadata, **added}
                made.excluded_embed_metadata_keys = [*node.excluded_embed_metadata_keys, *ADDED_KEYS]
                made.excluded_llm_metadata_keys = [*node.excluded_llm_metadata_keys, *ADDED_KEYS]
                out.append(made)
        return out

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        # LlamaIndex places each node by searching its document's text for the node's text, which
        # misses a prefixed chunk and can land on an earlier repeat: the spans are put back.
        spans = [(n.start_char_idx, n.end_char_idx) for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, (start, end) in zip(nodes, spans):
            node.start_char_idx, node.end_char_idx = start, end
        return nodes
