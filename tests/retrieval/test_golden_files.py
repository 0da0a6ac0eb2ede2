"""``inspector.retrieval.golden_files``: golden sets as the field writes them (ours, Chroma's CSV,
a plain CSV), several quotes per question, offsets that pin one copy, quotes trimmed."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from inspector import Chunk, Document
from inspector.retrieval.golden import evaluate_golden, golden_recall
from inspector.retrieval.golden_files import load_golden
from inspector.retrieval.terms import TermTable
from tests.support.paths import SAMPLE

PARAPHRASE = SAMPLE / "golden-paraphrase.csv"
REPEATED = "Restart the broker after changing this setting."
DOC = Document("product/ops.md", (
    "# Ports\n\nThe admin port is 7440.\n\n" + REPEATED + "\n\n"
    "# Storage\n\nThe segment size is 256 MiB.\n\n" + REPEATED + "\n"))
OTHER = Document("product/notes.md", "Notes: nothing about ports here.\n")


def chroma_csv(rows) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["question", "references", "corpus_id"])
    for question, refs, corpus_id in rows:
        writer.writerow([question, json.dumps(refs), corpus_id])
    return out.getvalue().encode()


def ref(text: str, start: int) -> dict:
    return {"content": text, "start_index": start, "end_index": start + len(text)}


def test_the_bundled_paraphrase_set_is_chromas_format_and_shares_no_long_word(sample_markdown):
    golden = load_golden(PARAPHRASE, sample_markdown)
    assert golden.format == "chroma-csv" and golden.problems == ()
    assert len(golden.items) >= 20 and golden.quotes > len(golden.items), "some questions have several quotes"
    assert {q.match for item in golden.items for q in item.quotes} == {"offsets"}
    long_words = lambda text: {w.lower() for w in re.findall(r"[A-Za-z0-9]+", text) if len(w) >= 6}
    for item in golden.items:
        for quote in item.quotes:
            assert not long_words(item.question) & long_words(quote.text), item.question


def test_paraphrases_are_found_more_often_by_meaning_than_by_words(sample_markdown):
    golden = load_golden(PARAPHRASE, sample_markdown)
    lexical = golden_recall(sample_markdown, golden, "structured:800")
    dense = golden_recall(sample_markdown, golden, "structured:800", retriever="dense")
    hybrid = golden_recall(sample_markdown, golden, "structured:800", retriever="hybrid")
    assert (lexical.retriever, dense.retriever, hybrid.retriever) == ("bm25", "dense", "hybrid")
    assert dense.recall(4000) > lexical.recall(4000)
    assert hybrid.recall(4000) > lexical.recall(4000)


def test_chromas_csv_is_read_as_published_with_bare_corpus_ids():
    admin = DOC.text.index("The admin port")
    data = chroma_csv([
        ("Which port is the admin one?", [ref("The admin port is 7440.", admin)], "product/ops"),
        ("What is the segment size?", [ref("The segment size is 256 MiB.", DOC.text.index("The segment"))],
         "product/ops.md"),
    ])
    golden = load_golden(data, [DOC, OTHER], name="questions_df.csv")
    assert golden.format == "chroma-csv" and golden.problems == ()
    assert [item.line for item in golden.items] == [2, 3]
    assert golden.items[0].quotes[0].locations == ((DOC.id, admin, admin + 23),)
    assert golden.items[0].quotes[0].match == "offsets" and golden.items[0].folder == "product"


def test_offsets_pick_the_copy_of_a_repeated_quote():
    second = DOC.text.rindex(REPEATED)
    data = chroma_csv([("When must the broker restart after a storage change?", [ref(REPEATED, second)],
                        "product/ops")])
    (item,) = load_golden(data, [DOC]).items
    assert item.quotes[0].locations == ((DOC.id, second, second + len(REPEATED)),)
    table = TermTable([(DOC.id, DOC.text)])
    split = DOC.text.index("# Storage")
    chunks = [Chunk(DOC.id, 0, 0, split), Chunk(DOC.id, 1, split, len(DOC.text))]
    golden = load_golden(data, [DOC])
    only_first = evaluate_golden(golden, chunks[:1], table, budgets=(10_000,), length="chars")
    assert only_first.questions[0].outcomes == ("uncovered",), "the first copy does not answer it"
    both = evaluate_golden(golden, chunks, table, budgets=(10_000,), length="chars")
    assert both.questions[0].outcomes == ("hit",)
    without = load_golden(json.dumps({"question": "restart broker", "evidence": REPEATED}).encode(), [DOC])
    assert len(without.items[0].quotes[0].locations) == 2, "with no offsets, either copy answers"
    assert evaluate_golden(without, chunks[:1], table, budgets=(10_000,), length="chars").questions[0].outcomes \
        == ("hit",)


def test_offsets_that_miss_their_quote_take_the_nearest_copy_and_say_so():
    second = DOC.text.rindex(REPEATED)
    data = chroma_csv([("q", [ref(REPEATED, second + 7)], "product/ops")])
    golden = load_golden(data, [DOC])
    assert golden.items[0].quotes[0].locations == ((DOC.id, second, second + len(REPEATED)),)
    assert [(p.line, p.kind) for p in golden.problems] == [(2, "moved")]
    assert "nearest copy" in golden.problems[0].message and golden.left_out() == 0


def test_quotes_are_compared_without_their_surrounding_whitespace():
    admin = DOC.text.index("The admin port")
    padded = " The admin port is 7440.\n"  # Chroma's references often carry a space
    data = chroma_csv([("Which is the admin port?", [ref(padded, admin - 1)], "product/ops")])
    (item,) = load_golden(data, [DOC]).items
    assert item.quotes[0].text == "The admin port is 7440."
    assert item.quotes[0].locations == ((DOC.id, admin, admin + 23),) and item.quotes[0].match == "offsets"
    table = TermTable([(DOC.id, DOC.text)])
    tight = [Chunk(DOC.id, 0, admin, admin + 23), Chunk(DOC.id, 1, admin + 23, len(DOC.text))]
    result = evaluate_golden(load_golden(data, [DOC]), tight, table, budgets=(10_000,), length="chars")
    assert result.questions[0].outcomes == ("hit",), "the padding is not charged as a cut"
    plain = load_golden(json.dumps({"question": "q", "evidence": "  The admin port is 7440. "}).encode(), [DOC])
    assert plain.items[0].quotes[0].match == "exact"


def test_several_quotes_are_scored_every_and_any():
    admin, segment = DOC.text.index("The admin port is 7440."), DOC.text.index("The segment size is 256 MiB.")
    data = json.dumps({"question": "admin port and segment size",
                       "evidence": ["The admin port is 7440.", "The segment size is 256 MiB."]}).encode()
    golden = load_golden(data, [DOC])
    assert golden.quotes == 2 and len(golden.items[0].quotes) == 2
    table = TermTable([(DOC.id, DOC.text)])
    split = DOC.text.index("# Storage")
    chunks = [Chunk(DOC.id, 0, 0, split), Chunk(DOC.id, 1, split, len(DOC.text))]
    one_chunk = chunks[0].end - chunks[0].start
    result = evaluate_golden(golden, chunks, table, budgets=(one_chunk, 10_000), length="chars")
    (q,) = result.questions
    assert q.outcomes == ("rank-miss", "hit") and q.outcomes_any[1] == "hit"
    assert q.outcomes_any[0] == "hit" or q.tokens_needed_any > one_chunk
    assert result.recall(10_000) == 1.0 == result.recall(10_000, "any")
    cut = [Chunk(DOC.id, 0, 0, segment + 5), Chunk(DOC.id, 1, segment + 5, len(DOC.text))]
    broken = evaluate_golden(golden, cut, table, budgets=(10_000,), length="chars").questions[0]
    assert broken.outcomes == ("cut",) and broken.outcomes_any == ("hit",), "one quote cut: every fails, any holds"
    assert result.as_dict()["quotes"] == 2 and set(result.as_dict()["recall_any"]) == {str(one_chunk), "10000"}
    assert admin < split


def test_chroma_references_can_sit_in_json_lines_too():
    admin = DOC.text.index("The admin port")
    line = json.dumps({"question": "q", "references": [ref("The admin port is 7440.", admin)], "corpus_id": "ops"})
    golden = load_golden(line.encode(), [DOC])
    assert golden.format == "jsonl" and golden.items[0].quotes[0].match == "offsets"


@pytest.mark.parametrize(("data", "kind", "says"), [
    (b"question,references,corpus_id\nq,not json,product/ops\n", "malformed", "'references' is not a JSON list"),
    (b"question,references,corpus_id\nq,[],product/ops\n", "malformed", "non-empty list"),
    (b'question,references,corpus_id\nq,"[{""content"": ""x"", ""start_index"": ""a"", ""end_index"": 3}]",ops\n',
     "malformed", "whole numbers"),
    (b'question,references,corpus_id\nq,"[{""content"": ""x"", ""start_index"": 5, ""end_index"": 2}]",ops\n',
     "malformed", "do not make a span"),
    (b"question,references,corpus_id\nq,\"[]\",a,b\n", "malformed", "4 cells where the header has 3"),
    (b'question,references,corpus_id\nq,"[{""content"": ""x""}]",nowhere\n', "unknown-document", "nowhere"),
    (b"query,answer\nq,a\n", "malformed", "no 'question' column"),
    (b"this is not a golden set\n", "malformed", "a golden set is JSON Lines"),
])
def test_a_line_that_is_not_the_format_says_so(data, kind, says):
    golden = load_golden(data, [DOC, OTHER], name="g.csv")
    assert golden.items == ()
    assert golden.problems[0].kind == kind and says in golden.problems[0].message


def test_an_ambiguous_bare_id_is_refused_with_the_candidates():
    twins = [Document("a/ops.md", "x"), Document("a/ops.txt", "x")]
    golden = load_golden(json.dumps({"question": "q", "evidence": "x", "doc_id": "a/ops"}).encode(), twins)
    assert golden.problems[0].kind == "unknown-document"


def test_a_plain_csv_with_question_and_evidence_columns():
    data = b'question,evidence,doc_id\nWhich port?,The admin port is 7440.,product/ops\n'
    golden = load_golden(data, [DOC], name="mine.csv")
    assert golden.format == "csv" and golden.items[0].quotes[0].match == "exact"
