"""Every page's CSV download opened as a spreadsheet opens it: a corpus whose file names and
text are formulas, each page's downloads recorded as the page hands them to Streamlit, then read
by LibreOffice. No cell is a formula, and the hostile names are there, as text."""

from __future__ import annotations

import pytest
import streamlit
from streamlit.delta_generator import DeltaGenerator

from inspector.views.launch import ENV_ROOTS
from tests.support.app import app, assert_clean, write_corpus
from tests.support.spreadsheet import formulas, opened

PROSE = ("The replication service keeps three copies of every partition and answers within forty milliseconds "
         "on the default hardware profile. ") * 8
HOSTILE = {
    "=cmd|' -c calc'!A0.md": '=HYPERLINK("http://127.0.0.1:9/x","click") ' + PROSE,
    "+SUM(1,2).md": "+SUM(1,2) " + PROSE,
    "@SUM(A1).md": "@SUM(A1) " + PROSE,
    "-2+3.md": "-2+3 " + PROSE,
    "guide.md": "# Guide\n\n" + PROSE + "\n\n| key | value |\n|---|---|\n| port | 7420 |\n\n```\nhbl status\n```\n",
}
PAGES = ("app_pages/sizes.py", "app_pages/compare.py", "app_pages/sweep.py", "app_pages/fixes.py")


@pytest.fixture
def downloads(monkeypatch):
    """Each ``download_button``'s file name and data, as the pages hand them over."""
    handed: dict[str, str] = {}
    original = DeltaGenerator.download_button
    main = streamlit.download_button.__self__  # st.download_button is bound to the main area

    def recorded(self, label, data, file_name=None, *args, **kwargs):
        handed[file_name] = data
        return original(self, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", recorded)
    monkeypatch.setattr(streamlit, "download_button", lambda *a, **k: recorded(main, *a, **k))
    return handed


def test_no_downloaded_csv_holds_a_formula(isolated_app, tmp_path, monkeypatch, downloads):
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    folder = write_corpus(tmp_path / "docs", {name: text.encode() for name, text in HOSTILE.items()})
    at = app({"corpus": str(folder), "cap": "20", "spec": "recursive:200", "budgets": "200,400"})
    for page in PAGES:
        at.switch_page(page).run()
        assert_clean(at)
    csvs = {name: data for name, data in downloads.items() if name.endswith(".csv")}
    assert set(csvs) == {"over-cap.csv", "table_a.csv", "table_b.csv", "sweep.csv", "fixes.csv"}
    sheets = opened(csvs)
    assert {name: formulas(sheet) for name, sheet in sheets.items()} == {name: [] for name in csvs}
    cells = {value for row in sheets["over-cap.csv"] for value, _ in row}
    assert {"'=cmd|' -c calc'!A0.md", "'+SUM(1,2).md", "'@SUM(A1).md", "'-2+3.md"} <= cells
    assert any(isinstance(v, str) and v.startswith("'=HYPERLINK(") for v in cells), "chunk text kept, as text"
    numbers = [kind for row in sheets["over-cap.csv"][1:] for value, kind in row if isinstance(value, (int, float))]
    assert numbers and set(numbers) == {"n"}, "token counts stay numbers"


def test_the_orphan_test_s_downloads_hold_no_formula(isolated_app, downloads):
    from streamlit.testing.v1 import AppTest

    from inspector import Workspace, load_corpus
    from inspector.review.rounds import ReviewRound
    from tests.support.paths import ROOT, SAMPLE

    review_round = ReviewRound.create(Workspace(load_corpus(SAMPLE)), "structured:800", size=3, seed=2)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update({"spec": review_round.spec, **review_round.to_query_params()})
    at.run()
    at.switch_page("app_pages/orphan_test.py").run()
    at.text_input(key="orphan_reviewer").input("=cmd|' -c calc'!A0").run()
    at.button(key="orphan_references_no").click().run()
    at.text_input(key="orphan_note").input('=HYPERLINK("http://127.0.0.1:9/x","click")')
    at.button(key="orphan_save").click().run()
    at.session_state["orphan_tab"] = "Results"  # only the open tab is drawn
    at.run()
    assert_clean(at)
    csvs = {name: data for name, data in downloads.items() if name.endswith(".csv")}
    assert set(csvs) == {f"orphan-{review_round.id}-answers.csv", f"orphan-{review_round.id}-consensus.csv"}
    sheets = opened(csvs)
    assert {name: formulas(sheet) for name, sheet in sheets.items()} == {name: [] for name in csvs}
    cells = {value for row in sheets[f"orphan-{review_round.id}-answers.csv"] for value, _ in row}
    assert "'=cmd|' -c calc'!A0" in cells and "'=HYPERLINK(\"http://127.0.0.1:9/x\",\"click\")" in cells


def test_the_tune_and_import_downloads_hold_no_formula(isolated_app, downloads):
    """Tune's search table, and the Import page's every-problem table (a file of 1,500 records
    whose documents are formulas, past the 1,000 rows a page draws)."""
    import json

    at = app({"spec": "recursive:800"})
    at.switch_page("app_pages/tune.py").run()
    at.multiselect(key="tune_kinds").set_value(["fixed"])
    at.text_input(key="tune_budgets").set_value("400, 800")
    at.checkbox(key="tune_overlap").set_value(False)
    at.checkbox(key="tune_path").set_value(False)
    at.button(key="tune_search").click().run()
    assert_clean(at)
    records = [json.dumps({"id": f"=HYPERLINK(\"http://127.0.0.1:9/{n}\",\"x\")", "text": "Harborline",
                           "doc_id": f"=cmd|' -c calc'!A{n}"}) for n in range(1_500)]
    at.switch_page("app_pages/import_chunks.py").run()
    at.file_uploader(key="import_upload").set_value(("=cmd.jsonl", "\n".join(records).encode(), "application/json"))
    at.run()
    assert_clean(at)
    csvs = {name: data for name, data in downloads.items() if name.endswith(".csv")}
    assert {"tune.csv", "import_problems.csv"} <= set(csvs), sorted(downloads)
    sheets = opened({name: csvs[name] for name in ("tune.csv", "import_problems.csv")})
    assert {name: formulas(sheet) for name, sheet in sheets.items()} == {"tune.csv": [], "import_problems.csv": []}
    assert len(sheets["import_problems.csv"]) == 1_501 and sheets["tune.csv"][1:], "every row"
    ids = [row[1][0] for row in sheets["import_problems.csv"][1:]]
    assert ids[0] == "'=HYPERLINK(\"http://127.0.0.1:9/0\",\"x\")", "the chunk ids kept, as text"
