"""The article's exact rules, ``inspector.atoms.seed``: each rule's quirks, and the fast scans
against the plain implementation (``tests.support.reference_seed``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector.atoms.seed import (
    ATX,
    ROW_ATOM,
    analyze_seed,
    matches_at_line_starts,
    seed_fences,
    seed_paragraphs,
    seed_sentences,
    seed_tables,
)
from tests.support import reference_seed as plain
from tests.support.strategies import FAST, markdown_document, seed_text


@FAST
@given(text=st.one_of(seed_text(), markdown_document()))
def test_seed_atoms_are_the_plain_rules(text):
    ours = analyze_seed(text)
    assert list(ours.paragraphs) == plain.paragraphs(text)
    assert list(ours.sentences) == plain.sentences(text)
    assert {k: list(v) for k, v in ours.atoms.items()} == plain.atoms(text)


@FAST
@given(text=seed_text())
def test_line_start_matching_equals_finditer(text):
    for pattern, first in ((ROW_ATOM, "|"), (ATX, "#")):
        assert [m.span() for m in matches_at_line_starts(pattern, text, first)] == \
               [m.span() for m in pattern.finditer(text)]


def test_fence_needs_three_backticks_and_tilde_fences_are_not_code():
    text = "a\n```\ncode\n```\nb\n~~~\nnot code\n~~~\n"
    assert seed_fences(text) == [(2, 15)]


def test_unclosed_fence_is_no_atom():
    assert seed_fences("```\nnever closed\n") == []


def test_table_inside_a_fence_is_still_a_table_in_seed_mode():
    text = "```\n| a | b |\n| 1 | 2 |\n```\n"
    analysis = analyze_seed(text)
    assert analysis.atoms["code"] == ((0, len(text)),)
    assert analysis.atoms["table"] == ((4, 24),)
    assert len(analysis.atoms["row"]) == 2


def test_single_pipe_line_is_a_row_but_not_a_table():
    text = "intro\n| lonely |\nafter\n"
    analysis = analyze_seed(text)
    assert analysis.atoms["table"] == ()
    assert analysis.atoms["row"] == ((6, 16),)


def test_table_at_end_of_text_runs_to_the_end():
    text = "x\n| a |\n| b |"
    assert seed_tables(text) == [(2, len(text))]


def test_paragraphs_split_on_blank_lines_with_spaces():
    # A third newline is not part of the separator, so it opens the next paragraph (a quirk
    # the article's numbers depend on).
    text = "one\n  \ntwo\n\n\nthree"
    assert [text[a:b] for a, b in seed_paragraphs(text)] == ["one", "two", "\nthree"]


def test_sentences_break_before_capitals_digits_quotes_and_parens():
    text = "First one. Second! 3 is a number? (Yes) done. lower case stays."
    got = [text[a:b] for a, b in seed_sentences(text)]
    assert got == ["First one.", "Second!", "3 is a number?", "(Yes) done. lower case stays."]


def test_figure_sentences_need_ten_words_and_a_digit_and_prose():
    text = (
        "This sentence has exactly ten words and one digit: 7.\n\n"
        "This one has nine words and a digit 7.\n\n"
        "| This row has more than ten words and a digit 1 2 3 |\n| x |\n"
    )
    analysis = analyze_seed(text)
    figures = [text[a:b] for a, b in analysis.atoms["num"]]
    assert figures == ["This sentence has exactly ten words and one digit: 7."]


def test_citing_sentences_need_an_inline_link():
    text = "See [docs](https://x.example) for more. See [docs][ref] too.\n\n[ref]: https://x.example\n"
    analysis = analyze_seed(text)
    assert [text[a:b] for a, b in analysis.atoms["cite"]] == ["See [docs](https://x.example) for more."]
