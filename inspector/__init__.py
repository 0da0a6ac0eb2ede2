"""Chunk Inspector: see, measure and review what a text splitter does to your documents.

The public surface::

    corpus = load_corpus("sample_corpus")            # documents, plus files it skipped and why
    work = Workspace(corpus, mode="markdown")         # atoms computed once per document
    result = split_document(doc, "structured:800")    # chunks as (start, end) spans
    report = build_report(work)                       # the article's four tables
    show(chunks, text).save("chunks.html")            # any splitter's chunks drawn, cuts in red

Each subpackage is one room of the data flow (``docs/architecture.md`` draws it) and has a
surface of its own: ``inspector.corpus``, ``.atoms``, ``.split``, ``.chunks``,
``.retrieval``, ``.measure``, ``.review``, ``.reports`` and ``.views``. The values every room
shares are the top-level modules ``model``, ``spec``, ``lengths`` and ``errors``.
"""

from .surface import lazy_surface

# Every name loads its module on first use (see ``inspector.surface``).
__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "model": ["ATOM_KINDS", "Chunk", "Document", "Span", "SplitResult"],
    "spec": ["SplitterSpec", "parse_spec"],
    "lengths": ["Length", "get_length"],
    "errors": ["InspectorError"],
    "corpus.load": ["Corpus", "load_corpus"],
    "atoms.analysis": ["Analysis"],
    "atoms.detect": ["analyze"],
    "split.splitters": ["split_document"],
    "chunks.importer": ["ImportResult", "import_chunks"],
    "chunks.sets": ["ChunkSet", "chunk_set_from_import"],
    "chunks.export": ["export_chunks"],
    "retrieval.golden": ["golden_recall"],
    "retrieval.golden_files": ["load_golden"],
    "measure.summary": ["SplitSummary"],
    "measure.workspace": ["Workspace"],
    "review.rounds": ["draw"],
    "review.store": ["ReviewStore"],
    "reports.article": ["ReportPlan", "build_report"],
    "reports.printed": ["format_report"],
    "views.notebook": ["show"],
})

__version__ = "0.1.0"
