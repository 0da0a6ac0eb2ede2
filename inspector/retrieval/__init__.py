"""Retrieval over chunks: the term index, BM25 ranking, the article's probe and golden sets.

``terms`` finds every term of the corpus once; ``bm25`` ranks chunks for a batch of queries;
``probe`` draws the article's 200 lexical queries and judges the top 5 by span (answered,
cut, missed by ranking); ``golden`` locates a golden set's evidence and measures recall
within a context budget.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "terms": ["TermTable", "terms_of"],
    "bm25": ["BM25"],
    "probe": ["ProbeResult", "Query", "make_queries", "run_probe"],
    "golden": ["DEFAULT_BUDGETS", "GoldenItem", "GoldenProblem", "GoldenResult", "GoldenSet", "evaluate_golden",
               "golden_recall", "load_golden"],
})
