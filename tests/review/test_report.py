"""A round's report: the definition and link, reviewers, the orphan rate by majority with its
interval, each question and Fleiss' kappa, the disagreements with their chunks' text; the same
from ``chunk-inspector review``, in Markdown and JSON; names and texts from outside escaped."""

from __future__ import annotations

import json

import pytest

from inspector import Workspace, load_corpus
from inspector.cli import main
from inspector.confidence import wilson
from inspector.review import ReviewStore
from inspector.review.database import STORE_NAME
from inspector.review.report import round_report
from inspector.review.rounds import ReviewRound, draw
from tests.support.paths import SAMPLE

HOSTILE = "Eve | <b>bold</b> `tick` # heading"
#: Each reviewer's (address, references, completeness) for chunks 1..4: chunk 2 split 2 to 1,
#: chunk 3 split 1 to 2, chunks 1 and 4 agreed (an orphan and a fine one).
ANSWERS = {"ana": [(True, False, True), (False, True, True), (True, True, True), (True, True, True)],
           "ben": [(True, True, False), (True, False, True), (True, True, False), (True, True, True)],
           HOSTILE: [(False, True, True), (True, True, True), (True, True, True), (True, True, True)]}


@pytest.fixture(scope="module")
def answered(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    workspace = Workspace(load_corpus(SAMPLE))
    review_round = ReviewRound.create(workspace, "structured:800", size=4, seed=3)
    chunks = draw(review_round, workspace)
    store = ReviewStore(data / STORE_NAME)
    stored = store.save_round(review_round, [c.chunk.id for c in chunks])
    for reviewer, answers in ANSWERS.items():
        for chunk, (address, references, completeness) in zip(chunks, answers):
            store.save_answer(review_round.id, chunk.chunk.id, chunk.position, reviewer, address=address,
                              references=references, completeness=completeness)
    return data, stored, chunks, store.answers(review_round.id)


def test_the_report_says_the_round_its_rate_agreement_and_disagreements(answered):
    _, stored, chunks, answers = answered
    texts = {c.chunk.id: c.text for c in chunks}
    report = round_report(stored, answers, texts=texts, base_url="https://inspector.acme.com/")
    majority = report.majority
    assert (majority.hits, majority.count) == (2, 4), "chunks 1 and 2 are orphans by majority"
    assert (majority.low, majority.high) == pytest.approx(wilson(2, 4))
    text = report.markdown()
    assert text.startswith(f"# Orphan Test: round {stored.id}\n")
    assert f"<https://inspector.acme.com/orphan-test?spec=structured%3A800&round={stored.id}" in text
    assert f"By majority: **2 of 4** chunks are orphans (50%, 95% interval {wilson(2, 4)[0]:.0%} to " in text
    assert "| Address | 2 of 12 | 17% |" in text and "| References | 2 of 12 | 17% |" in text
    assert "Fleiss' κ" in text and "## Where reviewers disagree (2)" in text
    assert "### Chunk 2: 2 orphan, 1 fine" in text and "### Chunk 3: 1 orphan, 2 fine" in text
    for chunk in (chunks[1], chunks[2]):
        assert "\n" + chunk.text + "\n" in text, "the disagreements' text, whole"
    assert chunks[0].text not in text, "agreed chunks are not repeated"
    assert "Eve \\| \\<b\\>bold\\</b\\> \\`tick\\` \\# heading" in text and "<b>" not in text
    data = report.to_dict()
    assert data["orphan_rate"]["orphans"] == 2 and data["reviewers"] == sorted(ANSWERS)
    assert [d["position"] for d in data["disagreements"]] == [2, 3] and data["disagreements"][0]["text"]


def test_a_chunk_text_with_fences_stays_inside_its_own(answered):
    _, stored, chunks, answers = answered
    texts = {c.chunk.id: "```\n=cmd\n````\nafter" for c in chunks}
    text = round_report(stored, answers, texts=texts).markdown()
    assert "`````text\n```\n=cmd\n````\nafter\n`````" in text


def test_the_command_prints_the_same_report(answered, capsys):
    data, stored, chunks, answers = answered
    texts = {c.chunk.id: c.text for c in chunks}
    assert main(["review", stored.id, str(SAMPLE), "--data", str(data)]) == 0
    assert capsys.readouterr().out == round_report(stored, answers, texts=texts).markdown()
    assert main(["review", stored.id, "--data", str(data), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["round_id"] == stored.id and printed["disagreements"][0]["text"] is None
    assert printed["link"].startswith("orphan-test?spec=structured%3A800")


@pytest.mark.parametrize("argv, said", [
    (["review", "0123456789abcdef"], "no round '0123456789abcdef' in the review store (it has: "),
    (["review", "ROUND", str(SAMPLE / "handbook")], "is not the corpus round"),
])
def test_a_round_or_corpus_that_is_not_there_is_one_line_and_exit_2(answered, capsys, argv, said):
    data, stored, _, _ = answered
    argv = [stored.id if a == "ROUND" else a for a in argv]
    assert main([*argv, "--data", str(data)]) == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_folder_without_a_review_store_is_said(tmp_path, capsys):
    assert main(["review", "0123456789abcdef", "--data", str(tmp_path)]) == 2
    assert "holds no review store" in capsys.readouterr().err
    assert not (tmp_path / STORE_NAME).exists(), "nothing is created"


def test_the_report_lists_each_change_of_mind_and_counts_the_repeated_saves(tmp_path, capsys):
    workspace = Workspace(load_corpus(SAMPLE))
    review_round = ReviewRound.create(workspace, "structured:800", size=2, seed=5)
    chunks = draw(review_round, workspace)
    store = ReviewStore(tmp_path / STORE_NAME)
    stored = store.save_round(review_round, [c.chunk.id for c in chunks])
    saves = [("ana", 0, (True, True, True)), ("ana", 0, (True, False, True)), ("ben", 1, (False, True, True)),
             ("ben", 1, (False, True, True)), ("ana", 1, (True, True, True))]
    for reviewer, index, (address, references, completeness) in saves:
        store.save_answer(review_round.id, chunks[index].chunk.id, index + 1, reviewer, address=address,
                          references=references, completeness=completeness)
    from inspector.review import answer_history

    history = answer_history(store.history(review_round.id))
    report = round_report(stored, store.answers(review_round.id), history=history)
    text = report.markdown()
    assert "## Changed answers (1)" in text and "1 save repeated the answer already saved." in text
    (row,) = [line for line in text.splitlines() if line.startswith("| 1 | ana |")]
    assert row.startswith("| 1 | ana | yes · yes · yes | yes · no · yes | 20")
    changes = report.to_dict()["changes"]
    assert [(c["reviewer"], c["position"], c["before"], c["after"]) for c in changes] == \
        [("ana", 1, "yes · yes · yes", "yes · no · yes")] and report.to_dict()["repeated_saves"] == 1
    assert main(["review", stored.id, "--data", str(tmp_path)]) == 0
    assert capsys.readouterr().out == text, "the command prints the same report"
