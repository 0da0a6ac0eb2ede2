"""Golden sets and question files that ask for unbounded work in a few kilobytes are refused
line by line with their reasons, quickly and in bounded memory (``bench/bench_hostile.py``
times them), and the rest of the set is still scored."""

from __future__ import annotations

import json

import pytest

from inspector import Document
from inspector.limits import MAX_JSON_DEPTH, read_json
from inspector.retrieval.golden_files import MAX_PLACES, MAX_QUESTIONS, load_golden
from inspector.retrieval.questions import load_questions
from tests.support.bombs import common_quote_golden_set, deep_json, letter_golden_set, many_quotes_golden_set

GOOD = {"question": "Can a review outcome be appealed twice?", "evidence": "The outcome is final for that cycle."}


def test_the_32_kb_letter_set_is_refused_line_by_line_without_searching(sample_markdown):
    data = letter_golden_set(1_000) + (json.dumps(GOOD) + "\n").encode()
    assert 30_000 < len(data) < 40_000
    golden = load_golden(data, sample_markdown, name="letters.jsonl")
    assert {p.kind for p in golden.problems} == {"too-short"} and len(golden.problems) == 1_000
    assert "too short to be evidence" in golden.problems[0].message
    assert [item.line for item in golden.items] == [1_001]


def test_ten_thousand_letters_and_beyond_stop_at_the_question_cap(sample_markdown):
    golden = load_golden(letter_golden_set(MAX_QUESTIONS + 5), sample_markdown, name="letters.jsonl")
    assert len(golden.problems) == MAX_QUESTIONS + 1
    assert golden.problems[-1].kind == "too-many" and golden.problems[-1].line == MAX_QUESTIONS + 1
    assert golden.problems[-1].message.startswith("more than 10,000 questions")


def test_nine_hundred_thousand_quotes_in_one_question_are_refused(sample_markdown):
    golden = load_golden(many_quotes_golden_set(900_000), sample_markdown, name="quotes.jsonl")
    assert golden.items == () and [p.kind for p in golden.problems] == ["too-many"]
    assert "more than 20,000 quotes in all" in golden.problems[0].message


def test_a_quote_found_everywhere_is_too_common_and_the_search_stops(monkeypatch):
    from inspector.retrieval import golden_files

    searched = []
    locate = golden_files.locate
    monkeypatch.setattr(golden_files, "locate", lambda *a, **k: searched.append(found := locate(*a, **k)) or found)
    pages = [Document(f"copy{n}.md", "A line every page repeats.\n" * 30) for n in range(5)]
    golden = load_golden(common_quote_golden_set("A line every page repeats.", 20), pages, name="common.jsonl")
    assert golden.items == () and {p.kind for p in golden.problems} == {"too-common"}
    assert "more than 100 places" in golden.problems[0].message
    assert all(len(found) == MAX_PLACES + 1 for found, _ in searched)


@pytest.mark.parametrize("loader", [load_golden, load_questions])
def test_json_nested_beyond_the_bound_is_one_line_left_out(loader, sample_markdown):
    data = deep_json(100_000) + (json.dumps(GOOD) + "\n").encode()
    corpus = (sample_markdown,) if loader is load_golden else ()
    found = loader(data, *corpus, name="deep.jsonl")
    assert len(found.items) == 1
    assert f"nested more than {MAX_JSON_DEPTH} levels deep" in found.problems[0].message


def test_the_json_reader_refuses_what_it_cannot_compute_with():
    for text, reason in (("[NaN]", "NaN is not a number"), ('{"end_index": Infinity}', "Infinity is not"),
                         ("[1e999]", "out of range"), ("[" + "9" * 400 + "]", "400 digits"),
                         ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "nested")):
        with pytest.raises(ValueError, match=reason):
            read_json(text)
    # Brackets inside strings are text, not nesting; the bound itself is allowed.
    assert read_json('["' + "[" * 1000 + '"]') == ["[" * 1000]
    assert read_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None


def test_a_chroma_csv_with_an_offset_of_infinity_is_one_line_left_out(sample_markdown):
    quote = "The outcome is final for that cycle."
    rows = ["question,references,corpus_id",
            '"Final?","[{""content"": ""' + quote + '"", ""start_index"": 0, ""end_index"": Infinity}]",'
            "performance-reviews",
            '"Final again?","[{""content"": ""' + quote + '""}]",performance-reviews']
    golden = load_golden("\n".join(rows).encode(), sample_markdown, name="questions_df.csv")
    assert [item.line for item in golden.items] == [3]
    (problem,) = golden.problems
    assert problem.line == 2 and "Infinity is not a number to compute with" in problem.message
