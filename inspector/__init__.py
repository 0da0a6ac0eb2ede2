"""Chunk Inspector: see, measure and review what a text splitter does to your documents.

The public surface::

    corpus = load_corpus("sample_corpus")            # documents, plus files it skipped and why
    work = Workspace(corpus, mode="markdown")         # atoms computed once per document
    result = split_document(doc, "structured:800")    # chunks as (start, end) spans
    report = build_report(work)                       # the article's four tables
"""

# Every name loads its module on first use: `python -m inspector report` forks its analysis
# workers before the engine (numpy, the splitters, the probe) is imported, and pays nothing
# for SQLite, CSV, the importers or the review.
_LAZY = {
    **dict.fromkeys(["MODES", "Analysis", "Heading", "Table"], "analysis"),
    **dict.fromkeys(["analyze", "find_atoms"], "atoms"),
    **dict.fromkeys(["Corpus", "SkippedFile", "load_corpus", "load_files", "load_uploads"], "corpus"),
    **dict.fromkeys(["ChunkSetError", "CorpusError", "ImportChunksError", "InspectorError", "LengthError",
                     "ReviewInputError", "ReviewStoreError", "SpecError", "UnreadableFile"], "errors"),
    **dict.fromkeys(["LENGTH_NAMES", "CharLength", "HFTokenizerLength", "Length", "TiktokenLength",
                     "get_length"], "lengths"),
    **dict.fromkeys(["HeaderCarry", "SizeStats", "cap_report", "contained", "header_carry", "percentile",
                     "survival"], "measures"),
    **dict.fromkeys(["ATOM_KINDS", "ATOM_LABELS", "Atom", "Chunk", "Document", "Span"], "model"),
    **dict.fromkeys(["ProbeResult", "Query", "make_queries", "run_probe"], "probe"),
    **dict.fromkeys(["build_report", "format_report"], "report"),
    **dict.fromkeys(["ARTICLE_SPECS", "KINDS", "SWEEP_BUDGETS", "SplitterSpec", "parse_spec"], "spec"),
    **dict.fromkeys(["SplitResult", "split_document"], "splitters"),
    **dict.fromkeys(["SplitSummary", "Workspace"], "workspace"),
    **dict.fromkeys(["ImportResult", "import_chunks"], "importer"),
    "ImportedSplits": "imported_splits",
    **dict.fromkeys(["ChunkSet", "ChunkSetStore", "chunk_set_from_import", "make_chunk_set"], "chunksets"),
    **dict.fromkeys(["GoldenSet", "golden_recall", "load_golden"], "golden"),
    "export_chunks": "export",
    **dict.fromkeys(["ReviewRound", "draw"], "orphans"),
    "suspects": "orphan_reveal",
    "ReviewStore": "review",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inspector' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # found directly next time
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "ARTICLE_SPECS", "ATOM_KINDS", "ATOM_LABELS", "KINDS", "LENGTH_NAMES", "MODES", "SWEEP_BUDGETS",
    "Analysis", "Atom", "CharLength", "Chunk", "Corpus", "CorpusError", "Document",
    "HFTokenizerLength", "HeaderCarry", "Heading", "ImportChunksError", "InspectorError", "Length",
    "LengthError", "ProbeResult", "Query", "ReviewInputError", "ReviewStoreError", "UnreadableFile", "SizeStats", "SkippedFile", "Span",
    "SpecError", "SplitResult", "SplitSummary", "SplitterSpec", "Table", "TiktokenLength", "Workspace",
    "analyze", "build_report", "cap_report", "contained", "find_atoms", "format_report", "get_length",
    "header_carry", "load_corpus", "load_files", "load_uploads", "make_queries", "parse_spec",
    "percentile", "run_probe", "split_document", "survival",
    "ImportedSplits", "ImportResult", "import_chunks", "GoldenSet", "golden_recall", "load_golden",
    "export_chunks", "ReviewRound", "draw", "suspects", "ReviewStore",
    "ChunkSet", "ChunkSetError", "ChunkSetStore", "chunk_set_from_import", "make_chunk_set",
]
