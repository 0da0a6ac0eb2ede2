"""Files that once took a converter, and the server with it, down: each is refused with its
reason by both converters, within its limits, and the rest of the corpus is reported. A refusal
is remembered: the next run does not convert the file again. (``bench/bench_hostile.py`` times
them at the default limits.)"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from inspector.cli import main
from tests.support import bombs
from tests.support.paths import SAMPLE

#: file name -> (what makes it, a pattern of what its refusal says), at a conversion memory of 150 MB
#: and 5 s.
BOMBS = {
    "zip-bomb.docx": (bombs.zip_bomb_docx, r"its part word/document.xml inflates to 200 MB \(at most 100 MB a part\)"),
    "zip-bomb.pptx": (bombs.zip_bomb_pptx, "its part ppt/slides/slide1.xml inflates to 200 MB"),
    "squeezed.docx": (bombs.ratio_bomb_docx, r"inflates 1,\d+ times \(at most 200\): a zip bomb"),
    "deep-47kb.docx": (bombs.deep_docx, r"word/document.xml inflates \d+ times"),
    "deep.docx": (lambda: bombs.deep_docx(20_000), "word/document.xml nests more than 256 elements deep"),
    "million-rows.xlsx": (bombs.rows_xlsx, "xl/worksheets/sheet1.xml inflates to 110.2 MB"),
    "rows.xlsx": (lambda: bombs.rows_xlsx(60_000), "exceeds 150 MB while converting|took longer than 5 s"),
    "huge-stream.pdf": (bombs.huge_stream_pdf, "exceeds 150 MB while converting|needs Docling's models"),
    "huge.epub": (bombs.huge_epub, "its part chapter.xhtml inflates to 300 MB"),
}


# One worker builds the bombs once and runs both converters on them, with Docling's other tests
# (Docling's first conversion in a process takes 10 s: once).
pytestmark = pytest.mark.xdist_group("converters")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    for name, (make, _) in BOMBS.items():
        (folder / name).write_bytes(make())
    shutil.copy(SAMPLE / "handbook" / "leave-policy.md", folder / "leave-policy.md")
    shutil.copy(SAMPLE / "formats" / "expense-approval.docx", folder / "expense-approval.docx")
    return folder


@pytest.mark.parametrize("converter", ["markitdown", "docling"])
def test_every_bomb_is_refused_with_its_reason_and_the_rest_is_reported(hostile, converter, capsys, monkeypatch,
                                                                         isolated_app):
    monkeypatch.setattr("inspector.limits.MAX_CONVERSION_MEMORY", 150_000_000)
    monkeypatch.setattr("inspector.limits.MAX_CONVERSION_SECONDS", 5.0)
    args = ["report", str(hostile), "--converter", converter, "--spec", "fixed:800", "--budgets", "400", "--json",
            "--quiet", "--jobs", "1"]
    assert main(args) == 0
    shown = capsys.readouterr()
    report = json.loads(shown.out)
    assert report["corpus"]["documents"] == 2  # the markdown page and the real DOCX
    reasons = {entry["path"]: entry["reason"] for entry in report["skipped"]}
    assert set(reasons) == set(BOMBS)
    for name, (_, reason) in BOMBS.items():
        assert re.search(reason, reasons[name]), (name, reasons[name])
    assert "Traceback" not in shown.err
    # Remembered: a second run converts nothing and says the same.
    monkeypatch.setattr("inspector.corpus.convert.run_boxed", None)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == report["skipped"]
