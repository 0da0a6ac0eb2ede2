"""Our splitters inside other libraries' pipelines: drop-in objects built from a spec string.

``langchain`` is a LangChain ``TextSplitter`` (``ChunkInspectorSplitter.from_spec``), ``llamaindex``
a LlamaIndex ``NodeParser`` (``ChunkInspectorNodeParser``), ``chonkie`` a Chonkie chunker
(``ChunkInspectorChunker``); ``core`` splits one text as the
other libraries hand it over. Each library is imported only by its own module, so ``import
inspector`` never needs it, and using one without it raises ``MissingExtra`` naming the extra.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "core": ["split_source", "source_document"],
    "langchain": ["ChunkInspectorSplitter"],
    "llamaindex": ["ChunkInspectorNodeParser"],
    "chonkie": ["ChunkInspectorChunker"],
})
