"""``inspector.retrieval.terms``: the term index finds what the article's regex finds."""

from __future__ import annotations

import re
from unittest.mock import patch

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from inspector import Chunk, Document
from inspector.retrieval.article_terms import term_runs
from inspector.retrieval.scripts import BIGRAM_RANGES
from inspector.retrieval.terms import TermTable, terms_of
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
    spans = _spans(texts, cuts)
    expected = [terms_of(prefix) + terms_of(texts[int(d[1:])][a:b]) for d, a, b, prefix in spans]
    wanted, lens, postings = _postings_are_the_counts(table, spans, expected, extra)
    base = np.array([table.base[d] + a for d, a, _, _ in spans], dtype=np.int64)
    stop_at = np.array([table.base[d] + b for d, _, b, _ in spans], dtype=np.int64)
    for part in (1, 5):  # chunk by chunk, and in parts of five: the same statistics in the same order
        sliced_lens, sliced = table.span_postings(base, stop_at, [s[3] for s in spans], wanted, part)
        assert sliced_lens.tolist() == lens.tolist() and list(sliced) == list(postings)
        assert all(sliced[w][0].tolist() == postings[w][0].tolist() and sliced[w][1].tolist() == postings[w][1].tolist()
                   for w in postings)


def _spans(texts: list[str], cuts) -> list[tuple[str, int, int, str]]:
    """``(doc_id, start, end, prefix)`` of each cut: a document and two fractions of its length."""
    spans = []
    for doc, x, y, prefix in cuts:
        text = texts[doc % len(texts)]
        a, b = sorted((round(x * len(text)), round(y * len(text))))
        spans.append((f"d{doc % len(texts)}", a, b, prefix))
    return spans


def _postings_are_the_counts(table, spans, expected, extra):
    """The table's lengths and postings of ``spans`` are the counts of ``expected`` (each span's terms)."""
    wanted = frozenset(extra) | frozenset(w for terms in expected for w in terms[:2])
    lens, postings = table.postings(spans, wanted)
    assert lens.tolist() == [len(terms) for terms in expected]
    for word in wanted:
        chunks, tf = postings.get(word, ([], []))
        found = {int(j): float(f) for j, f in zip(chunks, tf)}
        assert found == {j: float(terms.count(word)) for j, terms in enumerate(expected) if word in terms}, word
    return wanted, lens, postings


@FAST
@given(text=st.text(alphabet="ab.+-1 \n?Aé", max_size=80), block=st.integers(1, 9))
def test_terms_found_block_by_block_are_the_regex_terms(text, block):
    starts, ends = term_runs(text, block)  # tiny blocks: every way a block can end happens
    assert [text[a:b] for a, b in zip(starts.tolist(), ends.tolist())] == TERM.findall(text)


# The terms of every script, by a plain scan: a run of letters, digits and marks (with inner
# . + -) from its first letter or digit; a run of Han, kana or Hangul gives its bigrams.
def _script_class(ch: str) -> int:
    import unicodedata

    cp = ord(ch)
    cjk = any(a <= cp <= b for a, b in BIGRAM_RANGES)  # the data is shared, the scan below is not
    if cjk:
        return 3 if ch.isalnum() or unicodedata.category(ch).startswith("L") else 0
    if ch in ".+-":
        return 1
    return 2 if ch.isalnum() or unicodedata.category(ch) in ("Mn", "Mc") else 0


def _script_terms(text: str) -> list[str]:
    low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    out, i = [], 0
    while i < len(text):
        kind = _script_class(text[i])
        j = i
        same = (1, 2) if kind in (1, 2) else (kind,)
        while j < len(text) and _script_class(text[j]) in same:
            j += 1
        if kind == 3:
            out += [low[i]] if j - i == 1 else [low[k:k + 2] for k in range(i, j - 1)]
        elif kind in (1, 2):
            run = low[i:j]
            lead = next((k for k, c in enumerate(text[i:j]) if _script_class(c) == 2), None)
            if lead is not None:
                out.append(run[lead:])
        i = max(j, i + 1)
    return out


SCRIPTS = "ab.+-1 \nAéÉİ服务器延迟新しいパス서버가Яд\u0301ß"


@FAST
@given(texts=st.lists(st.text(alphabet=SCRIPTS, max_size=50), min_size=1, max_size=3),
       cuts=st.lists(st.tuples(st.integers(0, 2), st.floats(0, 1), st.floats(0, 1),
                               st.sampled_from(["", "服务 > B\n", "x-1 ", "é", "延"])), min_size=1, max_size=12),
       extra=st.lists(st.sampled_from(["服务", "务器", "延", "ab", "é", "яд\u0301", "서버", "a+b"]), max_size=4),
       block=st.sampled_from([1, 40, 1 << 24]))
def test_script_postings_count_the_terms_of_each_span(texts, cuts, extra, block):
    """With ``scripts``, a chunk's length is the term count of its prefix and its slice, a cut
    bigram leaving a term only when its one character stands alone in the chunk; the codes
    words are looked up in are made a block of documents at a time (``block`` characters)."""
    table = TermTable(((f"d{i}", t) for i, t in enumerate(texts)), scripts=True)
    spans = _spans(texts, cuts)
    expected = [_script_terms(prefix) + _script_terms(texts[int(d[1:])][a:b]) for d, a, b, prefix in spans]
    assert [table.terms_of(p) for _, _, _, p in spans] == [_script_terms(p) for _, _, _, p in spans]
    with patch("inspector.retrieval.terms.CODE_BLOCK", block):
        _postings_are_the_counts(table, spans, expected, extra)


def test_script_terms_on_ascii_are_the_articles():
    text = "..a.b+c -x 3.14 ++ Foo-Bar. v4.2, end. e.g. U.S."
    table = TermTable([("a", text)], scripts=True)
    assert table.terms_of(text) == terms_of(text)
    assert table.index().code_type == np.uint8
    assert [text[a:b] for a, b in zip(table.starts.tolist(), table.ends.tolist())] == TERM.findall(text)


def test_german_words_stay_whole_and_chinese_gives_bigrams():
    table = TermTable([("a", "Die Größenplanung: 在 80% 负载下")], scripts=True)
    assert table.terms_of("Die Größenplanung: 在 80% 负载下") == ["die", "größenplanung", "在", "80", "负载", "载下"]
    assert table.index().code_type == np.uint16


def test_the_class_table_is_the_class_of_every_code_point():
    from inspector.retrieval.scripts import class_of
    from inspector.retrieval.unicode_terms import classes

    table = classes()
    assert [int(k) for k in table] == [class_of(cp) for cp in range(0x10000)]


@FAST
@given(text=st.text(alphabet=SCRIPTS + "・ー。", max_size=60))
def test_the_probes_bigrams_are_the_tables_bigrams(text):
    """``scripts.bigrams`` (no numpy, for forked workers) finds the bigram terms the table finds."""
    from inspector.retrieval.scripts import BIGRAM, bigrams, class_of

    table = TermTable([("a", text)], scripts=True)
    found = [(a, text[a:b].lower()) for a, b in zip(table.starts.tolist(), table.ends.tolist())
             if class_of(ord(text[a])) == BIGRAM]
    assert bigrams(text) == found
