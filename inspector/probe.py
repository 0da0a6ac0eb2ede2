"""The article's lexical probe: 200 queries from figure sentences, BM25 over chunks, answer@k.

A query is the three longest words (six letters or more) of a figure sentence; it is
answered when a top-k chunk of the same document holds the whole sentence, and *cut* when a
top-k chunk overlaps the sentence but none holds it. Scores are computed exactly as the
article's script does (same tokens, same floating-point order, same tie-breaking), but from
each document's tokens found once, so a corpus is tokenised once for every configuration.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass


from .bm25 import BM25, TermTable
from .model import Chunk, Document, Span

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_QUERY_WORD = re.compile(r"[A-Za-z][A-Za-z.+-]+")
QUERY_SEED = 11
QUERY_COUNT = 200


@dataclass(frozen=True, slots=True)
class Query:
    """One probe: words to search for and the evidence sentence that answers it."""

    doc_id: str
    """Document holding the evidence."""

    evidence: Span
    """The figure sentence's span."""

    words: tuple[str, ...]
    """The query terms, in the order they are scored."""

    @property
    def text(self) -> str:
        """The query as one string."""
        return " ".join(self.words)


def make_queries(documents: list[Document], figures: list[tuple[Span, ...]],
                 *, count: int = QUERY_COUNT, seed: int = QUERY_SEED) -> list[Query]:
    """The article's query recipe over every figure sentence, shuffled with its seed."""
    queries = []
    for document, spans in zip(documents, figures):
        for start, end in spans:
            sentence = _LINK.sub(r"\1", document.text[start:end])
            words = [w.lower() for w in _QUERY_WORD.findall(sentence) if len(w) >= 6]
            if len(words) >= 3:
                chosen = sorted(set(words), key=lambda w: (-len(w), w))[:3]
                queries.append(Query(document.id, (start, end), tuple(chosen)))
    random.Random(seed).shuffle(queries)
    return queries[:count]


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """How one configuration answers the probe."""

    queries: int
    """Number of queries asked."""

    answered: int
    """Queries with a top-k chunk holding the whole evidence."""

    cut: int
    """Queries not answered where a top-k chunk overlaps the evidence."""

    context_chars: float
    """Mean characters of the top-k chunks per query (prefixes included)."""

    context_tokens: float
    """Mean tokens of the top-k chunks per query (characters / 4 in seed mode)."""

    picked: tuple[tuple[int, ...], ...] = ()
    """For each query, the positions (in the chunk list given) of its top-k chunks, best first."""

    @property
    def answer_rate(self) -> float:
        """answer@k as a fraction."""
        return self.answered / self.queries if self.queries else 0.0

    @property
    def cut_rate(self) -> float:
        """Cut rate as a fraction."""
        return self.cut / self.queries if self.queries else 0.0

    @property
    def miss_rate(self) -> float:
        """Rank-miss rate: no top-k chunk touches the evidence."""
        return 1.0 - self.answer_rate - self.cut_rate if self.queries else 0.0


def run_probe(queries: list[Query], chunks: list[Chunk], table: TermTable,
              *, k: int = 5, token_count=None) -> ProbeResult:
    """BM25 (k1 = 1.2, b = 0.75) over ``chunks`` for every query; top ``k`` judged by span.

    ``chunks`` must be in corpus order. ``token_count`` (a function of a list of strings)
    gives context tokens; without it they are characters / 4, as the article prints them.
    """
    n = len(chunks)
    if not queries or not n:
        return ProbeResult(len(queries), 0, 0, 0.0, 0.0)
    wanted = frozenset(w for q in queries for w in q.words)
    lens, postings = table.postings([(c.doc_id, c.start, c.end, c.prefix) for c in chunks], wanted)
    ranker = BM25(lens, postings)
    answered = cut = 0
    context = 0
    picked: list[list[int]] = []
    for query in queries:
        top = ranker.top(query.words, k)
        picked.append(top)
        context += sum(len(chunks[j].prefix) + chunks[j].end - chunks[j].start for j in top)
        s0, s1 = query.evidence
        whole = touch = False
        for j in top:
            c = chunks[j]
            if c.doc_id == query.doc_id:
                if c.start <= s0 and s1 <= c.end:
                    whole = True
                if not (c.end <= s0 or c.start >= s1):
                    touch = True
        answered += whole
        cut += (not whole) and touch
    chars = context / len(queries)
    if token_count is None:
        tokens = chars / 4
    else:
        texts = {j: chunks[j].prefix + table.texts[chunks[j].doc_id][chunks[j].start:chunks[j].end]
                 for top in picked for j in top}
        order = list(texts)
        counted = dict(zip(order, token_count([texts[j] for j in order])))
        tokens = sum(counted[j] for top in picked for j in top) / len(queries)
    return ProbeResult(len(queries), answered, cut, chars, tokens, tuple(tuple(top) for top in picked))
