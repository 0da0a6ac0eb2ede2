"""``measure.asked``: one question asked live of a split, its chunks' spans and scores, and
where a quote lands among them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import Workspace, load_corpus
from inspector.errors import QuestionsError
from inspector.measure.asked import AskedChunk, QuoteSpan, ask_question, find_quote, landing, question_problem
from inspector.model import Document
from inspector.retrieval.ranking import Question
from tests.support.paths import SAMPLE

SINGAPORE = "Singapore | 11 | next working day | Lunar New Year eve (half)"
HOLIDAYS = "How many public holidays does the Singapore office observe in 2026?"


@pytest.fixture(scope="module")
def workspace():
    return Workspace(load_corpus(SAMPLE))


def test_a_table_row_cut_by_one_splitter_is_whole_in_the_other(workspace):
    quote = find_quote(workspace.documents, SINGAPORE)
    cut = ask_question(workspace, "fixed:300", HOLIDAYS, quote=quote)
    whole = ask_question(workspace, "structured:800", HOLIDAYS, quote=quote)
    assert cut.quote.status == "cut" and cut.quote.in_split == "cut"
    assert whole.quote.status == "whole" and whole.quote.chunks == (1,)
    top = whole.chunks[0]
    assert top.doc == quote.doc and top.start <= quote.start and quote.end <= top.end
    assert [c.rank for c in cut.chunks] == [1, 2, 3, 4, 5]
    assert whole.as_dict()["quote"] == {"status": "whole", "chunks": [1], "in_split": "whole"}


@pytest.mark.parametrize("retriever", ["bm25", "dense", "hybrid"])
def test_the_chunks_are_the_ones_the_retriever_ranks_best_first(workspace, retriever):
    ranker = workspace.retriever(retriever)
    pool = workspace.pool("structured:800")
    asked = ask_question(workspace, "structured:800", HOLIDAYS, retriever=ranker, k=7)
    ranked = ranker.rank([Question.of(HOLIDAYS, pool.table)], pool, 7)[0]
    assert [(c.doc, c.start, c.end) for c in asked.chunks] == [
        (pool.doc_ids[pool.doc_of[j]], int(pool.starts[j]), int(pool.ends[j])) for j in ranked]
    scores = [c.score for c in asked.chunks]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)


def test_a_quote_is_found_across_other_whitespace_and_refused_when_nowhere():
    documents = [Document("a.md", "One line.\n\nThe answer is\n  forty two.\n")]
    assert find_quote(documents, "The answer is forty two.") == QuoteSpan("a.md", 11, 37)
    for quote, message in (("", "empty"), ("   ", "empty"), ("forty three", "in no document"),
                           ("x" * 5_001, "at most 5,000")):
        with pytest.raises(QuestionsError, match=message):
            find_quote(documents, quote)


@pytest.mark.parametrize("question, message", [
    ("", "empty"), ("  \n", "empty"), ("?!…", "no word"), ("a" * 100_000, "at most 2,000 characters")])
def test_a_question_that_cannot_be_asked_says_why(workspace, question, message):
    assert message in question_problem(question)
    with pytest.raises(QuestionsError, match=message):
        ask_question(workspace, "structured:800", question)


@pytest.mark.parametrize("k", [0, -1, 101, 100_000, True, 2.5])
def test_k_outside_one_to_a_hundred_is_refused(workspace, k):
    with pytest.raises(QuestionsError, match="from 1 to 100"):
        ask_question(workspace, "structured:800", HOLIDAYS, k=k)


@st.composite
def _split_and_quote(draw):
    length = draw(st.integers(5, 60))
    cuts = sorted(draw(st.sets(st.integers(1, length - 1), max_size=8)))
    bounds = [0, *cuts, length]
    split = list(zip(bounds, bounds[1:]))
    start = draw(st.integers(0, length - 1))
    quote = QuoteSpan("d", start, draw(st.integers(start + 1, length)))
    ranked = draw(st.permutations(range(len(split))))[:draw(st.integers(0, len(split)))]
    retrieved = [AskedChunk(rank, "d", *split[j], None) for rank, j in enumerate(ranked, 1)]
    return split, quote, retrieved


@given(_split_and_quote())
def test_a_landing_says_exactly_how_the_retrieved_chunks_hold_the_quote(case):
    split, quote, retrieved = case
    found = landing(quote, retrieved, split)
    holds = [c.rank for c in retrieved if c.start <= quote.start and quote.end <= c.end]
    touches = [c.rank for c in retrieved if c.start < quote.end and quote.start < c.end]
    assert found.in_split == ("whole" if any(a <= quote.start and quote.end <= b for a, b in split) else "cut")
    if holds:
        assert found.status == "whole" and found.chunks == (holds[0],)
    elif touches:
        assert found.status == "cut" and found.chunks == tuple(touches) and found.in_split == "cut"
    else:
        assert found.status == "missing" and found.chunks == ()
    other = landing(quote, [AskedChunk(c.rank, "e", c.start, c.end, None) for c in retrieved], split)
    assert other.status == "missing", "a chunk of another document holds nothing of the quote"
