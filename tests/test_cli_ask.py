"""``chunk-inspector ask``: one question asked of several splitters on the bundled corpus, its
JSON, its text, and one line with exit 2 for every input it cannot take."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from tests.support.paths import SAMPLE

HOLIDAYS = "How many public holidays does the Singapore office observe in 2026?"
SINGAPORE = "Singapore | 11 | next working day | Lunar New Year eve (half)"


def test_the_json_says_which_splitter_cut_the_row_and_which_kept_it_whole(capsys):
    assert main(["ask", str(SAMPLE), HOLIDAYS, "--spec", "fixed:300", "--spec", "structured:800",
                 "--quote", SINGAPORE, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    fixed, structured = out["results"]
    assert (fixed["spec"], structured["spec"]) == ("fixed:300", "structured:800")
    assert fixed["quote"]["status"] == "cut" and structured["quote"] == {"status": "whole", "chunks": [1],
                                                                           "in_split": "whole"}
    assert out["quote"]["doc"] == "handbook/leave-policy.md" and out["retriever"] == "bm25" and out["k"] == 5
    top = structured["chunks"][0]
    assert set(top) == {"rank", "doc", "start", "end", "score"} and top["rank"] == 1
    assert top["start"] <= out["quote"]["start"] < out["quote"]["end"] <= top["end"]
    text = (SAMPLE / top["doc"]).read_text(encoding="utf-8")
    assert SINGAPORE in text[top["start"]:top["end"]] or top["doc"] != "handbook/leave-policy.md"


def test_the_text_names_each_splitter_its_landing_and_its_chunks(capsys):
    assert main(["ask", str(SAMPLE), HOLIDAYS, "--spec", "fixed:300", "--spec", "structured:800",
                 "--quote", SINGAPORE, "-k", "3"]) == 0
    out = capsys.readouterr().out
    assert "fixed:300: the quote is cut: chunk 1 holds only part of it" in out
    assert "structured:800: the quote is whole in chunk 1" in out
    assert out.count("handbook/leave-policy.md [") >= 2 and "top 3 by bm25" in out


@pytest.mark.parametrize("args, message", [
    (["", ], "the question is empty"),
    (["?!…"], "the question has no word to search for"),
    (["a" * 100_000], "a question is at most 2,000 characters (this one has 100,000)"),
    ([HOLIDAYS, "-k", "0"], "-k is a whole number from 1 to 100, got 0"),
    ([HOLIDAYS, "-k", "100000"], "-k is a whole number from 1 to 100, got 100000"),
    ([HOLIDAYS, "--quote", "words found in no document zzz"], "is in no document of the corpus"),
    ([HOLIDAYS, "--quote", "  "], "the quote is empty"),
    ([HOLIDAYS, "--spec", "fixed:0"], "budget must be a positive whole number, got 0"),
    ([HOLIDAYS, "--expand", "1"], "leave out --expand"),
])
def test_what_it_cannot_take_is_one_line_and_exit_2(capsys, args, message):
    assert main(["ask", str(SAMPLE), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
