"""Chunk Inspector: see, measure and review what a text splitter does to your documents.

The public surface::

    corpus = load_corpus("sample_corpus")            # documents, plus files it skipped and why
    work = Workspace(corpus, mode="markdown")         # atoms computed once per document
    result = split_document(doc, "structured:800")    # chunks as (start, end) spans
    report = build_report(work)                       # the article's four tables
"""

from .analysis import MODES, Analysis, Heading, Table
from .atoms import analyze, find_atoms
from .corpus import Corpus, SkippedFile, load_corpus, load_files, load_uploads
from .errors import (
    CorpusError,
    ImportChunksError,
    InspectorError,
    LengthError,
    ReviewInputError,
    ReviewStoreError,
    SpecError,
    UnreadableFile,
)
from .lengths import LENGTH_NAMES, CharLength, HFTokenizerLength, Length, TiktokenLength, get_length
from .measures import HeaderCarry, SizeStats, cap_report, contained, header_carry, percentile, survival
from .model import ATOM_KINDS, ATOM_LABELS, Atom, Chunk, Document, Span
from .probe import ProbeResult, Query, make_queries, run_probe
from .report import build_report, format_report
from .spec import ARTICLE_SPECS, KINDS, SWEEP_BUDGETS, SplitterSpec, parse_spec
from .splitters import SplitResult, split_document
from .workspace import SplitSummary, Workspace

# Import, golden sets, export and the review load on first use, so `python -m inspector report`
# does not pay for SQLite, CSV and the importers at start-up.
_LAZY = {
    "ImportedSplits": "importer", "ImportResult": "importer", "import_chunks": "importer",
    "GoldenSet": "golden", "golden_recall": "golden", "load_golden": "golden",
    "export_chunks": "export",
    "ReviewRound": "orphans", "draw": "orphans", "suspects": "orphans",
    "ReviewStore": "review",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'inspector' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)

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
]
