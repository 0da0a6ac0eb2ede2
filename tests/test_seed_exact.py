"""Seed mode reproduces the article's printed tables to the digit.

``golden/article_script_sample_corpus.txt`` is what the article's own script printed when
pointed at ``sample_corpus/`` (every ``*.md`` below it, in sorted path order). The script
itself is not part of the project; only its output is kept, and every number of every line
must come out the same from our engine.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from inspector import build_report, format_report
from inspector.atoms.seed import analyze_seed, seed_fences, seed_paragraphs, seed_sentences, seed_tables

GOLDEN = Path(__file__).parent / "golden" / "article_script_sample_corpus.txt"


def _numbers(report_text: str) -> list[list[str]]:
    """Each line's numbers, in order (labels differ between the article and us; digits may not)."""
    out = []
    for line in report_text.splitlines():
        found = re.findall(r"\d[\d.,%/]*", line)
        if found:
            out.append(found)
    return out


@pytest.fixture(scope="module")
def seed_report(sample_seed):
    return build_report(sample_seed)


def test_every_printed_number_matches_the_article_script(seed_report):
    ours = format_report(seed_report)
    assert _numbers(ours) == _numbers(GOLDEN.read_text(encoding="utf-8"))


def test_the_golden_file_is_a_full_report():
    numbers = _numbers(GOLDEN.read_text(encoding="utf-8"))
    # corpus, atoms, 4 atom-length rows, header of a (800s), 7 rows of a, header of b, 7 rows of b,
    # 5 sweep rows and the two header-carry lines
    assert len(numbers) >= 2 + 4 + 7 + 7 + 5 + 2


def test_json_fractions_agree_with_the_printed_percentages(seed_report):
    printed = GOLDEN.read_text(encoding="utf-8").splitlines()
    structured = next(line for line in printed if line.startswith("structured 800") and "%" in line)
    row = next(r for r in seed_report["compare"] if r["splitter"] == "structured 800")
    cells = re.findall(r"[\d.]+%", structured)
    expected = [f"{row['survival'][k]:.1%}" for k in ("code", "table", "row", "num", "cite")]
    assert cells == expected


# -- the article's rules, quirks included -----------------------------------------------------

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
