"""``inspector.retrieval.terms``: the term index finds what the article's regex finds."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from inspector import Chunk, Document
from inspector.retrieval.terms import TermTable, term_runs, terms_of
from tests.support.strategies import FAST, markdown_document, seed_text

TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*")


@FAST
@given(texts=st.lists(st.one_of(seed_text(), markdown_document()), min_size=1, max_size=3),
       extra=st.lists(st.sampled_from(["abcd", "abxd", "ab.c", "foo-bar", "Foo", "é", "a", "alpha", "x" * 30]),
                      max_size=5))
def test_selected_occurrences_are_every_equal_term(texts, extra):
    table = TermTable((f"d{i}", t) for i, t in enumerate(texts))
    joined = "\n".join(texts)
    terms = [(a, b) for a, b in zip(table.starts.tolist(), table.ends.tolist())]
    wanted = frozenset(extra) | frozenset(w for w in terms_of(joined)[:8])
    positions, word_ids, vocabulary = table.select(wanted)
    expected = [(i, vocabulary.index(joined[a:b].lower())) for i, (a, b) in enumerate(terms)
                if joined[a:b].lower() in wanted]
    assert list(zip(positions.tolist(), word_ids.tolist())) == expected


def test_term_runs_match_the_regex():
    text = "..a.b+c -x 3.14 ++ Foo-Bar. émigré v4.2, end."
    starts, ends = term_runs(text)
    assert [text[a:b] for a, b in zip(starts, ends)] == TERM.findall(text)


def test_prefix_words_are_searchable():
    doc = Document("a.md", "| x | 1 |\n")
    chunk = Chunk("a.md", 0, 0, len(doc.text), prefix="Ports > Firewall\n")
    table = TermTable([(doc.id, doc.text)])
    lens, postings = table.postings([(chunk.doc_id, chunk.start, chunk.end, chunk.prefix)], frozenset({"firewall"}))
    assert lens.tolist() == [4]
    assert postings["firewall"][1].tolist() == [1.0]


@FAST
@given(texts=st.lists(st.one_of(seed_text(), markdown_document(),
                                st.text(alphabet="ab.+-1 é\n", max_size=60)), min_size=1, max_size=3),
       cuts=st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1), st.floats(0, 1),
                               st.sampled_from(["", "A > B\n", "x-1 ", "é"])), min_size=1, max_size=12),
       extra=st.lists(st.sampled_from(["ab", "a", "b.a", "1", "-b", "a+b", "ab.1", "x-1"]), max_size=4))
def test_span_postings_count_the_terms_the_regex_finds_in_each_span(texts, cuts, extra):
    """Every chunk's length is the regex's term count of its prefix and its slice (terms cut by
    the span count as the pieces left), and each wanted word's postings are its frequencies."""
    table = TermTable((f"d{i}", t) for i, t in enumerate(texts))
    spans = []
    for doc, x, y, prefix in cuts:
        text = texts[doc % len(texts)]
        a, b = sorted((round(x * len(text)), round(y * len(text))))
        spans.append((f"d{doc % len(texts)}", a, b, prefix))
    expected = [terms_of(prefix) + terms_of(texts[int(d[1:])][a:b]) for d, a, b, prefix in spans]
    wanted = frozenset(extra) | frozenset(w for terms in expected for w in terms[:2])
    lens, postings = table.postings(spans, wanted)
    assert lens.tolist() == [len(terms) for terms in expected]
    base = np.array([table.base[d] + a for d, a, _, _ in spans], dtype=np.int64)
    stop_at = np.array([table.base[d] + b for d, _, b, _ in spans], dtype=np.int64)
    for part in (1, 5):  # chunk by chunk, and in parts of five: the same statistics in the same order
        sliced_lens, sliced = table.span_postings(base, stop_at, [s[3] for s in spans], wanted, part)
        assert sliced_lens.tolist() == lens.tolist() and list(sliced) == list(postings)
        assert all(sliced[w][0].tolist() == postings[w][0].tolist() and sliced[w][1].tolist() == postings[w][1].tolist()
                   for w in postings)
    for word in wanted:
        chunks, tf = postings.get(word, ([], []))
        found = {int(j): float(f) for j, f in zip(chunks, tf)}
        assert found == {j: float(terms.count(word)) for j, terms in enumerate(expected) if word in terms}, word


@FAST
@given(text=st.text(alphabet="ab.+-1 \n?Aé", max_size=80), block=st.integers(1, 9))
def test_terms_found_block_by_block_are_the_regex_terms(text, block):
    starts, ends = term_runs(text, block)  # tiny blocks: every way a block can end happens
    assert [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())] == TERM.findall(text)
