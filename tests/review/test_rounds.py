"""``inspector.review.rounds``: deterministic, shareable rounds, probe-drawn rounds, the questions."""

from __future__ import annotations

import random

import pytest

from inspector import Document, Workspace, load_corpus
from inspector.chunks.sets import make_chunk_set
from inspector.retrieval.probe import run_probe
from inspector.review.reveal import context
from inspector.review.rounds import (
    QUESTIONS,
    ReviewInputError,
    ReviewRound,
    clean_reviewer,
    corpus_fingerprint,
    draw,
    retrieved,
    reviewer_problem,
)
from tests.support.chunks import chunks_of
from tests.support.paths import SAMPLE


def test_an_orphan_round_over_imported_chunks_draws_them_in_any_unit(work):
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "recursive:600"))
    work.add_chunk_set(chunk_set)
    in_tokens = ReviewRound.create(work, f"imported:{chunk_set.id}:o200k", size=10, seed=3)
    in_chars = ReviewRound.create(work, f"imported:{chunk_set.id}", size=10, seed=3)
    assert in_tokens == in_chars and in_chars.spec == f"imported:{chunk_set.id}"
    assert ReviewRound.from_query_params(in_chars.to_query_params()) == in_chars
    drawn = draw(in_chars, work)
    assert len(drawn) == 10 and all(c.chunk.spec == f"imported:{chunk_set.id}" for c in drawn)
    middle = next(c.chunk for c in drawn if 0 < c.chunk.index < len(chunk_set.chunks[c.chunk.doc_id]) - 1)
    around = context(middle, work)
    siblings = chunk_set.chunks[middle.doc_id]
    document = next(d for d in work.documents if d.id == middle.doc_id)
    assert around.previous == siblings[middle.index - 1].text(document)
    assert around.next == siblings[middle.index + 1].text(document)


def test_the_three_questions_are_spelled_out():
    assert [(q.key, q.title) for q in QUESTIONS] == [
        ("address", "Address"), ("references", "References"), ("completeness", "Completeness")]
    assert QUESTIONS[0].text == "Can you tell the document, product and version?"
    assert QUESTIONS[1].text == "Does every it / this / the above resolve inside the chunk?"
    assert QUESTIONS[2].text == "Does every rule, number or table row carry its condition, subject and headers?"


def test_reviewer_names():
    assert clean_reviewer("  Ann Lee ") == "Ann Lee"
    assert reviewer_problem("x" * 80) is None
    for bad in ("", "  ", None, "x" * 81, "a\tb"):
        assert reviewer_problem(bad)
        with pytest.raises(ReviewInputError):
            clean_reviewer(bad)


def test_a_round_id_is_a_stable_hash_of_its_definition():
    definition = ReviewRound("ab" * 16, "structured:800")
    assert definition.id == "94158dc698ebafdd"  # pinned: a changed id orphans every stored answer
    assert ReviewRound("ab" * 16, "structured:800+header").id == definition.id  # same spec, spelled longer
    # In seed mode they are two chunkings (the article's structured splitter repeats no header).
    assert ReviewRound("ab" * 16, "structured:800+header", mode="seed").id != ReviewRound(
        "ab" * 16, "structured:800", mode="seed").id
    others = {ReviewRound("ab" * 16, "structured:800", seed=1).id, ReviewRound("ab" * 16, "structured:800+path").id,
              ReviewRound("ab" * 16, "structured:800", size=21).id, ReviewRound("cd" * 16, "structured:800").id,
              ReviewRound("ab" * 16, "structured:800", source="probe").id,
              ReviewRound("ab" * 16, "structured:800", mode="seed").id}
    assert definition.id not in others and len(others) == 6
    assert ReviewRound.from_dict(definition.to_dict()) == definition


@pytest.mark.parametrize("fields", [
    {"corpus": "not hex", "spec": "structured:800"},
    {"corpus": "ab" * 16, "spec": "structured:0"},
    {"corpus": "ab" * 16, "spec": "structured:800", "size": 0},
    {"corpus": "ab" * 16, "spec": "structured:800", "seed": -1},
    {"corpus": "ab" * 16, "spec": "structured:800", "source": "favourites"},
    {"corpus": "ab" * 16, "spec": "structured:800", "mode": "html"},
])
def test_bad_definitions_are_refused(fields):
    with pytest.raises(ReviewInputError):
        ReviewRound(**fields)


def test_a_round_travels_as_a_link():
    definition = ReviewRound("ab" * 16, "recursive:800+path+header", size=12, seed=9, source="probe")
    params = definition.to_query_params()
    assert ReviewRound.from_query_params(params) == definition
    as_lists = {key: [value] for key, value in params.items()} | {"spec": "fixed:100"}  # app keys ignored
    assert ReviewRound.from_query_params(as_lists) == definition
    assert ReviewRound.from_query_params({"spec": "structured:800"}) is None


@pytest.mark.parametrize("change", [{"rseed": "10"}, {"rsize": "many"}, {"rspec": "structured:-5"},
                                    {"rcorpus": None}, {"rsize": "9" * 5000}, {"rseed": "9" * 4400},
                                    {"rk": "5" * 20}, {"rspec": "fixed:" + "8" * 4500}])
def test_an_edited_or_broken_link_is_refused(change):
    params = ReviewRound("ab" * 16, "structured:800", seed=9).to_query_params()
    for key, value in change.items():
        if value is None:
            del params[key]
        else:
            params[key] = value
    with pytest.raises(ReviewInputError):
        ReviewRound.from_query_params(params)


def test_sampling_is_deterministic_and_follows_the_seed(sample_markdown):
    definition = ReviewRound.create(sample_markdown, "structured:800", seed=4)
    first = [c.chunk.id for c in draw(definition, sample_markdown)]
    fresh = Workspace(list(sample_markdown.documents), "markdown")  # no cached analysis or split
    assert [c.chunk.id for c in draw(definition, fresh)] == first
    assert len(first) == len(set(first)) == 20
    reseeded = [c.chunk.id for c in draw(ReviewRound.create(sample_markdown, "structured:800", seed=5),
                                         sample_markdown)]
    assert reseeded != first


def test_the_sample_is_random_sample_over_the_chunks_in_corpus_order(sample_markdown):
    definition = ReviewRound.create(sample_markdown, "fixed:400/50", seed=77, size=15)
    chunks = sample_markdown.chunks("fixed:400/50")
    documents = {d.id: d for d in sample_markdown.documents}
    pool = [j for j, c in enumerate(chunks) if c.text(documents[c.doc_id]).strip()]
    expected = [chunks[j] for j in random.Random(77).sample(pool, 15)]
    shown = draw(definition, sample_markdown)
    assert [c.chunk for c in shown] == expected
    assert [c.position for c in shown] == list(range(1, 16))
    assert all(c.text == c.chunk.embedded_text(documents[c.chunk.doc_id]) for c in shown)


def test_a_round_shows_everything_when_the_corpus_is_small():
    document = Document("one.md", "# One\n\nFirst paragraph here.\n\nSecond paragraph here.\n")
    workspace = Workspace([document])
    shown = draw(ReviewRound.create(workspace, "paragraph:30", size=20), workspace)
    assert sorted(c.chunk.index for c in shown) == list(range(len(workspace.chunks("paragraph:30"))))


def test_a_round_refuses_another_corpus(sample_markdown):
    definition = ReviewRound.create(sample_markdown, "structured:800")
    other = Workspace([Document("x.md", "# X\n\nSomething else.\n")])
    with pytest.raises(ReviewInputError, match="another corpus"):
        draw(definition, other)
    assert corpus_fingerprint(sample_markdown) == load_corpus(SAMPLE).fingerprint


def test_retrieved_chunks_are_the_ones_the_probe_judged(sample_markdown):
    spec = "recursive:800"
    chunks = sample_markdown.chunks(spec)
    queries = sample_markdown.queries()
    picks = retrieved(sample_markdown, spec)
    assert len(picks) == len(queries) and all(len(top) <= 5 for top in picks)
    answered = cut = 0
    for query, top in zip(queries, picks):
        s0, s1 = query.evidence
        same = [chunks[j] for j in top if chunks[j].doc_id == query.doc_id]
        whole = any(c.start <= s0 and s1 <= c.end for c in same)
        answered += whole
        cut += not whole and any(not (c.end <= s0 or c.start >= s1) for c in same)
    result = run_probe(queries, chunks, sample_markdown.term_table())
    assert (answered, cut) == (result.answered, result.cut)


def test_a_probe_round_draws_only_retrieved_chunks(sample_markdown):
    spec = "structured:800"
    pool = {sample_markdown.chunks(spec)[j].id for top in retrieved(sample_markdown, spec) for j in top}
    probe_round = ReviewRound.create(sample_markdown, spec, source="probe", seed=2)
    shown = [c.chunk.id for c in draw(probe_round, sample_markdown)]
    assert len(shown) == 20 and set(shown) <= pool
    assert probe_round.label == "structured:800 (probe top-5)"
    assert len(pool) < len(sample_markdown.chunks(spec))  # so the restriction means something
