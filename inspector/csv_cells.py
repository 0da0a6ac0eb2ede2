"""The one CSV writer of every download and export: cells a spreadsheet would run as a formula
are neutralised, numbers stay numbers.

A document's file name, a chunk's text, a splitter's label or a reviewer's note can start with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return; a spreadsheet opening the file would take
such a cell for a formula (``=HYPERLINK(…)``, ``=cmd|' -c calc'!A0``). Such text is written with
an apostrophe before it, which spreadsheets show as text. Every text cell is quoted, so a
carriage return or a tab inside one cannot start a row or a cell of its own (a spreadsheet takes
a bare carriage return for the end of a row). Only text is touched: a number, even a negative
one, is written unquoted as the number it is.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence

#: What a spreadsheet reads as the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """One cell: nothing (None, NaN, a missing value) blank, text neutralised, anything else as
    ``str`` writes it."""
    if value is None:
        return ""
    if isinstance(value, str):
        return "'" + value if value.startswith(FORMULA_STARTS) else value
    if isinstance(value, float) and math.isnan(value):
        return ""
    try:
        if value != value:  # NaN of numpy, pandas' NA and NaT
            return ""
    except (TypeError, ValueError):  # pandas' NA refuses to say whether it equals itself
        return ""
    return str(value)


def csv_field(value: object) -> str:
    """One cell as it stands in the file: a number or nothing bare, anything else quoted (its
    quotes doubled)."""
    cell = csv_cell(value)
    if not cell or isinstance(value, numbers.Number) and not isinstance(value, bool):
        return cell
    return '"' + cell.replace('"', '""') + '"'


def csv_text(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A header and rows as CSV text (RFC 4180, a newline after each row), every cell through
    ``csv_cell``, all but numbers quoted."""
    lines = [",".join(map(csv_field, header))]
    lines.extend(",".join(map(csv_field, row)) for row in rows)
    return "\n".join(lines) + "\n"


def frame_csv(frame) -> str:
    """A pandas frame as CSV text (no index), every cell through ``csv_cell``."""
    return csv_text(list(frame.columns), frame.itertuples(index=False, name=None))
