"""Finding atoms: the pieces of a document that must arrive whole in one chunk.

``detect.analyze`` runs one of two detectors and returns an ``Analysis`` (atoms, paragraphs,
sentences, tables, headings) computed once per document and shared by every splitter and
measure. ``markdown`` follows markdown-it-py's tokens, with ``prose`` (sentences, figure and
citing sentences) and ``inline`` (masking, links) for paragraph text; ``seed`` applies the
article's regex rules exactly. ``store`` keeps analyses in the data folder between runs.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "analysis": ["Analysis", "Heading", "HeadingIndex", "Table"],
    "detect": ["analyze", "find_atoms", "load_detector"],
    "store": ["AnalysisStore", "analysis_key"],
})
