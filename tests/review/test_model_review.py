"""A chat model as an extra Orphan Test reviewer: its replies read strictly (a "maybe", nothing or
broken JSON is no answer, never a yes), kept by model, prompt and chunk, Cohen's kappa against
the team's majority, and the corpus's orphan rate over more chunks, all through
``chunk-inspector review --model`` against a chat server on the loopback address."""

from __future__ import annotations

import json

import pytest

from inspector import Workspace, load_corpus
from inspector.cli import main
from inspector.confidence import wilson
from inspector.review import ReviewStore
from inspector.review.database import STORE_NAME
from inspector.review.model_review import (
    ModelAnswers,
    cohen_kappa,
    plan_review,
    read_answer,
    sampled_chunks,
    text_hash,
)
from inspector.review.rounds import ReviewRound, draw
from tests.support.chat import ChatServer, judge
from tests.support.paths import SAMPLE

WORKSPACE = Workspace(load_corpus(SAMPLE))
ROUND = ReviewRound.create(WORKSPACE, "structured:800", size=20, seed=4)
CHUNKS = draw(ROUND, WORKSPACE)


@pytest.mark.parametrize("reply, said", [
    ('{"address": "yes", "references": "no", "completeness": "YES"}', (True, False, True, "")),
    ('```json\n{"address": true, "references": false, "completeness": "no"}\n```', (True, False, False, "")),
    ('{"address": "maybe", "references": "yes", "completeness": "yes"}',
     (None, None, None, "address is 'maybe', not yes or no")),
    ("", (None, None, None, "the model answered nothing")),
    ('{"address": "yes", "references": ', (None, None, None, 'not JSON: \'{"address": "yes", "references":\'')),
    ('["yes", "yes", "yes"]', (None, None, None, "not a JSON object: '[\"yes\", \"yes\", \"yes\"]'")),
    ('{"address": "yes", "references": "yes"}', (None, None, None, "completeness is 'None', not yes or no")),
])
def test_a_reply_is_read_strictly_and_anything_but_yes_or_no_is_no_answer(reply, said):
    answer = read_answer(reply)
    assert (answer.address, answer.references, answer.completeness, answer.problem) == said
    assert answer.orphan is (None if said[3] else not all(said[:3]))


def test_cohen_s_kappa_by_hand():
    # 10 pairs: both yes 4, both no 3, first only 2, second only 1: po .7, pe .6*.5 + .4*.5 = .5, kappa .4.
    pairs = [(True, True)] * 4 + [(False, False)] * 3 + [(True, False)] * 2 + [(False, True)]
    assert cohen_kappa(pairs) == pytest.approx(0.4)
    assert cohen_kappa([(True, True)] * 3) is None and cohen_kappa([]) is None
    assert cohen_kappa([(True, False), (False, True)]) == pytest.approx(-1.0)


def team_said(chunk, rule=judge) -> dict[str, dict[str, bool]]:
    """Two reviewers: Ana answers as the model's rule does, Ben differs on the address of the
    chunks at even positions."""
    ana = {k: v == "yes" for k, v in rule(chunk.text).items()}
    return {"ana": ana, "ben": {**ana, "address": not ana["address"]} if chunk.position % 2 == 0 else ana}


def team_answers(store, chunks, rule=judge):
    for chunk in chunks:
        for reviewer, said in team_said(chunk, rule).items():
            store.save_answer(ROUND.id, chunk.chunk.id, chunk.position, reviewer, **said)


def expected_kappa(chunks):
    """Kappa of the model (the rule, so Ana) against the team's majority, ties (Ana and Ben split)
    left out."""
    pairs = []
    for chunk in chunks:
        ana, ben = (not all(said.values()) for said in team_said(chunk).values())
        if ana == ben:
            pairs.append((ana, ana))
    return cohen_kappa(pairs), len(pairs)


def test_the_model_reviews_the_round_and_estimates_the_corpus(tmp_path, capsys):
    store = ReviewStore(tmp_path / STORE_NAME)
    store.save_round(ROUND, [c.chunk.id for c in CHUNKS])
    team_answers(store, CHUNKS)
    argv = ["review", ROUND.id, str(SAMPLE), "--data", str(tmp_path), "--model", "judge-1", "--sample", "200"]
    assert main([*argv, "--dry-run"]) == 0
    said = capsys.readouterr()
    assert "model: 220 chunks, 0 already answered by judge-1: 220 prompts to send" in said.err
    assert "Model reviewer" not in said.out, "a dry run sends nothing and reports no model"
    assert main([*argv, "--context-url", "http://127.0.0.1:9/v1"]) == 1, "no terminal and no --yes: nothing sent"
    assert "nothing sent: 220 requests need --yes" in capsys.readouterr().err
    with ChatServer() as server:
        assert main([*argv, "--context-url", server.url, "--yes", "--json"]) == 0
        assert len(server.prompts) == 220
        printed = json.loads(capsys.readouterr().out)
        model = printed["model"]
        kappa, compared = expected_kappa(CHUNKS)
        assert model["reviewer"] == "model: judge-1" and model["compared"] == compared
        assert model["kappa"] == pytest.approx(kappa) and model["unanswered"] == []
        assert model["per_question"]["references"] == 1.0 and model["per_question"]["completeness"] == 1.0
        sample = sampled_chunks(ROUND, WORKSPACE, 200)
        assert len(sample) == 200 and not {c.chunk.id for c in sample} & {c.chunk.id for c in CHUNKS}
        orphans = sum("no" in judge(c.text).values() for c in sample)
        assert model["sample"]["orphan_rate"]["orphans"] == orphans and model["sample"]["answered"] == 200
        assert (model["sample"]["orphan_rate"]["low"], model["sample"]["orphan_rate"]["high"]) == \
            pytest.approx(wilson(orphans, 200))
        assert main([*argv, "--context-url", server.url]) == 0, "every answer kept: nothing to confirm"
        assert len(server.prompts) == 220, "nothing asked twice"
        text = capsys.readouterr().out
    assert "## Model reviewer: model: judge-1" in text and f"over {compared} chunks the team judged" in text
    assert (f"200 more chunks drawn by the round's definition with seed {ROUND.seed + 1}: **{orphans} of 200** "
            "answered are orphans") in text


def test_no_answer_is_counted_as_none_and_named(tmp_path):
    kept = ModelAnswers(tmp_path)
    texts = ["# A\n\nFine text.", "MAYBE this", "SILENT", "BROKEN"]
    plan = plan_review(texts, "judge-1", kept)
    assert len(plan.to_ask) == 4 and plan.input_tokens > 0
    from inspector.context.writer import ChatEndpoint
    from inspector.review.model_review import ask_model

    with ChatServer() as server:
        assert ask_model(plan, ChatEndpoint(server.url, "judge-1", attempts=1), kept) == []
    answers = kept.get("judge-1", texts)
    assert answers[text_hash(texts[0])].complete
    problems = [answers[text_hash(t)].problem for t in texts[1:]]
    assert problems[0] == "address is 'maybe', not yes or no" and problems[1] == "the model answered nothing"
    assert problems[2].startswith("not JSON")
    assert all(answers[text_hash(t)].orphan is None for t in texts[1:]), "never read as a yes"
    assert plan_review(texts, "judge-1", kept).to_ask == (), "kept, as they were given"
    assert plan_review(texts, "judge-2", kept).to_ask == tuple(texts), "kept per model"
