"""The user's own vector store as a source of chunks: Chroma, Qdrant, LanceDB, Milvus and PostgreSQL.

``address`` names a store and its collection (``StoreAddress``, a string form that round-trips;
credentials only from the environment), ``readers`` reads its chunks a page at a time without
their vectors through each store's own client, ``fields`` reads what each chunk says about its
document and offsets (LangChain's, LlamaIndex's, Haystack's and Chonkie's metadata), and
``source`` places them on the corpus as an import does, reporting every chunk not placed exactly.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "address": ["KINDS", "StoreAddress", "StoreCredentials", "parse_store"],
    "fields": ["CONVENTIONS", "StoreFields", "StoredChunk"],
    "reading": ["PAGE_SIZE", "StoreReader"],
    "readers": ["open_reader"],
    "served": ["ENV_STORES", "ServedStore", "served_stores"],
    "source": ["StoreImport", "read_store"],
})
