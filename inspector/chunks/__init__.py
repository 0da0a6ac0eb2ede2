"""Chunks made elsewhere, in and out: import, placement, chunk sets and export.

``records`` reads chunk files (JSONL, JSON, CSV; LangChain and Chonkie dumps), ``placement``
finds each chunk's exact span (by ``matching`` when offsets are missing or wrong), and
``importer`` reports every chunk not taken as given. ``sets`` keeps placed chunks as a
``ChunkSet`` named ``imported:ID``, which a ``Workspace`` measures like any splitter;
``export`` writes any chunking as JSONL for a pipeline.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "importer": ["ChunkOrigin", "Gap", "ImportResult", "PLACEMENTS", "import_chunks", "place_records"],
    "records": ["ChunkRecord"],
    "sets": ["ChunkSet", "ChunkSetInfo", "ChunkSetStore", "chunk_set_from_import", "make_chunk_set"],
    "export": ["FIELDS", "export_chunks", "export_length", "export_text"],
})
