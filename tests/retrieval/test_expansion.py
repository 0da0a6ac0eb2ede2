"""``inspector.retrieval.expansion`` and the measures read through it: each retrieved chunk
read with its ±w neighbours in its own document (retrieve small, read big)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import Chunk, Document
from inspector.retrieval.expansion import Windows
from inspector.retrieval.golden import evaluate_golden, golden_recall
from inspector.retrieval.golden_files import load_golden
from inspector.retrieval.terms import TermTable
from tests.support.paths import SAMPLE


def test_windows_stay_inside_their_document():
    # Two documents: chunks 0-2 of the first, 3-4 of the second.
    windows = Windows([0, 0, 0, 1, 1], [0, 10, 20, 0, 7], [10, 20, 30, 7, 15], 1)
    assert [list(windows.window(j)) for j in range(5)] == [[0, 1], [0, 1, 2], [1, 2], [3, 4], [3, 4]]
    assert (windows.read_start[2], windows.read_end[2]) == (10, 30)
    assert windows.holds(1, 5, 25) and not windows.holds(0, 5, 25)
    assert windows.read([2, 0, 3]) == [0, 1, 2, 3, 4]
    assert [list(Windows([0, 0, 0], [0, 1, 2], [1, 2, 3], 5).window(j)) for j in range(3)] == [[0, 1, 2]] * 3
    with pytest.raises(ValueError, match="zero or more"):
        Windows([0], [0], [1], -1)


@given(docs=st.lists(st.integers(1, 6), min_size=1, max_size=6), width=st.integers(0, 4), data=st.data())
def test_a_window_is_the_hit_and_its_neighbours_in_one_document(docs, width, data):
    doc_of = [d for d, n in enumerate(docs) for _ in range(n)]
    starts = [10 * i for d, n in enumerate(docs) for i in range(n)]
    ends = [s + 10 for s in starts]
    windows = Windows(doc_of, starts, ends, width)
    j = data.draw(st.integers(0, len(doc_of) - 1))
    window = list(windows.window(j))
    assert j in window and len(window) <= 2 * width + 1
    assert all(doc_of[p] == doc_of[j] and abs(p - j) <= width for p in window)
    same = [p for p in range(len(doc_of)) if doc_of[p] == doc_of[j] and abs(p - j) <= width]
    assert window == same
    assert (windows.read_start[j], windows.read_end[j]) == (starts[window[0]], ends[window[-1]])


DOC = Document("notes/a.md", (
    "# Ports\n\n"
    "The admin listener binds port 7440 on loopback only.\n\n"
    "Unrelated filler about gardens, weather and the price of tea in several towns.\n\n"
    "The replication listener uses port 7430 between nodes of one cluster.\n"))


def test_a_cut_quote_is_read_whole_by_a_window_and_each_chunk_is_paid_once():
    text = DOC.text
    admin = "The admin listener binds port 7440 on loopback only."
    a0 = text.index(admin)
    middle = a0 + 20
    chunks = [Chunk(DOC.id, 0, 0, middle), Chunk(DOC.id, 1, middle, len(text))]
    golden = load_golden(("\n".join(json.dumps(r) for r in [
        {"question": "Which port does the admin listener bind?", "evidence": admin}]) + "\n").encode(), [DOC])
    table = TermTable([(DOC.id, text)])
    plain = evaluate_golden(golden, chunks, table, budgets=(10_000,), length="chars")
    read = evaluate_golden(golden, chunks, table, budgets=(len(text) - 1, len(text)), length="chars", expand=1)
    assert plain.questions[0].outcomes == ("cut",)
    (q,) = read.questions
    assert q.outcomes == ("rank-miss", "hit"), "the window costs both chunks, once"
    assert (q.rank, q.tokens_needed) == (1, len(text))
    assert read.expand == 1 and read.as_dict()["expand"] == 1


@pytest.fixture(scope="module")
def sample_golden(sample_markdown):
    return load_golden(SAMPLE / "golden-questions.jsonl", sample_markdown)


def test_reading_neighbours_raises_answers_and_costs_context_on_the_sample_corpus(sample_markdown, sample_golden):
    plain, read = sample_markdown.probe("fixed:800"), sample_markdown.probe("fixed:800", expand=1)
    assert read.answered > plain.answered and read.cut < plain.cut
    assert read.context_tokens > 2 * plain.context_tokens
    assert read.picked == plain.picked, "the ranking is the same; only what is read grows"
    assert (read.expand, plain.expand) == (1, 0)
    assert golden_recall(sample_markdown, sample_golden, "fixed:800", expand=1).recall(4000) > \
        golden_recall(sample_markdown, sample_golden, "fixed:800").recall(4000)


def test_the_expanded_spans_are_the_neighbours_of_each_hit(sample_markdown):
    pool = sample_markdown.pool("fixed:800")
    windows = Windows.of_pool(pool, 1)
    doc_of = pool.doc_of.tolist()
    for top in sample_markdown.probe("fixed:800").picked[:20]:
        for j in top:
            window = list(windows.window(j))
            assert window == [p for p in (j - 1, j, j + 1) if 0 <= p < len(doc_of) and doc_of[p] == doc_of[j]]
            assert windows.read_start[j] == int(pool.starts[window[0]])
            assert windows.read_end[j] == int(pool.ends[window[-1]])
