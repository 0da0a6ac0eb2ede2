"""``inspector.retrieval.terms``: the term index finds what the article's regex finds."""

from __future__ import annotations

import re

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
