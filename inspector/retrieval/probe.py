"""The article's lexical probe: 200 queries from figure sentences, BM25 over chunks, answer@k.

A query is the three longest words (six letters or more) of a figure sentence; with
``scripts`` (the default mode), words of any alphabet count, and a sentence in Chinese,
Japanese or Korean, which has no such words, gives its rarest bigrams (fewest occurrences in
its document, none overlapping another, those without hiragana or a Chinese function
character first) after its long words, if any. On English text the
queries are the article's. It is
answered when a top-k chunk of the same document holds the whole sentence, and *cut* when a
top-k chunk overlaps the sentence but none holds it. Scores are computed exactly as the
article's script does (same tokens, same floating-point order, same tie-breaking), but from
each document's tokens found once, so a corpus is tokenised once for every configuration.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from ..model import Chunk, Document, Span
from .scripts import BIGRAM_CHARACTERS, bigrams, lower

if TYPE_CHECKING:
    from .ranking import Pool, Retriever
    from .terms import TermTable

# numpy and the term table load when a probe runs: choosing queries, which forked analysis
# workers do before the engine is imported, needs neither.

_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_QUERY_WORD = re.compile(r"[A-Za-z][A-Za-z.+-]+")
# The article keeps the words of _QUERY_WORD that have six characters or more. A match of this
# pattern is exactly such a word: it can only start where a word starts (inside a word, every
# later start leaves a shorter tail) and, being greedy, runs to the word's end.
_LONG_WORD = re.compile(r"[A-Za-z][A-Za-z.+-]{5,}")
# The same in every alphabet (on ASCII text, exactly the same words).
_SCRIPT_LETTER = rf"(?![{BIGRAM_CHARACTERS}])[^\W\d_]"
_LONG_SCRIPT_WORD = re.compile(rf"{_SCRIPT_LETTER}(?:{_SCRIPT_LETTER}|[.+\-]){{5,}}")
_FUNCTION_CHARACTERS = frozenset("的了是在和与或也就都而及个这那之于为对从把被让给到有中等吗呢吧")
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
                 *, count: int = QUERY_COUNT, seed: int = QUERY_SEED, scripts: bool = False) -> list[Query]:
    """The article's query recipe over every figure sentence, shuffled with its seed."""
    return choose_queries(documents, [query_candidates(d, spans, scripts) for d, spans in zip(documents, figures)],
                          count=count, seed=seed, scripts=scripts)


def query_candidates(document: Document, figures: tuple[Span, ...], scripts: bool = False) -> list[Span]:
    """The spans of one document's figure sentences that make a query (three long words or more,
    bigrams counting as words with ``scripts``)."""
    text = document.text
    return [span for span in figures if len(_query_words(text, span, scripts)) >= 3]


def _visible(text: str, span: Span) -> str:
    start, end = span
    if text.find("](", start, end) >= 0:  # a link's text stays, its target goes
        return _LINK.sub(r"\1", text[start:end])
    return text[start:end]


def _query_words(text: str, span: Span, scripts: bool = False) -> list[str]:
    if not scripts:
        start, end = span
        if text.find("](", start, end) >= 0:
            return _LONG_WORD.findall(_visible(text, span))
        return _LONG_WORD.findall(text, start, end)
    visible = _visible(text, span)
    words = script_words(visible)
    return words if visible.isascii() else words + [term for _, term in bigrams(visible)]


def script_words(visible: str) -> list[str]:
    """``_LONG_SCRIPT_WORD``'s words of ``visible``: on ASCII text they are ``_LONG_WORD``'s,
    found four times as fast (no lookahead at each letter); every figure sentence of a corpus
    is read so while it is read."""
    return _LONG_WORD.findall(visible) if visible.isascii() else _LONG_SCRIPT_WORD.findall(visible)


def chosen_words(text: str, span: Span, scripts: bool) -> tuple[str, ...]:
    """The three query words of a figure sentence: its longest words, then its rarest bigrams."""
    if not scripts:
        return tuple(sorted({w.lower() for w in _query_words(text, span)}, key=lambda w: (-len(w), w))[:3])
    visible = _visible(text, span)
    chosen = sorted({lower(w) for w in script_words(visible)}, key=lambda w: (-len(w), w))[:3]
    found = bigrams(visible) if len(chosen) < 3 and not visible.isascii() else []
    counts = {term: text.count(term) for _, term in found}
    taken: set[int] = set()
    # Hiragana and Chinese function characters mostly write grammar, not the subject: bigrams
    # holding one come after the others.
    weak = {term: any(ch in _FUNCTION_CHARACTERS or "\u3040" <= ch <= "\u309f" for ch in term) for _, term in found}
    for at, term in sorted(found, key=lambda found_at: (weak[found_at[1]], counts[found_at[1]], found_at[0])):
        if len(chosen) == 3:
            break
        if term not in chosen and at not in taken and at + len(term) - 1 not in taken:
            chosen.append(term)
            taken.update(range(at, at + len(term)))
    return tuple(chosen)


def choose_queries(documents: list[Document], candidates: list[list[Span]], *, count: int = QUERY_COUNT,
                   seed: int = QUERY_SEED, scripts: bool = False) -> list[Query]:
    """The queries the article draws from every candidate of a corpus (``candidates[i]``: the
    spans of ``documents[i]``), in the article's order."""
    return [Query(documents[doc].id, span, chosen_words(documents[doc].text, span, scripts))
            for doc, span in drawn(candidates, count=count, seed=seed)]


def drawn(candidates: Sequence[Sequence[Span]], *, count: int = QUERY_COUNT,
          seed: int = QUERY_SEED) -> list[tuple[int, Span]]:
    """``(document position, span)`` of the candidates the article's draw keeps, in its order."""
    # A shuffle's permutation depends only on the list's length, so shuffling positions and
    # finding the words of only the queries kept gives the article's queries in its order,
    # without holding every candidate's words.
    ends = list(accumulate(len(spans) for spans in candidates))
    order = list(range(ends[-1] if ends else 0))
    random.Random(seed).shuffle(order)
    out = []
    for position in order[:count]:
        doc = bisect_right(ends, position)
        out.append((doc, candidates[doc][position - (ends[doc - 1] if doc else 0)]))
    return out


MISSED, CUT, ANSWERED = 0, 1, 2
"""What a query's top k did with its evidence: missed it, cut it, or held it whole."""


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

    expand: int = 0
    """Neighbours read on each side of every top-k chunk (``expansion.Windows``); context
    counts each chunk read once."""

    outcomes: bytes = b""
    """For each query, in order: ``ANSWERED``, ``CUT`` or ``MISSED`` (what paired tests compare)."""

    tokens: tuple[float, ...] = ()
    """For each query, the tokens of what it read (characters / 4 in seed mode)."""

    def hits(self) -> list[int]:
        """1 for each query answered, 0 otherwise, in query order."""
        return [int(o == ANSWERED) for o in self.outcomes]

    def cuts(self) -> list[int]:
        """1 for each query cut (not answered, evidence touched), 0 otherwise."""
        return [int(o == CUT) for o in self.outcomes]

    @property
    def answer_rate(self) -> float | None:
        """answer@k as a fraction; None when no query was drawn (nothing was asked)."""
        return self.answered / self.queries if self.queries else None

    @property
    def cut_rate(self) -> float | None:
        """Cut rate as a fraction (None: no query)."""
        return self.cut / self.queries if self.queries else None

    @property
    def miss_rate(self) -> float | None:
        """Rank-miss rate: no top-k chunk touches the evidence (None: no query)."""
        return 1.0 - self.answered / self.queries - self.cut / self.queries if self.queries else None


def run_probe(queries: list[Query], chunks: list[Chunk], table: TermTable,
              *, k: int = 5, token_count=None, retriever: Retriever | None = None) -> ProbeResult:
    """Rank ``chunks`` for every query (BM25, k1 = 1.2, b = 0.75, unless ``retriever`` says
    otherwise); the top ``k`` are judged by span.

    ``chunks`` must be in corpus order. ``token_count`` (a function of a list of strings)
    gives context tokens; without it they are characters / 4, as the article prints them.
    """
    from .ranking import Pool

    return probe_pool(queries, Pool.of_chunks(chunks, table), k=k, token_count=token_count, retriever=retriever)


def probe_pool(queries: list[Query], pool: Pool, *, k: int = 5, token_count=None,
               retriever: Retriever | None = None, expand: int = 0) -> ProbeResult:
    """``run_probe`` for chunks given as a ``ranking.Pool``; with ``expand``, each top-k
    chunk is read with that many neighbours either side (retrieve small, read big)."""
    from .expansion import Windows
    from .ranking import BM25Retriever

    n = len(pool)
    if not queries or not n:
        return ProbeResult(len(queries), 0, 0, 0.0, 0.0, expand=expand)
    picked = (retriever or BM25Retriever()).rank(queries, pool, k)
    windows = Windows.of_pool(pool, expand) if expand else None
    reads = [windows.read(top) for top in picked] if windows else picked
    doc_ids, table, prefixes = pool.doc_ids, pool.table, pool.prefixes
    used = sorted({j for read in reads for j in read})
    chunks = {j: Read(d, a, b, prefixes[j] if prefixes is not None else "") for j, d, a, b in
              zip(used, pool.doc_of[used].tolist(), pool.starts[used].tolist(), pool.ends[used].tolist())}
    tokens = None
    if token_count is not None:
        order = list(chunks)
        texts = [chunks[j].prefix + table.texts[doc_ids[chunks[j].doc]][chunks[j].start:chunks[j].end] for j in order]
        tokens = dict(zip(order, token_count(texts)))
    position = {d: i for i, d in enumerate(doc_ids)}
    return judge(queries, picked, reads, chunks, [position.get(q.doc_id, -1) for q in queries], tokens,
                 windows.holds if windows else None, expand)


@dataclass(frozen=True, slots=True)
class Read:
    """A chunk the probe read: its document's position, its span and its prefix."""

    doc: int
    start: int
    end: int
    prefix: str = ""


def judge(queries: list[Query], picked: list[list[int]], reads: list[list[int]], chunks: dict[int, Read],
          homes: list[int], tokens: dict[int, int] | None = None, holds=None, expand: int = 0) -> ProbeResult:
    """The probe's result from what was ranked: ``picked[i]`` query ``i``'s top k and
    ``reads[i]`` every chunk read for it (``chunks`` tells each), ``homes[i]`` the position of
    the document holding its evidence; ``tokens`` each read chunk's tokens (None: characters / 4);
    ``holds(j, start, end)`` whether hit ``j``'s neighbour window holds a span whole."""
    answered = cut = context = 0
    outcomes = bytearray()
    per_query = []
    for query, top, read, home in zip(queries, picked, reads, homes):
        chars = sum(len(chunks[j].prefix) + chunks[j].end - chunks[j].start for j in read)
        context += chars
        per_query.append(chars / 4 if tokens is None else sum(tokens[j] for j in read))
        s0, s1 = query.evidence
        whole = touch = False
        for j in read:
            chunk = chunks[j]
            if chunk.doc == home:
                if chunk.start <= s0 and s1 <= chunk.end:
                    whole = True
                if not (chunk.end <= s0 or chunk.start >= s1):
                    touch = True
        if holds is not None and not whole:
            whole = any(chunks[j].doc == home and holds(j, s0, s1) for j in top)
        answered += whole
        cut += (not whole) and touch
        outcomes.append(ANSWERED if whole else CUT if touch else MISSED)
    chars = context / len(queries)
    counted = chars / 4 if tokens is None else sum(per_query) / len(queries)
    return ProbeResult(len(queries), answered, cut, chars, counted, tuple(tuple(top) for top in picked), expand,
                       bytes(outcomes), tuple(per_query))
