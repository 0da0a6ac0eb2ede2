"""One question asked live of a split: the chunks that come back, and where a quote lands.

The probe and the golden sets measure rates over many questions; this answers one, the way a
demo needs it. For each splitter, the retriever's top ``k`` chunks as spans with their scores;
with a quote (the passage that answers, or a golden question's evidence), where it lands:

- ``whole``: one of the top ``k`` chunks holds all of it;
- ``cut``: the top ``k`` chunks hold parts of it only, a chunk boundary falling inside it;
- ``missing``: none of the top ``k`` chunks holds any of it.

``in_split`` says how the split itself holds the quote, whatever was retrieved: ``whole`` in
one chunk (so ``missing`` is a rank miss) or ``cut`` across several (nothing can hand it back
whole).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import QuestionsError
from ..model import Document
from ..retrieval.article_terms import terms_of
from ..retrieval.questions import MAX_QUESTION_CHARS
from ..retrieval.ranking import Question, Retriever

#: The most chunks one question may bring back.
MAX_K = 100
#: The longest quote looked for in the corpus.
MAX_QUOTE_CHARS = 5_000


@dataclass(frozen=True, slots=True)
class AskedChunk:
    """One retrieved chunk: its rank (from 1), its document, its span there and its score."""

    rank: int
    doc: str
    start: int
    end: int
    score: float | None
    """What placed it (BM25's score, a cosine, a fused rank); None where the retriever shows none."""

    def as_dict(self) -> dict:
        return {"rank": self.rank, "doc": self.doc, "start": self.start, "end": self.end, "score": self.score}


@dataclass(frozen=True, slots=True)
class QuoteSpan:
    """Where a quote is in the corpus: its document and span."""

    doc: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Landing:
    """Where a quote lands among one split's retrieved chunks."""

    status: str
    """``whole``, ``cut`` or ``missing`` (the module's docstring says which is which)."""

    chunks: tuple[int, ...]
    """The ranks of the retrieved chunks holding it (``whole``: the first that holds all of it)."""

    in_split: str
    """``whole``: one chunk of the split holds all of it; ``cut``: no chunk does."""

    def as_dict(self) -> dict:
        return {"status": self.status, "chunks": list(self.chunks), "in_split": self.in_split}

    def sentence(self) -> str:
        """The landing in words."""
        if self.status == "whole":
            return f"whole in chunk {self.chunks[0]}"
        if self.status == "cut":
            held = (f"cut: chunk {self.chunks[0]} holds only part of it" if len(self.chunks) == 1
                    else f"cut across chunks {', '.join(map(str, self.chunks))}")
            return held + (
                "" if self.in_split == "cut" else " (one chunk below them holds it whole)")
        return "missing from the top k" + (" (a rank miss: one chunk holds it whole)" if self.in_split == "whole"
                                           else " (and cut by the split)")


@dataclass(frozen=True, slots=True)
class Asked:
    """One splitter's answer to one question."""

    spec: str
    retriever: str
    k: int
    chunks: tuple[AskedChunk, ...]
    quote: Landing | None = None

    def as_dict(self) -> dict:
        return {"spec": self.spec, "retriever": self.retriever, "k": self.k,
                "chunks": [c.as_dict() for c in self.chunks],
                "quote": self.quote.as_dict() if self.quote is not None else None}


def question_problem(text: object) -> str | None:
    """Why ``text`` cannot be asked, or None."""
    if not isinstance(text, str) or not text.strip():
        return "the question is empty"
    if len(text) > MAX_QUESTION_CHARS:
        return f"a question is at most {MAX_QUESTION_CHARS:,} characters (this one has {len(text):,})"
    if not terms_of(text):
        return "the question has no word to search for"
    return None


def k_problem(k: object) -> str | None:
    """Why ``k`` cannot be the number of chunks asked for, or None."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        return f"k is a whole number from 1 to {MAX_K}, got {k!r}"
    return None


def find_quote(documents: Sequence[Document], quote: str) -> QuoteSpan:
    """The first place, in corpus order, whose text is ``quote`` (whitespace runs matching any
    whitespace run, so a quote copied from a rendered page is found); ``QuestionsError`` when
    it is empty, too long or nowhere."""
    words = quote.split() if isinstance(quote, str) else []
    if not words:
        raise QuestionsError("the quote is empty")
    if len(quote) > MAX_QUOTE_CHARS:
        raise QuestionsError(f"a quote is at most {MAX_QUOTE_CHARS:,} characters (this one has {len(quote):,})")
    exact = quote.strip()
    loose = re.compile(r"\s+".join(map(re.escape, words)))
    for document in documents:
        at = document.text.find(exact)
        if at >= 0:
            return QuoteSpan(document.id, at, at + len(exact))
        found = loose.search(document.text)
        if found:
            return QuoteSpan(document.id, found.start(), found.end())
    shown = exact if len(exact) <= 60 else exact[:60] + "…"
    raise QuestionsError(f"the quote {shown!r} is in no document of the corpus")


def landing(quote: QuoteSpan, retrieved: Sequence[AskedChunk], split: Sequence[tuple[int, int]]) -> Landing:
    """Where ``quote`` lands among ``retrieved`` chunks, ``split`` being every span of the quote's
    document under the same splitter."""
    in_split = "whole" if any(a <= quote.start and quote.end <= b for a, b in split) else "cut"
    mine = [c for c in retrieved if c.doc == quote.doc]
    holding = [c.rank for c in mine if c.start <= quote.start and quote.end <= c.end]
    if holding:
        return Landing("whole", (holding[0],), in_split)
    parts = [c.rank for c in mine if c.start < quote.end and quote.start < c.end]
    return Landing("cut", tuple(parts), in_split) if parts else Landing("missing", (), in_split)


def ask_question(workspace, spec, question: str, *, retriever: Retriever | str | None = None, k: int = 5,
                 quote: QuoteSpan | None = None) -> Asked:
    """``question`` ranked against ``spec``'s chunks of ``workspace`` by ``retriever`` (default
    BM25): its top ``k`` chunks, and where ``quote`` lands among them."""
    problem = question_problem(question) or k_problem(k)
    if problem:
        raise QuestionsError(problem)
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    pool = workspace.pool(spec)
    doc_ids = [pool.doc_ids[d] for d in pool.doc_of.tolist()]
    starts, ends = pool.starts.tolist(), pool.ends.tolist()
    chunks = tuple(AskedChunk(rank, doc_ids[j], starts[j], ends[j], score)
                   for rank, (j, score) in enumerate(retriever.scored(Question.of(question, pool.table), pool, k), 1))
    where = None
    if quote is not None:
        split = [(a, b) for d, a, b in zip(doc_ids, starts, ends) if d == quote.doc]
        where = landing(quote, chunks, split)
    return Asked(str(spec), str(retriever.spec), k, chunks, where)
