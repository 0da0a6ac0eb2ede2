"""The one CSV writer: a cell a spreadsheet would run as a formula is written as text, numbers
stay numbers, and what is read back is what was written (but the apostrophe)."""

from __future__ import annotations

import csv
import io
import math

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from inspector.csv_cells import FORMULA_STARTS, csv_cell, csv_text, frame_csv
from tests.support.spreadsheet import formulas, opened

HOSTILE = ["=cmd|' -c calc'!A0.md", '=HYPERLINK("http://127.0.0.1:9/x","click")', "+SUM(1,2)", "-2+3", "@SUM(A1)",
           "\t=1+1", "\r=1+1", "plain text"]


def test_formulas_become_text_and_numbers_stay_numbers():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("@x") == "'@x" and csv_cell("\t=1") == "'\t=1"
    assert csv_cell(-5) == "-5" and csv_cell(-0.25) == "-0.25" and csv_cell(None) == "" and csv_cell(math.nan) == ""
    assert csv_cell(pd.NA) == "" and csv_cell(True) == "True" and csv_cell("a=b") == "a=b"


@given(st.lists(st.one_of(st.text(max_size=30), st.integers(), st.floats(allow_nan=False)), min_size=1, max_size=6))
def test_a_row_reads_back_as_written_and_no_text_cell_starts_a_formula(row):
    (read,) = list(csv.reader(io.StringIO(csv_text(["h"] * len(row), [row]), newline="")))[1:]
    for cell, value in zip(read, row):
        if isinstance(value, str):
            assert not cell.startswith(FORMULA_STARTS)
            assert cell.removeprefix("'") == value if value.startswith(FORMULA_STARTS) else cell == value
        else:
            assert cell == str(value)


def test_a_spreadsheet_opening_the_file_finds_no_formula_and_the_numbers():
    frame = pd.DataFrame({"doc": HOSTILE, "tokens": [-5, 0, 3, 7, -1, 2, 9, 11], "rate": [0.25] * 8})
    read = opened({"neutralised.csv": frame_csv(frame), "as pandas writes it.csv": frame.to_csv(index=False)})
    assert formulas(read["as pandas writes it.csv"]), "the check sees a formula where one is written"
    sheet = read["neutralised.csv"]
    assert formulas(sheet) == []
    assert [value for value, _ in sheet[0]] == ["doc", "tokens", "rate"]
    assert [(row[1], row[2]) for row in sheet[1:]] == [((v, "n"), (0.25, "n")) for v in frame["tokens"]]


def test_every_csv_the_project_writes_goes_through_the_one_writer():
    import re

    from tests.support.paths import ROOT

    writers = re.compile(r"\.to_csv\(|csv\.writer\(|csv\.DictWriter\(")
    found = [f"{path.relative_to(ROOT)}:{number}" for folder in ("inspector", "app_pages", "bench")
             for path in sorted((ROOT / folder).rglob("*.py")) if path.name != "csv_cells.py"
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if writers.search(line)]
    assert found == [], "write CSV with inspector.csv_cells"
