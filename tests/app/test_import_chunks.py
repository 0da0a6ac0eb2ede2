"""The Import page under AppTest: the sample and uploaded chunk files, their problems by line, the
measures, golden recall and the export, with never an exception. (HTML and charts: browser suite.)"""

from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

from inspector import Workspace, load_corpus
from inspector.chunks.export import export_text
from inspector.retrieval.golden import golden_recall
from inspector.retrieval.golden_files import load_golden
from tests.support.app import OPENED
from tests.support.paths import ROOT

PAGE = "app_pages/import_chunks.py"


SAMPLE = Workspace(load_corpus(ROOT / "sample_corpus"))


GOLDEN = ROOT / "sample_corpus" / "golden-questions.jsonl"


def import_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    return at.switch_page(PAGE).run()


def clean(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def table(at: AppTest, column: str):
    """The one dataframe with ``column`` (AppTest does not find dataframes by key)."""
    found = [d.value for d in at.dataframe if column in d.value.columns]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]
    return found[0]


def test_the_sample_export_aligns_fully_and_is_measured_like_a_splitter():
    at = clean(import_page())
    assert at.title[0].value == "Import chunks"
    assert at.info and not at.error
    at.button(key="import_sample").click().run()
    clean(at)
    chunks = SAMPLE.chunks("structured:800")
    shown = metrics(at)
    assert shown["Records"] == shown["Placed"] == shown["By offsets"] == str(len(chunks))
    assert (shown["Problems"], shown["Duplicates"], shown["Uncovered text"], shown["Documents without chunks"]) == \
        ("0", "0", "0", "0")
    assert at.success[0].value.startswith(f"All {len(chunks)} records placed exactly")
    assert not at.warning and not at.error
    measures = table(at, "answer@5")
    assert list(measures["chunks from"]) == ["imported:structured-800.jsonl", "structured:800"]
    assert measures.drop(columns="chunks from").iloc[0].equals(measures.drop(columns="chunks from").iloc[1])
    overlay = [h.value for h in at.html if 'class="ci-overlay"' in h.value]
    assert len(overlay) == 1 and OPENED.text[:40].split("\n")[0] in overlay[0]
    result = at.session_state["imported_chunks"]
    assert at.session_state["imported_chunks_corpus"] == SAMPLE.fingerprint
    assert [(c.doc_id, c.start, c.end) for c in result.all_chunks()] == [(c.doc_id, c.start, c.end) for c in chunks]
    export = at.get("download_button")
    assert [plain(b.label) for b in export] == ["Download the structured:800 chunks (JSONL)"]


def test_a_broken_upload_lists_problems_by_line_and_imports_the_rest():
    good = export_text(SAMPLE, "structured:800").splitlines()[:4]
    lines = [good[0], '{"text": "no closing brace"', good[1], good[2],
             json.dumps({"text": "Hello", "doc_id": "handbook/no-such-page.md"}), good[3], good[1]]
    at = clean(import_page())
    at.file_uploader(key="import_upload").set_value(("mine.jsonl", "\n".join(lines).encode(), "application/json"))
    clean(at.run())
    shown = metrics(at)
    assert (shown["Records"], shown["Placed"], shown["Problems"], shown["Duplicates"]) == ("7", "4", "2", "1")
    problems, duplicates = (d.value for d in at.dataframe if "message" in d.value.columns)
    assert list(zip(problems["line"], problems["kind"])) == [(2, "malformed"), (5, "unknown-document")]
    assert "handbook/no-such-page.md" in problems["message"][1]
    assert list(zip(duplicates["line"], duplicates["kind"])) == [(7, "duplicate")]
    assert "(line 3)" in duplicates["message"][0]
    assert metrics(at)["Documents without chunks"] == str(len(SAMPLE.documents) - 1)
    gaps = table(at, "characters")
    first = SAMPLE.documents[0]
    assert list(gaps["document"]) == [first.id] and gaps["end"][0] == len(first.text)
    assert [r.doc_id for r in at.session_state["imported_chunks"].all_chunks()] == [first.id] * 4
    assert any("1 malformed" in plain(w.value) for w in at.warning)
    at.file_uploader(key="import_upload").clear()
    clean(at.run())
    assert "imported_chunks" not in at.session_state and at.info and "Records" not in metrics(at)


def test_records_without_a_document_are_reported_until_one_is_chosen():
    document = SAMPLE.documents[3]
    half = len(document.text) // 2
    chonkie = json.dumps([{"text": document.text[:half], "start_index": 0, "end_index": half},
                          {"text": document.text[half:], "start_index": half, "end_index": len(document.text)}])
    at = clean(import_page())
    at.file_uploader(key="import_upload").set_value(("chonkie.json", chonkie.encode(), "application/json"))
    clean(at.run())
    assert metrics(at)["Placed"] == "0" and at.error
    assert set(table(at, "message")["kind"]) == {"no-document"}
    at.selectbox(key="import_default_doc").set_value(document.id)
    clean(at.run())
    shown = metrics(at)
    assert (shown["Placed"], shown["By offsets"], shown["Problems"]) == ("2", "2", "0")
    assert shown["Documents without chunks"] == str(len(SAMPLE.documents) - 1)


def test_unusable_files_get_a_clear_error_and_nothing_else():
    at = clean(import_page())
    at.file_uploader(key="import_upload").set_value(("huge.jsonl", b" " * 20_000_001, "application/json"))
    clean(at.run())
    assert [plain(e.value) for e in at.error] == ["huge.jsonl is 20.0 MB; chunk files over 20 MB are refused."]
    assert "imported_chunks" not in at.session_state
    at.session_state["import_source"] = ("latin.csv", "text,doc_id\ncafé,x\n".encode("latin-1"))
    clean(at.run())
    assert any("latin.csv cannot be imported: latin.csv is not UTF-8 text" in plain(e.value) for e in at.error)
    assert not at.metric or "Records" not in metrics(at)


def test_golden_recall_for_the_import_and_the_sidebar_splitter():
    at = clean(import_page())
    at.button(key="golden_bundled").click().run()
    clean(at)
    golden = load_golden(GOLDEN, SAMPLE)
    recall = table(at, "recall")
    assert list(recall["chunks from"]) == ["structured:800", "structured:800"]  # no import yet: the splitter alone
    at.button(key="import_sample").click().run()
    clean(at)
    recall = table(at, "recall")
    assert list(zip(recall["chunks from"], recall["context budget"])) == [
        ("imported:structured-800.jsonl", 2000), ("imported:structured-800.jsonl", 4000),
        ("structured:800", 2000), ("structured:800", 4000)]
    expected = golden_recall(SAMPLE, golden, "structured:800")
    assert list(recall["recall"])[2:] == [expected.recall(2000), expected.recall(4000)]
    assert list(recall["recall"])[:2] == list(recall["recall"])[2:]  # the same spans recall the same
    folders = table(at, "recall@4000")
    assert sorted(set(folders["folder"])) == ["blog", "handbook", "product"]
    assert not [w for w in at.warning if "golden" in w.value]
    at.selectbox(key="kind").set_value("fixed").run()
    clean(at)
    fixed = golden_recall(SAMPLE, golden, "fixed:800")
    recall = table(at, "recall")
    assert list(recall["recall"])[2:] == [fixed.recall(2000), fixed.recall(4000)]
    assert list(recall["cut"])[2:] == [fixed.counts(2000)["cut"], fixed.counts(4000)["cut"]] != [0, 0]
    assert set(table(at, "question")["line"]) == {
        q.item.line for q in fixed.questions if set(q.outcomes) != {"hit"}} | {
        q.item.line for q in golden_recall(SAMPLE, golden, "structured:800").questions if set(q.outcomes) != {"hit"}}


def test_a_golden_file_with_bad_lines_lists_them():
    first = GOLDEN.read_text(encoding="utf-8").splitlines()[0]
    data = "\n".join([first, "not json", json.dumps({"question": "q", "evidence": "nowhere in this corpus"})])
    at = clean(import_page())
    at.file_uploader(key="golden_upload").set_value(("mine.jsonl", data.encode(), "application/json"))
    clean(at.run())
    problems = table(at, "kind")
    assert list(zip(problems["line"], problems["kind"])) == [(2, "malformed"), (3, "not-found")]
    assert list(table(at, "recall")["questions"]) == [1, 1]


def test_thousands_of_problems_draw_a_thousand_rows_and_download_all():
    good = export_text(SAMPLE, "structured:800").splitlines()[:2]
    lines = good + ['{"text": "broken' for _ in range(2_500)]
    at = clean(import_page())
    at.file_uploader(key="import_upload").set_value(("many.jsonl", "\n".join(lines).encode(), "application/json"))
    clean(at.run())
    assert metrics(at)["Problems"] == "2500"
    (problems,) = [d.value for d in at.dataframe if "message" in d.value.columns]
    assert len(problems) == 1_000 and list(problems["line"][:2]) == [3, 4]
    assert any("The first 1,000 of 2,500 problems" in c.value for c in at.caption)
    assert any(b.label == "Download all 2,500 problems (CSV)" for b in at.get("download_button"))


FRONT = "---\ntitle: Ports\n---\n"


def imported_into_a_folder(tmp_path, monkeypatch, text: str, records: list[dict]) -> AppTest:
    """The Import page over a folder holding ``ports.md`` (``text``), with ``records`` uploaded."""
    (tmp_path / "ports.md").write_text(text, encoding="utf-8")
    monkeypatch.setenv("CHUNK_INSPECTOR_ROOTS", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["corpus"] = str(tmp_path)
    at.run()
    at.switch_page(PAGE).run()
    data = "\n".join(json.dumps(r) for r in records).encode()
    at.file_uploader(key="import_upload").set_value(("chunks.jsonl", data, "application/json"))
    return clean(at.run())


def test_shifted_offsets_are_listed_apart_and_the_raw_offsets_box_places_them(isolated_app, tmp_path, monkeypatch):
    raw = FRONT + "# Ports\n\nThe admin port is 7440.\n\nThe replication port is 7430.\n"
    records = [{"doc_id": "ports.md", "text": t, "start": raw.index(t), "end": raw.index(t) + len(t)}
               for t in ("# Ports", "The admin port is 7440.", "The replication port is 7430.")]
    at = imported_into_a_folder(tmp_path, monkeypatch, raw, records)
    assert metrics(at)["Problems"] == "0" and metrics(at)["Realigned"] == "3"
    (shifted,) = [e for e in at.expander if "offsets shifted (3)" in e.label]
    assert "under the chunk file" in shifted.label
    # The box the list points to is in sight: under the chunk file, not in a collapsed expander.
    assert not any(c.key == "import_raw_offsets" for e in at.expander for c in e.checkbox)
    at.checkbox(key="import_raw_offsets").check().run()
    clean(at)
    assert metrics(at)["By offsets"] == "3" and not any("offsets shifted" in e.label for e in at.expander)


def test_the_front_matter_box_reads_the_corpus_as_the_pipeline_did(isolated_app, tmp_path, monkeypatch):
    records = [{"doc_id": "ports.md", "text": FRONT.rstrip()},
               {"doc_id": "ports.md", "text": "The admin port is 7440."}]
    at = imported_into_a_folder(tmp_path, monkeypatch, FRONT + "# Ports\n\nThe admin port is 7440.\n", records)
    assert metrics(at)["Placed"] == "1"
    assert "front-matter-only" in set(table(at, "kind")["kind"])
    at.checkbox(key="import_front_matter").check().run()
    clean(at)
    assert at.query_params["frontmatter"] == "keep"
    assert metrics(at)["Placed"] == "2" and metrics(at)["Problems"] == "0"


def test_an_admin_has_a_model_write_a_golden_set_from_the_corpus_and_uses_it(isolated_app, monkeypatch):
    from app_pages.imports.writing import SECTION
    from tests.support.chat import ChatServer

    with ChatServer() as server:
        monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_URL", server.url)
        monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_MODEL", "tiny")
        at = clean(import_page())
        assert "golden_write" not in [b.key for b in at.button], "closed, the section computes nothing"
        at.session_state[SECTION] = True
        clean(at.run())
        (panel,) = [e for e in at.expander if e.label == "No golden set? Write one from this corpus"]
        assert any("up to 224 prompts to tiny for 56 documents (0 answers kept)" in plain(m.value)
                   for m in panel.markdown)
        assert server.prompts == [], "nothing is sent before the click"
        at.button(key="golden_write").click().run()
        clean(at)
        sent = len(server.prompts)
        assert 112 < sent <= 224
        (panel,) = [e for e in at.expander if e.label == "No golden set? Write one from this corpus"]
        said = " ".join(plain(m.value) for m in panel.markdown)
        assert "questions written by tiny" in said and "left out:" in said
        at.button(key="golden_write_use").click().run()
        clean(at)
        assert "golden_write" not in [b.key for b in at.button], "every answer kept: nothing left to send"
        assert len(server.prompts) == sent
    questions = table(at, "recall")["questions"]
    assert set(questions) and all(n > 20 for n in questions), "the written set is measured on the page"


def test_without_a_model_the_probes_questions_are_the_golden_set(isolated_app, monkeypatch):
    from app_pages.imports.writing import SECTION

    for key in ("CHUNK_INSPECTOR_CONTEXT_URL", "OPENAI_BASE_URL", "CHUNK_INSPECTOR_CONTEXT_MODEL"):
        monkeypatch.delenv(key, raising=False)
    at = clean(import_page())
    at.session_state[SECTION] = True
    clean(at.run())
    (panel,) = [e for e in at.expander if e.label == "No golden set? Write one from this corpus"]
    assert any("No chat model on this server" in plain(c.value) for c in panel.caption)
    at.button(key="golden_write_probe").click().run()
    clean(at)
    assert set(table(at, "recall")["questions"]) == {len(SAMPLE.queries())}
