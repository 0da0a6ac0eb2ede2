"""Measuring chunkings over a corpus: the ``Workspace`` and what it counts.

``workspace`` caches every document's analysis and every chunking's split, and answers
survival, header carry, sizes and the probe for any spec (built with its ``services``: the
folders and servers it keeps and asks); ``survival`` (atoms kept whole and
cut), ``headers`` (rows that keep their header) and ``sizes`` (percentiles, the embedder's
cap) are the measures; ``asking`` asks the user's own questions of a chunking (what comes
back, its context, the atom fragments it holds), ``asked`` one question asked live (its top k
spans and scores, where a quote lands); ``arrays`` holds a chunking as whole-corpus
arrays for speed, ``workers`` analyses documents in forked processes and ``derived`` keeps
splits, query candidates, terms and token counts between runs.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "summary": ["SplitSummary"],
    "workspace": ["Workspace"],
    "survival": ["CutAtom", "contained", "cut_atoms"],
    "headers": ["HeaderCarry", "header_carry"],
    "sizes": ["CapReport", "SizeStats", "cap_report", "percentile"],
    "asking": ["AskResult", "ask", "ask_theirs"],
    "asked": ["MAX_K", "Asked", "AskedChunk", "Landing", "QuoteSpan", "ask_question", "find_quote", "k_problem",
              "landing", "question_problem"],
    "derived": ["DerivedStore"],
    "services": ["Services"],
})
