"""Retrieval over chunks: retrievers, the article's probe and golden sets.

``retriever_spec`` names a retriever (``bm25``, ``dense``, ``hybrid``...); ``ranking`` ranks
a pool of chunks with one: ``bm25`` over the term index of ``terms``, dense vectors from
``embedders`` (or ``remote``, an OpenAI-compatible server) kept once by ``vectors``, or both
fused. ``probe`` draws the article's 200 lexical queries and judges the top 5 by span
(answered, cut, missed by ranking); ``golden_files`` reads golden sets (ours, Chroma's) and
locates their quotes, ``golden_written`` writes them; ``golden`` measures recall within a context budget and, with
``span_scores``, the field's span metrics; ``questions`` reads the user's own questions;
``spending`` holds what the server may spend on paid endpoints, and charges every request.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "terms": ["TermTable", "terms_of"],
    "bm25": ["BM25"],
    "probe": ["ProbeResult", "Query", "make_queries", "run_probe"],
    "golden": ["DEFAULT_BUDGETS", "GoldenResult", "QuestionResult", "evaluate_golden", "golden_recall"],
    "golden_files": ["GoldenItem", "GoldenProblem", "GoldenSet", "Quote", "load_golden"],
    "golden_written": ["WrittenQuestion", "chroma_csv", "probe_questions"],
    "span_scores": ["SpanScores"],
    "retriever_spec": ["RetrieverSpec", "parse_retriever"],
    "ranking": ["Pool", "Question", "Retriever"],
    "opening": ["open_retriever", "shared_retriever"],
    "rerank": ["Reranker", "RerankedRetriever"],
    "vectors": ["VectorStore", "Vectors"],
    "questions": ["QUESTION_SETS", "QuestionSet", "QuestionSetStore", "UserQuestion", "load_questions"],
    "spending": ["PAYER", "Allowance", "SpendLedger", "SpendPolicy", "charge", "ensure", "install", "installed"],
})
