"""``inspector.reports.article``: the four tables, to the digit.

In seed mode they match what the article's own script printed for ``sample_corpus/``
(``golden/article_script_sample_corpus.txt``: its output only, not the script); ``report --json``
is byte-identical to the golden files written before the library became subpackages (since
then, one key was added, the retriever ``bm25``, and the sample corpus gained its converted files
and its Chinese, Japanese and German documents)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from inspector import Workspace, analyze, build_report, format_report
from tests.support.paths import GOLDEN, ROOT
from tests.support.paths import GOLDEN as GOLDEN_DIR

REPORTS = GOLDEN / "report"


ARTICLE_SCRIPT = GOLDEN_DIR / "article_script_sample_corpus.txt"


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


@pytest.mark.parametrize("mode", ["seed", "markdown"])
def test_forked_report_equals_the_serial_one(mode, sample_seed, sample_markdown):
    documents = list((sample_seed if mode == "seed" else sample_markdown).documents)
    serial = build_report(Workspace(documents, mode), jobs=1)
    forked = Workspace(documents, mode)
    assert build_report(forked, jobs=3) == serial
    assert [a for a in forked.analyses()] == [analyze(d.text, mode) for d in documents]


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_report_json_is_byte_identical_to_the_golden_file(mode):
    shown = subprocess.run([sys.executable, "-m", "inspector", "report", "sample_corpus", "--atoms", mode, "--json",
                            "--quiet"], cwd=ROOT, capture_output=True, check=True)
    assert shown.stdout == (REPORTS / f"sample_corpus_{mode}.json").read_bytes()


def test_every_printed_number_matches_the_article_script(seed_report):
    ours = format_report(seed_report)
    assert _numbers(ours) == _numbers(ARTICLE_SCRIPT.read_text(encoding="utf-8"))


def test_the_golden_file_is_a_full_report():
    numbers = _numbers(ARTICLE_SCRIPT.read_text(encoding="utf-8"))
    # corpus, atoms, 4 atom-length rows, header of a (800s), 7 rows of a, header of b, 7 rows of b,
    # 5 sweep rows and the two header-carry lines
    assert len(numbers) >= 2 + 4 + 7 + 7 + 5 + 2


def test_json_fractions_agree_with_the_printed_percentages(seed_report):
    printed = ARTICLE_SCRIPT.read_text(encoding="utf-8").splitlines()
    structured = next(line for line in printed if line.startswith("structured 800") and "%" in line)
    row = next(r for r in seed_report["compare"] if r["splitter"] == "structured 800")
    cells = re.findall(r"[\d.]+%", structured)
    expected = [f"{row['survival'][k]:.1%}" for k in ("code", "table", "row", "num", "cite")]
    assert cells == expected


def test_a_splitter_both_compared_and_swept_is_probed_once(monkeypatch):
    from inspector import Document
    from inspector.measure import probing as probing_module

    texts = [f"# Doc {i}\n\nIt costs {i} euros a month for eleven seats.\n\n| a | b |\n|---|---|\n| {i} | 2 |\n"
             for i in range(30)]
    work = Workspace([Document(f"d{i}.md", t) for i, t in enumerate(texts)], "markdown")
    probed = []
    real = probing_module.probe_pool
    monkeypatch.setattr(probing_module, "probe_pool",
                        lambda queries, pool, **kw: probed.append(len(pool)) or real(queries, pool, **kw))
    report = build_report(work, specs=("recursive:200", "structured:400"), budgets=(400, 800))
    assert len(probed) == 3, "structured:400 is compared and swept: one probe serves both rows"
    swept = next(row for row in report["sweep"] if row["budget"] == 400)
    compared = next(row for row in report["compare"] if row["spec"] == "structured:400")
    assert swept["ctx_tokens"] == compared["ctx_tokens"]
    work.probe("structured:400")
    assert len(probed) == 3, "the workspace remembers the probe"
    work.release("structured:400")
    work.probe("structured:400")
    assert len(probed) == 4, "a released splitter is probed again"


def test_a_corpus_without_a_figure_sentence_has_no_rates_not_zero_percent():
    from inspector import Document

    work = Workspace([Document("a.md", "# Notes\n\nNo figures here at all.\n\n```\nprint('hi')\n```\n")])
    report = build_report(work, specs=("recursive:200", "structured:200"), budgets=(200,))
    assert report["queries"] == 0
    assert {(row["answer_at_5"], row["cut"], row["rank_miss"]) for row in report["compare"]} == {(None, None, None)}
    probe_lines = format_report(report).splitlines()
    table_b = probe_lines[probe_lines.index(next(line for line in probe_lines if line.startswith("b. "))):][2:4]
    assert all(line.split()[2::2][:2] == ["n/a", "n/a"] for line in table_b), table_b
