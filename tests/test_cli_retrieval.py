"""The command line's retrievers and golden sets: ``--retriever``, ``--embeddings-url``,
``report --golden`` scoring every splitter, and what ``check`` says about the golden set."""

from __future__ import annotations

import json

import pytest

from inspector.cli import main
from inspector.retrieval.vectors import STORE_NAME, VectorStore
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE

PARAPHRASE = str(SAMPLE / "golden-paraphrase.csv")


@pytest.fixture(autouse=True)
def data(isolated_app):
    return isolated_app


def run(capsys, *args) -> tuple[int, str, str]:
    status = main([*args])
    out, err = capsys.readouterr()
    return status, out, err


def test_report_ranks_table_b_with_the_chosen_retriever_and_scores_the_golden_set(capsys, data):
    status, out, _ = run(capsys, "report", str(SAMPLE), "--retriever", "hybrid", "--golden", PARAPHRASE,
                         "--spec", "fixed:800", "--spec", "structured:800", "--json", "--quiet", "--jobs", "2")
    assert status == 0
    report = json.loads(out)
    (golden,) = report["golden"]
    assert report["retriever"] == "hybrid" and golden["retriever"] == "hybrid"
    assert (golden["format"], golden["questions"], golden["quotes"]) == ("chroma-csv", 25, 27)
    assert [row["spec"] for row in golden["rows"]] == ["fixed:800", "structured:800"]
    fixed, structured = golden["rows"]
    assert fixed["outcomes"]["2000"]["cut"] > 0 == structured["outcomes"]["2000"]["cut"]
    assert set(structured["span_scores"]) == {"top 5", "2000 o200k", "4000 o200k"}
    assert (data / STORE_NAME).is_file(), "vectors are kept in the data folder"
    bm25 = json.loads(run(capsys, "report", str(SAMPLE), "--spec", "structured:800", "--json", "--quiet")[1])
    assert bm25["compare"][0]["answer_at_5"] != report["compare"][1]["answer_at_5"]


def test_the_text_report_names_the_retriever_and_prints_a_golden_table_per_set(capsys):
    status, out, _ = run(capsys, "report", str(SAMPLE), "--retriever", "dense", "--golden", PARAPHRASE,
                         "--golden", str(SAMPLE / "golden-questions.jsonl"), "--spec", "structured:800", "--quiet")
    assert status == 0
    assert "three longest words (or rarest bigrams) of a figure sentence, ranked by dense" in out
    assert "e. golden set golden-paraphrase.csv: 25 questions, 27 quotes; ranked by dense" in out
    assert "e. golden set golden-questions.jsonl: 38 questions, 38 quotes; ranked by dense" in out
    assert "any@2000" in out and "prec-Ω" in out


def test_a_second_dense_run_embeds_nothing(capsys, data):
    args = ("report", str(SAMPLE), "--retriever", "dense", "--spec", "fixed:800", "--json", "--quiet", "--jobs", "1")
    first = run(capsys, *args)[1]
    stored = VectorStore(data / STORE_NAME).count()
    assert stored > 500
    assert run(capsys, *args)[1] == first
    assert VectorStore(data / STORE_NAME).count() == stored


def test_check_says_how_many_questions_were_located_and_how_the_misses_divide(capsys):
    status, out, _ = run(capsys, "check", str(SAMPLE), "--spec", "fixed:800", "--golden", PARAPHRASE,
                         "--retriever", "hybrid", "--min", "recall@2000=0.1")
    assert status == 0
    assert "note: answer@5, cut and recall are ranked by hybrid" in out
    assert "golden set golden-paraphrase.csv: 25 questions located (27 quotes); at 2000: " in out
    assert "cut, " in out and "rank-miss, " in out and "uncovered" in out
    status, out, _ = run(capsys, "check", str(SAMPLE), "--spec", "fixed:800", "--golden", PARAPHRASE, "--json")
    verdict = json.loads(out)
    assert verdict["retriever"] == "bm25"
    counts = verdict["golden"]["outcomes"]["2000"]
    assert sum(counts.values()) == 25 and counts["cut"] == 4


def test_a_baseline_ranked_by_another_retriever_is_noted(capsys, tmp_path):
    baseline = tmp_path / "base.json"
    assert run(capsys, "check", str(SAMPLE), "--spec", "structured:800", "--write-baseline", str(baseline))[0] == 0
    assert json.loads(baseline.read_text())["retriever"] == "bm25"
    _, out, _ = run(capsys, "check", str(SAMPLE), "--spec", "structured:800", "--baseline", str(baseline),
                    "--retriever", "dense")
    assert "the baseline was ranked by bm25, this run by dense" in out


def test_an_openai_compatible_server_ranks_for_check(capsys):
    with EmbeddingServer() as server:
        status, out, _ = run(capsys, "check", str(SAMPLE), "--spec", "structured:800", "--retriever",
                             "dense:openai:test-embed", "--embeddings-url", server.url, "--json")
    assert status == 0 and json.loads(out)["retriever"] == "dense:openai:test-embed"
    assert server.requests and all(len(r["input"]) <= 64 for r in server.requests)


@pytest.mark.parametrize(("args", "message"), [
    (["--retriever", "colbert"], "cannot read retriever 'colbert'"),
    (["--retriever", "dense:model2vec:/nowhere/model"], "no model2vec model folder at /nowhere/model"),
    (["--retriever", "dense:openai:m", "--embeddings-url", "file:///etc/passwd"], "starts with http"),
    (["--golden", "/nowhere/golden.csv"], "golden"),
])
def test_bad_retrieval_arguments_get_one_line_and_exit_2(capsys, args, message):
    status, out, err = run(capsys, "report", str(SAMPLE), "--quiet", "--spec", "fixed:800", *args)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err


def test_an_unreachable_server_is_one_line_and_exit_2(capsys, monkeypatch):
    monkeypatch.setattr("inspector.retrieval.remote.ATTEMPTS", 1)
    monkeypatch.setattr("inspector.retrieval.remote.FIRST_PAUSE", 0.0)
    status, _, err = run(capsys, "check", str(SAMPLE), "--spec", "fixed:800", "--retriever", "dense:openai:m",
                         "--embeddings-url", "http://127.0.0.1:9/v1")
    assert status == 2 and "did not answer" in err and "Traceback" not in err


def test_report_asks_the_users_questions_of_every_splitter_and_of_their_system(capsys, tmp_path):
    sentence = "Every eligible parent receives **18 weeks of fully paid parental leave**, at 100% of base salary"
    lines = [json.dumps({"question": "How long is parental leave?",
                         "retrieved": [{"doc_id": "handbook/parental-leave.md", "text": sentence},
                                       {"doc_id": "handbook/parental-leave.md", "text": "not in the corpus"}]}),
             json.dumps("Which port does the admin listener use?"), "{broken"]
    (tmp_path / "q.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, err = run(capsys, "report", str(SAMPLE), "--questions", str(tmp_path / "q.jsonl"), "--spec",
                           "fixed:800", "--spec", "structured:800", "--json", "--quiet")
    assert status == 0 and "q.jsonl:3: not valid JSON" in err
    section = json.loads(out)["questions"]
    assert (section["questions"], section["left_out"], section["retriever"]) == (2, 1, "bm25")
    fixed, structured = section["rows"]
    assert fixed["fragments"] > structured["fragments"]
    bounds = fixed["intervals"]
    assert bounds["served_fragment"]["of"] == 2 and bounds["fragments"]["questions"] == 2
    assert bounds["fragments"]["low"] <= fixed["fragments"] <= bounds["fragments"]["high"]
    assert bounds["ctx_tokens"]["low"] <= fixed["ctx_tokens"] <= bounds["ctx_tokens"]["high"]
    assert section["yours"]["unplaced"] == 1 and section["yours"]["questions"] == 2
    text = run(capsys, "report", str(SAMPLE), "--questions", str(tmp_path / "q.jsonl"), "--quiet")[1]
    assert "f. your questions q.jsonl: 2 questions, 1 lines left out" in text and "your system" in text
    table = text[text.index("f. your questions"):].splitlines()
    assert table[3].split()[0].startswith("[") and table[3].split()[-1].startswith("["), "intervals under each row"


def test_report_reads_neighbours_once_more_per_expand_width(capsys):
    status, out, _ = run(capsys, "report", str(SAMPLE), "--spec", "fixed:800", "--expand", "1", "--expand", "2",
                         "--golden", str(SAMPLE / "golden-questions.jsonl"), "--json", "--quiet", "--jobs", "2")
    assert status == 0
    report = json.loads(out)
    (row,) = report["compare"]
    one, two = row["expanded"]
    assert (one["expand"], two["expand"]) == (1, 2)
    assert row["answer_at_5"] < one["answer_at_5"] and row["ctx_tokens"] < one["ctx_tokens"] < two["ctx_tokens"]
    golden = report["golden"][0]["rows"]
    assert [r.get("expand", 0) for r in golden] == [0, 1, 2]
    assert golden[0]["recall"]["4000"] < golden[1]["recall"]["4000"]
    status, text, _ = run(capsys, "report", str(SAMPLE), "--spec", "fixed:800", "--expand", "1", "--quiet",
                          "--jobs", "1")
    table_b = text.split("\nb. ")[1].split("\nc. ")[0].splitlines()
    assert table_b[2].startswith("fixed 800") and table_b[3].startswith("  ±1 read")


@pytest.mark.parametrize(("args", "reason"), [
    (("report", "--expand", "0"), "from 1 to 20"),
    (("report", "--expand", "x"), "from 1 to 20"),
    (("check", "--spec", "fixed:800", "--expand", "1", "--expand", "2"), "one --expand width"),
])
def test_a_bad_expand_width_is_refused(capsys, args, reason):
    command, *rest = args
    try:
        status = main([command, str(SAMPLE), *rest])
    except SystemExit as exit_:  # argparse refuses a bad value itself
        status = exit_.code
    assert status == 2 and reason in capsys.readouterr().err


def test_check_holds_the_expanded_reading_to_its_floors(capsys):
    status, out, _ = run(capsys, "check", str(SAMPLE), "--spec", "fixed:800", "--expand", "1",
                         "--min", "answer@5=0.95", "--json")
    assert status == 0
    result = json.loads(out)
    assert result["measures"]["answer@5"] >= 0.95
    assert any("1 neighbour either side" in note for note in result["notes"])
    assert run(capsys, "check", str(SAMPLE), "--spec", "fixed:800", "--min", "answer@5=0.95")[0] == 1


class _SickServer(EmbeddingServer):
    """Answers NaN in every vector while ``sick``, then healthy vectors."""

    sick = True

    def _answer(self, path, body, headers):
        status, reply, extra = super()._answer(path, body, headers)
        if self.sick and status == 200:
            reply = json.dumps(reply).replace('"embedding": [', '"embedding": [NaN, ').encode()
        return status, reply, extra


def test_an_embeddings_server_answering_nan_fails_the_run_and_leaves_nothing_cached(capsys, data):
    args = ["check", str(SAMPLE / "handbook"), "--spec", "structured:800", "--retriever", "dense:openai:m", "--json"]
    with _SickServer() as server:
        status, out, err = run(capsys, *args, "--embeddings-url", server.url)
        assert status == 2 and out == "" and "Traceback" not in err
        assert f"{server.url}/embeddings answered NaN is not a number" in err
        assert VectorStore(data / STORE_NAME).count() == 0
        server.sick = False
        status, out, _ = run(capsys, *args, "--embeddings-url", server.url)
    assert status == 0
    with EmbeddingServer() as healthy:  # the same vectors from a server that was never sick
        assert run(capsys, *args, "--embeddings-url", healthy.url)[1] == out


def test_a_golden_set_of_another_corpus_is_refused_in_one_line_first(tmp_path, capsys):
    golden = tmp_path / "other.jsonl"
    golden.write_text("".join(f'{{"question": "q{i}?", "evidence": "text found nowhere {i}", "doc_id": "x{i}.md"}}\n'
                              for i in range(40)), encoding="utf-8")
    assert main(["check", str(SAMPLE), "--spec", "structured:800", "--golden", str(golden)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no question of other.jsonl could be located in the corpus (40 " in err[0]
    assert "is it the golden set of another corpus?" in err[0]


def test_a_golden_set_with_many_problems_shows_the_first_ten_and_counts_the_rest(tmp_path, capsys):
    lines = [json.dumps(r) for r in map(json.loads, (SAMPLE / "golden-questions.jsonl").read_text().splitlines())]
    lines += [f'{{"question": "q{i}?", "evidence": "text found nowhere {i}"}}' for i in range(25)]
    golden = tmp_path / "mixed.jsonl"
    golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["check", str(SAMPLE), "--spec", "structured:800", "--golden", str(golden), "--json"]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("mixed.jsonl")]
    assert len(err) == 11 and err[-1].startswith("mixed.jsonl: ... and 15 more problems (15 ")


def test_the_chroma_layout_prints_each_golden_set_as_chromas_evaluation_does(capsys, data):
    status, out, _ = run(capsys, "report", str(SAMPLE), "--spec", "recursive:200t", "--golden",
                         str(SAMPLE / "golden-paraphrase.csv"), "--layout", "chroma")
    assert status == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("golden-paraphrase.csv: 25 questions"))
    assert lines[head + 1].split() == ["chunker", "size", "overlap", "recall", "precision", "precision-Ω", "IoU",
                                       "Ω", "(strict)"]
    row = lines[head + 2].split()
    assert row[:3] == ["recursive", "200", "0"] and row.count("±") == 5
    _, as_json, _ = run(capsys, "report", str(SAMPLE), "--spec", "recursive:200t", "--golden",
                        str(SAMPLE / "golden-paraphrase.csv"), "--json")
    (measured,) = json.loads(as_json)["golden"][0]["rows"]
    top = measured["span_scores"]["top 5"]
    assert row[3:6] == [f"{100 * top['recall']:.1f}", "±", f"{100 * top['std']['recall']:.1f}"]
    assert row[9:12] == [f"{100 * measured['precision_omega_chroma']:.1f}", "±",
                         f"{100 * measured['precision_omega_std']['precision_omega_chroma']:.1f}"]
    assert measured["precision_omega_chroma"] <= measured["precision_omega"]


def test_the_chroma_layout_without_a_golden_set_is_refused(capsys):
    assert main(["report", str(SAMPLE), "--layout", "chroma"]) == 2
    assert "--layout chroma lays out golden sets' scores: give one with --golden FILE" in capsys.readouterr().err
