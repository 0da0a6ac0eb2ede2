"""``inspector.reports.fixes_table``: the five fixes, cheapest first, measured one by one."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from inspector.context.store import ContextStore, document_hash
from inspector.reports.fixes_table import fix_specs, format_fixes, measure_fixes
from inspector.retrieval.golden_files import load_golden
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def golden(sample_markdown):
    return load_golden(SAMPLE / "golden-questions.jsonl", sample_markdown)


def test_each_step_adds_one_fix_to_the_one_before():
    steps = fix_specs("fixed:800/100+path")
    assert {name: str(spec) for name, spec in steps.items()} == {
        "none": "fixed:800/100", "structure": "structured:800/100", "path": "structured:800/100+path",
        "address": "structured:800/100+address"}
    assert str(fix_specs("heading:256t", "m")["context"]) == "heading:256t+header+address+context;llm=m"
    with pytest.raises(ValueError, match="built-in"):
        fix_specs("imported:0123456789abcdef")
    for spec in ("cluster:400t+atoms;piece=40", "llm:400t+atoms;llm=m;piece=40", "semantic:400t;threshold=90"):
        steps = fix_specs(spec)
        assert str(steps["none"]) == spec and str(steps["structure"]) == "structured:400t", \
            "a chunker by meaning's own options stay with it"


def test_in_seed_mode_the_structure_step_says_it_repeats_table_headers(sample_seed):
    """Seed mode's structured splitter is the article's, which does not repeat a table's header;
    the fixes' structure step does, and its string says so: the article's chunks probed first are
    not taken for the step's (a workspace keeps probes by spec string)."""
    article = sample_seed.probe("structured:800+path")
    rows = {row.step: row for row in measure_fixes(sample_seed, "structured:800").rows}
    assert rows["structure"].spec == "structured:800+header" and rows["path"].spec == "structured:800+path+header"
    assert rows["path"].ctx_tokens == sample_seed.probe("structured:800+path+header").context_tokens
    assert rows["path"].ctx_tokens != article.context_tokens
    assert str(fix_specs("structured:800", mode="seed")["address"]) == "structured:800+header+address"
    assert str(fix_specs("structured:800")["address"]) == "structured:800+address"  # the default mode's own


def test_the_fixes_on_the_sample_corpus_buy_what_the_article_says(sample_markdown, golden):
    table = measure_fixes(sample_markdown, "fixed:800", golden=golden)
    rows = {row.step: row for row in table.rows}
    assert [row.step for row in table.rows] == ["none", "structure", "path", "address", "context", "late", "expand"]
    assert rows["structure"].cut < rows["none"].cut and rows["structure"].answer > rows["none"].answer
    assert rows["structure"].recall[2000] > rows["none"].recall[2000]
    assert rows["path"].suspects < rows["structure"].suspects and rows["address"].suspects < rows["path"].suspects
    assert rows["address"].chunks > rows["path"].chunks, "the stamp pays out of the budget"
    assert "CHUNK_INSPECTOR_CONTEXT_URL" in rows["context"].omitted
    assert rows["late"].omitted.startswith("late chunking pools a model's token vectors") and "not bm25" in \
        rows["late"].omitted
    assert rows["expand"].spec == rows["address"].spec and rows["expand"].expand == 1
    assert rows["expand"].ctx_tokens > 2 * rows["address"].ctx_tokens and rows["expand"].suspects is None
    assert rows["none"].by_kind["table-header"][2000] < rows["structure"].by_kind["table-header"][2000]
    text = "\n".join(format_fixes(table.to_dict()))
    assert "+ context line" in text and "omitted: no context model is named" in text
    assert "+ neighbours read ±1" in text and "table-header" in text


def test_the_context_step_is_measured_once_every_chunk_has_its_line(sample_markdown, tmp_path):
    work = sample_markdown.subset(d.id for d in sample_markdown.documents if d.id.startswith("handbook/"))
    work.context_store = ContextStore(tmp_path)
    stamped = fix_specs("recursive:800")["address"]
    missing = measure_fixes(work, "recursive:800", context_model="m").rows[4]
    assert missing.omitted.endswith("chunks have no context line from m; write them first")
    for document, result in zip(work.documents, work.split(stamped)):
        work.context_store.put("m", document_hash(document.text), [(*c.span, f"Part of {document.title}.")
                                                                   for c in result.chunks])
    rows = measure_fixes(work, "recursive:800", context_model="m").rows
    assert not rows[4].omitted and rows[4].spec == "structured:800+address+context;llm=m"
    assert rows[4].ctx_tokens > rows[3].ctx_tokens and rows[4].chunks == rows[3].chunks
    assert rows[6].spec == rows[4].spec, "neighbours are read from the last measured step"


def test_report_prints_the_fixes_table(capsys, isolated_app):
    assert main(["report", str(SAMPLE / "handbook"), "--spec", "fixed:800", "--fixes", "recursive:800", "--quiet",
                 "--json"]) == 0
    fixes = json.loads(capsys.readouterr().out)["fixes"]
    assert fixes["spec"] == "recursive:800" and [r["step"] for r in fixes["rows"]][-1] == "expand"
    assert fixes["golden"] == "" and fixes["rows"][0]["recall"] == {}
    assert main(["report", str(SAMPLE), "--fixes", "imported:0123456789abcdef", "--quiet"]) == 2


def test_each_step_is_tested_against_the_one_before_question_by_question(sample_markdown, golden):
    """fixed:800 to structure + header answers 29 more of the 200 queries and misses none it
    answered (McNemar: p < 0.001); the prefixes after it change no answer, so they are within noise."""
    table = measure_fixes(sample_markdown, "fixed:800", golden=golden)
    steps = {step["step"]: step for step in table.steps()}
    assert list(steps) == ["structure", "path", "address", "expand"], "the omitted context step is skipped"
    first = steps["structure"]["answer@5"]
    assert (first["only_first"], first["only_second"], first["significant"]) == (29, 0, True)
    assert steps["expand"]["versus"] == "+ address stamp" and not steps["path"]["answer@5"]["significant"]
    row = table.rows[0].to_dict()
    assert row["intervals"]["answer_at_5"]["of"] == 200 and len(row["answered"]) == 200
    recall = row["intervals"]["recall"]["2000"]
    assert recall["low"] < row["recall"]["2000"] < recall["high"]
    text = "\n".join(format_fixes(table.to_dict(), intervals=True))
    assert "Structure + header gains 14.5 points of answer@5 (p < 0.001)" in " ".join(text.split())
    assert "the other changes are within noise." in text and "[" in text.splitlines()[3]
    assert "within noise" not in "\n".join(format_fixes(table.to_dict()))  # seed mode's table stays bare


def test_a_step_sentence_names_every_real_change_and_only_those():
    from inspector.reports.fixes_table import steps_lines

    def test(difference, p, of=40):
        return {"difference": difference, "p_value": p, "significant": p < 0.05, "of": of}

    steps = [{"step": "structure", "label": "structure + header", "versus": "none",
              "answer@5": test(0.1, 0.001), "recall@2000": test(-0.2, 0.01)}]
    assert " ".join(steps_lines(steps)).split() == (
        "Structure + header gains 10.0 points of answer@5 (p = 0.001) and loses 20.0 points of recall@2000 "
        "(p = 0.01) over none; every change is beyond noise.").split()
    steps[0]["recall@2000"] = test(0.05, 0.5)
    assert "the other changes are within noise" in " ".join(" ".join(steps_lines(steps)).split())
    steps[0]["answer@5"] = test(0.0, 1.0)
    assert steps_lines(steps) == ["   No step changes answer@5 or recall beyond noise against the step before it."]
    steps[0].update({"answer@5": test(0.0, 1.0, of=0), "recall@2000": test(0.0, 1.0, of=0)})
    assert "the probe drew no query" in " ".join(steps_lines(steps)), "a test of nothing is not 'within noise'"
    assert steps_lines([]) == []


def test_the_steps_measured_one_at_a_time_make_the_whole_table(sample_markdown, golden):
    from inspector.reports.fixes_table import FixesTable, fix_steps, measure_step

    whole = measure_fixes(sample_markdown, "recursive:500", golden=golden, context_model="m",
                          context_problem="no server")
    steps = fix_steps(sample_markdown, "recursive:500", context_model="m", context_problem="no server")
    assert [step.step for step in steps] == ["none", "structure", "path", "address", "context", "late", "expand"]
    assert steps[4].omitted == "no server" and steps[6].spec == steps[3].spec and steps[6].expand == 1
    rows = [measure_step(sample_markdown, step, golden=golden, retriever="bm25") for step in steps]
    assert FixesTable.of("recursive:500", "bm25", golden, rows) == whole


def test_late_chunking_is_set_against_the_context_line_in_one_table(sample_markdown, tmp_path):
    from tests.support.onnx_model import write_tiny_onnx_model

    model = write_tiny_onnx_model(tmp_path / "tiny", cap=256)
    work = sample_markdown.subset(d.id for d in sample_markdown.documents if d.id.startswith("handbook/"))
    work.context_store = ContextStore(tmp_path)
    stamped = fix_specs("recursive:800")["address"]
    for document, result in zip(work.documents, work.split(stamped)):
        work.context_store.put("m", document_hash(document.text), [(*c.span, f"Part of {document.title}.")
                                                                   for c in result.chunks])
    table = measure_fixes(work, "recursive:800", context_model="m", retriever=f"dense:onnx:{model}")
    rows = {row.step: row for row in table.rows}
    assert rows["late"].retriever == f"dense:onnx:{model}|late" and rows["late"].spec == str(stamped)
    late = work.probe(stamped, retriever=f"dense:onnx:{model}|late")
    assert rows["late"].answer == late.answer_rate and rows["late"].chunks == rows["address"].chunks
    versus = {step["step"]: step["versus"] for step in table.steps()}
    assert versus["late"] == "+ context line", "the articles' comparison: a line written, or the chunk read late"
    assert versus["expand"] == "+ context line", "neighbours are read on from the context step, not the late one"
    assert table.to_dict()["rows"][5]["retriever"] == f"dense:onnx:{model}|late"
    assert "late chunking" in "\n".join(format_fixes(table.to_dict()))
