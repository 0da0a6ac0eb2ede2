"""``inspector.retrieval.questions``: the user's own questions in the forms they keep them."""

from __future__ import annotations

import json

import pytest

from inspector.errors import QuestionsError
from inspector.retrieval.questions import MAX_QUESTION_CHARS, QuestionSet, QuestionSetStore, load_questions


def jsonl(*values) -> bytes:
    return ("\n".join(json.dumps(v) for v in values) + "\n").encode()


def test_json_lines_with_and_without_what_was_retrieved():
    data = jsonl({"question": "How long is parental leave?",
                  "retrieved": ["18 weeks of paid leave", {"doc_id": "handbook/p.md", "start": 0, "end": 9,
                                                           "chunk_id": "c7"}]},
                 "Which port does the admin listener use?",
                 {"query": "  How do I\nrotate   certificates? "})
    questions = load_questions(data, name="q.jsonl")
    assert questions.texts == ["How long is parental leave?", "Which port does the admin listener use?",
                               "How do I rotate certificates?"]
    first = questions.items[0].retrieved
    assert [r.text for r in first] == ["18 weeks of paid leave", None]
    assert [r.chunk_id for r in first] == ["line 1 #1", "c7"] and first[1].doc_ref == "handbook/p.md"
    assert questions.has_retrieved and questions.problems == ()


def test_csv_and_plain_text():
    data = b'question,retrieved\nWhich port?,"[""The admin port is 7440.""]"\nWho approves travel?,\n'
    questions = load_questions(data, name="q.csv")
    assert questions.texts == ["Which port?", "Who approves travel?"]
    assert [len(q.retrieved) for q in questions.items] == [1, 0]
    assert [q.line for q in questions.items] == [2, 3]
    plain = load_questions(b"Which port?\n\nWho approves travel?\n", name="q.txt")
    assert plain.texts == ["Which port?", "Who approves travel?"] and not plain.has_retrieved


@pytest.mark.parametrize(("data", "says"), [
    (b'{"question": ""}\n', "non-empty 'question'"),
    (b'{"question": "q", "retrieved": "a chunk"}\n', "must be a list"),
    (b'{"question": "q", "retrieved": [7]}\n', "retrieved chunk 1: expected an object"),
    (b'{"question": "q", "retrieved": [{"doc_id": "a.md"}]}\n', "retrieved chunk 1: no chunk text and no offsets"),
    (b"{not json\n", "not valid JSON"),
    (b"[1, 2]\n", "not a question or an object"),
    (b"query;text\nq;x\n", None),
    (('{"question": "' + "w " * MAX_QUESTION_CHARS + '"}\n').encode(), "at most 2,000 characters"),
])
def test_a_bad_line_is_left_out_with_its_reason(data, says):
    questions = load_questions(data, name="q.jsonl" if says else "q.txt")
    if says is None:  # not JSON, not a CSV header it knows: read as plain questions
        assert questions.texts == ["query;text", "q;x"]
        return
    assert questions.items == () and says in questions.problems[0].message


def test_a_csv_without_a_question_column_says_so():
    questions = load_questions(b"text,answer\nq,a\n", name="q.csv")
    assert questions.items == () and "no 'question' column" in questions.problems[0].message


def test_a_file_that_cannot_be_read_is_an_error_with_its_name(tmp_path):
    with pytest.raises(QuestionsError, match="cannot read question file"):
        load_questions(tmp_path / "missing.jsonl")
    with pytest.raises(QuestionsError, match="not UTF-8|UTF-8"):
        load_questions(b"\xff\xfe\x00q", name="q.txt")


def test_the_id_names_the_questions_and_the_store_keeps_them(tmp_path):
    questions = load_questions(jsonl("a?", "b?"), name="q.jsonl")
    assert questions.id == load_questions(b"a?\nb?\n", name="other.txt").id
    assert questions.id != load_questions(b"b?\na?\n").id
    store = QuestionSetStore(tmp_path / "question-sets")
    assert store.put(questions) == questions.id
    kept = store.get(questions.id)
    assert kept.texts == questions.texts and kept.name == "q.jsonl" and kept.id == questions.id
    (tmp_path / "question-sets" / f"{questions.id}.json").write_text(json.dumps({"name": "x", "questions": ["c?"]}))
    with pytest.raises(QuestionsError, match="changed on disk"):
        store.get(questions.id)
    with pytest.raises(QuestionsError, match="no question set 0123456789abcdef"):
        store.get("0123456789abcdef")
    with pytest.raises(QuestionsError, match="16 lowercase hex digits"):
        store.get("../../etc/passwd")


def test_retrieved_chunks_are_listed_once_with_each_questions_ranks():
    data = jsonl({"question": "a?", "retrieved": ["one", "two"]}, {"question": "b?", "retrieved": ["two", "three"]})
    records, per_question = load_questions(data).retrieved_records()
    assert [r.text for r in records] == ["one", "two", "three"]
    assert per_question == [[0, 1], [1, 2]]
    assert QuestionSet("x", ()).retrieved_records() == ([], [])
