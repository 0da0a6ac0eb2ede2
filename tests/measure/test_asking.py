"""``inspector.measure.asking``: the user's questions asked of a split, by our retriever or as
their own system answered them; atom fragments judged by span."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from inspector import Document, Workspace
from inspector.measure.asking import ask, ask_theirs, fragments, unplaced
from inspector.measure.survival import Interior
from inspector.retrieval.questions import QuestionSetStore, load_questions
from inspector.retrieval.ranking import Question
from inspector.review.rounds import ReviewRound, draw

DOC = Document("ops/ports.md", (
    "# Ports\n\nThe admin listener adds 17% latency under load, measured over 3 weeks.\n\n"
    "| port | use |\n|---|---|\n| 7440 | admin |\n| 7430 | replication |\n\n"
    "Tea, gardens and weather fill the rest of this page without a single figure.\n"))


def questions(*values) -> bytes:
    return ("\n".join(json.dumps(v) for v in values) + "\n").encode()


SPANS = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 20)).map(lambda t: (t[0], t[0] + t[1])), max_size=8)


@given(SPANS, st.integers(0, 70))
def test_interior_agrees_with_a_scan_of_every_atom(atoms, offset):
    assert Interior(atoms).inside(offset) == any(a < offset < b for a, b in atoms)


def test_a_chunk_holding_part_of_an_atom_is_a_fragment():
    work = Workspace([DOC])
    sentence = DOC.text.index("The admin")
    table = DOC.text.index("| port")
    flags = fragments(work, [(DOC.id, 0, sentence + 10), (DOC.id, 0, table), (DOC.id, table + 5, len(DOC.text)),
                             (DOC.id, 0, len(DOC.text))])
    assert flags == [True, False, True, False]


def test_asking_ranks_the_questions_against_the_split(sample_markdown):
    asked = load_questions(questions("Which port does the admin listener bind?", "Who approves travel?"))
    result = ask(sample_markdown, "fixed:400", asked, k=3)
    pool = sample_markdown.pool("fixed:400")
    expected = sample_markdown.retriever("bm25").rank([Question.of(t) for t in asked.texts], pool, 3)
    assert [list(top) for top in result.picked] == expected
    assert result.questions == 2 and len(result.fragment) == len(pool) and all(len(t) == 3 for t in result.picked)
    assert 0 < result.context_tokens and 0 <= result.fragment_rate <= 1
    fixed = ask(sample_markdown, "fixed:400", asked, k=5).fragment_rate
    structured = ask(sample_markdown, "structured:800", asked, k=5).fragment_rate
    assert structured < fixed, "fixed windows hand back more broken atoms than a structure-aware split"


def test_their_systems_chunks_are_placed_by_span_and_what_cannot_be_is_reported():
    work = Workspace([DOC, Document("other.md", "Nothing here.\n")])
    sentence = "The admin listener adds 17% latency under load, measured over 3 weeks."
    asked = load_questions(questions(
        {"question": "admin port?", "retrieved": [{"doc_id": DOC.id, "text": sentence},
                                                  {"doc_id": DOC.id, "text": "adds 17% latency"},
                                                  {"doc_id": DOC.id, "text": "never in the corpus"}]},
        {"question": "again?", "retrieved": [{"doc_id": DOC.id, "text": sentence}]},
        "no retrieval for this one"))
    result, placed = ask_theirs(work, asked)
    assert placed.imported == 2 and [r.text for r in unplaced(asked, placed)] == ["never in the corpus"]
    assert [p.kind for p in placed.problems] == ["not-found"]
    assert result.picked == ((0, 1), (0,), ())
    start = DOC.text.index(sentence)
    assert result.spans[0] == (DOC.id, start, start + len(sentence))
    assert result.fragment == (False, True), "a piece of the sentence is a fragment; the whole one is not"
    assert result.fragment_rate == 1 / 3 and result.served_fragment == 1 / 3


def test_a_round_drawn_from_the_users_questions(sample_markdown, tmp_path):
    asked = load_questions(questions("Which port does the admin listener bind?", "How long is parental leave?"))
    store = QuestionSetStore(tmp_path)
    work = Workspace(list(sample_markdown.documents))
    work.question_store = store
    store.put(asked)
    review_round = ReviewRound.create(work, "structured:800", source="questions", questions=asked.id, k=2, size=50)
    shown = draw(review_round, work)
    top = ask(work, "structured:800", asked, k=2).picked
    chunks = work.chunks("structured:800")
    assert {c.chunk.id for c in shown} == {chunks[j].id for t in top for j in t}
    assert ReviewRound.from_query_params(review_round.to_query_params()) == review_round
    assert review_round.to_query_params()["rq"] == asked.id and "questions" in review_round.label
    assert ReviewRound.create(work, "structured:800").to_dict().keys() == {
        "corpus", "spec", "mode", "size", "seed", "source", "k"}, "older rounds keep their ids"
