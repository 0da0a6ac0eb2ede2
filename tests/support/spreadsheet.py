"""CSV text opened as a spreadsheet opens it: LibreOffice (Debian's ``libreoffice-calc-nogui``)
converts it headless to XLSX, and openpyxl reads what each cell became, a formula or a value."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

HOW_TO_GET_LIBREOFFICE = "LibreOffice not found: apt-get install libreoffice-calc-nogui"


def soffice() -> str:
    found = shutil.which("soffice") or shutil.which("libreoffice")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{HOW_TO_GET_LIBREOFFICE} (CI is set, so this test may not be skipped)", pytrace=False)
        pytest.skip(HOW_TO_GET_LIBREOFFICE)
    return found


def opened(csv_texts: dict[str, str]) -> dict[str, list[list[tuple[object, str]]]]:
    """Each CSV text (by file name) as LibreOffice reads it: rows of ``(value, type)`` cells, the
    type openpyxl's (``f`` a formula, ``n`` a number, ``s`` text)."""
    import openpyxl

    program = soffice()
    with tempfile.TemporaryDirectory(prefix="spreadsheet-") as folder:
        folder = Path(folder)
        names = []
        for number, (name, text) in enumerate(csv_texts.items()):
            path = folder / f"{number}.csv"
            path.write_text(text, encoding="utf-8")
            names.append((name, path))
        subprocess.run([program, "--headless", f"-env:UserInstallation=file://{folder / 'profile'}",
                        "--convert-to", "xlsx", "--outdir", str(folder / "out"), *(str(p) for _, p in names)],
                       check=True, capture_output=True, timeout=180)
        read = {}
        for name, path in names:
            sheet = openpyxl.load_workbook(folder / "out" / f"{path.stem}.xlsx").active
            read[name] = [[(cell.value, cell.data_type) for cell in row] for row in sheet.iter_rows()]
        return read


def formulas(sheet: list[list[tuple[object, str]]]) -> list[object]:
    return [value for row in sheet for value, kind in row if kind == "f"]
