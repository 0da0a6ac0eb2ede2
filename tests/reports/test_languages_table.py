"""Languages in the report: the corpus's languages, survival by language, golden recall by the
language of each question's evidence; seed mode prints what the article prints and no more."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from inspector import Workspace, build_report, format_report, load_corpus
from inspector.reports.decide import bounds_text
from inspector.reports.formats_table import languages_section
from inspector.retrieval.golden import golden_recall
from inspector.retrieval.golden_files import load_golden
from inspector.spec import parse_spec
from inspector.views import language_rows
from tests.support.paths import ROOT, SAMPLE

INTERNATIONAL = SAMPLE / "international"


@pytest.fixture(scope="module")
def mixed():
    """The Chinese, Japanese and German pages with two English handbook pages."""
    documents = [*load_corpus(INTERNATIONAL).documents, *[
        d for d in load_corpus(SAMPLE / "handbook").documents if d.id in {"remote-work.md", "expenses-and-travel.md"}]]
    return Workspace(documents)


def test_the_report_counts_documents_per_language(mixed):
    report = build_report(mixed)
    assert report["corpus"]["languages"] == {"de": 2, "en": 2, "ja": 2, "zh": 2}
    assert "         languages: de 2, en 2, ja 2, zh 2" in format_report(report).splitlines()


def test_seed_mode_prints_no_language_line(mixed):
    seed = Workspace(mixed.documents, "seed")
    report = build_report(seed)
    assert report["corpus"]["languages"] == {"de": 2, "en": 2, "ja": 2, "zh": 2}
    assert "languages" not in format_report(report)


def test_survival_by_language_covers_every_document_once(mixed):
    specs = [parse_spec("fixed:400"), parse_spec("structured:800")]
    rows = languages_section(mixed, specs)
    assert [(r["language"], r["spec"]) for r in rows] == [(lang, str(s)) for lang in ("de", "en", "ja", "zh")
                                                          for s in specs]
    assert sum(r["documents"] for r in rows if r["spec"] == "fixed:400") == len(mixed.documents)
    zh = next(r for r in rows if r["language"] == "zh" and r["spec"] == "structured:800")
    assert zh["survival"]["table"] == 1.0 and zh["chunks"] == 2
    # One table in one document says little: kept whole, it is still an interval reaching far below 100%.
    table = zh["intervals"]["survival"]["table"]
    assert (table["of"], table["documents"], table["high"]) == (1, 1, 1.0) and table["low"] < 0.25
    assert zh["survival"]["code"] is None and zh["intervals"]["survival"]["code"] is None
    from inspector.reports.formats_table import format_languages

    shown = format_languages(rows, intervals=True)
    under = shown[shown.index(next(line for line in shown if line.startswith("zh") and "structured" in line)) + 1]
    assert under.split() == [bounds_text(zh["intervals"]["survival"][k]) for k in ("table", "row", "num", "cite")]
    assert not any("[" in line for line in format_languages(rows))


def test_golden_recall_by_the_language_of_the_evidence(mixed, tmp_path):
    lines = [{"question": "新的写入路径把每秒写入的数据量提高到多少？",
              "evidence": "在三节点集群上把每秒写入的数据量从 166 MB 提高到 182 MB"},
             {"question": "Wie hoch ist die Obergrenze für Hotels in München?",
              "evidence": "Für Hotels gilt eine Obergrenze von 160 Euro pro Nacht"},
             {"question": "When are the core hours?", "evidence": "Outside core hours"}]
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    golden = load_golden(path, mixed)
    result = golden_recall(mixed, golden, "structured:800", budgets=(2000,))
    groups = result.by_language()
    assert result.languages == ("zh", "de", "en") and set(groups) == {"de", "en", "zh"}
    assert groups["zh"][2000] == (1, 1) and groups["de"][2000] == (1, 1)  # BM25 over bigrams and umlauts
    assert "by_language" in result.as_dict()
    bounds = result.as_dict()["intervals"]["by_language"]
    assert bounds["zh"]["2000"]["hits"] == 1 and bounds["zh"]["2000"]["of"] == 1 and bounds["zh"]["2000"]["low"] < 0.25
    rows = language_rows([result])  # the Import page's table
    assert [(r["language"], r["questions"], r["recall@2000"]) for r in rows] == [
        ("de", 1, 1.0), ("en", 1, groups["en"][2000][0] / 1), ("zh", 1, 1.0)]
    english_only = replace(result, languages=("en", "en", "en"))
    assert language_rows([english_only]) == [] and "by_language" not in english_only.as_dict()


def test_report_by_language_on_the_command_line():
    shown = subprocess.run([sys.executable, "-m", "inspector", "report", str(INTERNATIONAL), "--by-language",
                            "--quiet"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert "h. atoms kept whole by language, every atom counted" in shown.stdout
    assert "languages: de 2, ja 2, zh 2" in shown.stdout
