"""Orphan Test rounds (deterministic, shareable), probe-drawn rounds, suspect hints, reveal."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from inspector import Chunk, Document, Workspace, analyze, load_corpus
from inspector.retrieval.probe import run_probe
from inspector.review.reveal import context, suspect_summary, suspects
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

SAMPLE = Path(__file__).parent.parent / "sample_corpus"


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


# -- rounds ------------------------------------------------------------------------------------

def test_a_round_id_is_a_stable_hash_of_its_definition():
    definition = ReviewRound("ab" * 16, "structured:800")
    assert definition.id == "94158dc698ebafdd"  # pinned: a changed id orphans every stored answer
    assert ReviewRound("ab" * 16, "structured:800+header").id == definition.id  # same spec, spelled longer
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
                                    {"rcorpus": None}])
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


# -- suspect hints -----------------------------------------------------------------------------

DOC = """# Gateway 2.3 guide

## Rate limits

The Pro plan allows bursts. It is capped at 500 per minute.

It is capped at 500 per minute.

| Plan | Limit |
|------|-------|
| Free | 10 |
| Pro | 500 |

- These apply to 3 regions.

Item 5 costs 3 credits.

```
this = 1
```
"""


def hints_for(text, start_at, end_at=None, prefix=""):
    document = Document("guide.md", text)
    analysis = analyze(text, "markdown")
    a = text.index(start_at)
    b = len(text) if end_at is None else text.index(end_at, a) + len(end_at)
    return {h.code: h for h in suspects(Chunk("guide.md", 0, a, b, prefix, "test"), document, analysis)}


def test_a_chunk_that_opens_with_a_pronoun_is_suspect():
    found = hints_for(DOC, "It is capped at 500 per minute.\n\n|", "per minute.")
    assert set(found) == {"dangling_reference", "nameless_number", "no_heading_path"}
    assert "\u201cIt\u201d" in found["dangling_reference"].message
    listed = hints_for(DOC, "- These apply", "regions.")
    assert "dangling_reference" in listed and "nameless_number" in listed  # a list marker does not hide it


def test_a_chunk_with_its_heading_and_named_subject_is_clean():
    assert hints_for(DOC, "## Rate limits", "500 per minute.") == {}


def test_a_pronoun_after_a_named_sentence_is_not_a_nameless_number():
    found = hints_for(DOC, "The Pro plan allows", "500 per minute.")
    assert "nameless_number" not in found and "dangling_reference" not in found


def test_a_word_that_merely_starts_like_a_pronoun_is_not_flagged():
    found = hints_for(DOC, "Item 5 costs", "credits.", prefix="Gateway 2.3 guide > Rate limits\n")
    assert found == {}


def test_code_is_not_read_as_prose():
    assert "dangling_reference" not in hints_for(DOC, "```\nthis", "```\n", prefix="Gateway > Code\n")


def test_a_heading_path_prefix_clears_the_address_hint():
    found = hints_for(DOC, "It is capped at 500 per minute.\n\n|", "per minute.",
                      prefix="Gateway 2.3 guide > Rate limits\n")
    assert "no_heading_path" not in found and "dangling_reference" in found


def test_table_rows_need_their_header():
    rows_only = hints_for(DOC, "| Free", "| Pro | 500 |")
    assert "headerless_row" in rows_only and "2 rows" in rows_only["headerless_row"].message
    header = "| Plan | Limit |\n|------|-------|\n"
    assert "headerless_row" not in hints_for(DOC, "| Free", "| Pro | 500 |", prefix=header)
    assert "headerless_row" not in hints_for(DOC, "| Plan", "| Pro | 500 |")
    # A path prefix alone is not a header, and it still counts as a path with a header after it.
    assert "headerless_row" in hints_for(DOC, "| Free", "| Pro | 500 |", prefix="Gateway 2.3 guide\n")
    assert "no_heading_path" not in hints_for(DOC, "| Free", "| Pro | 500 |", prefix="Guide\n" + header)
    assert "no_heading_path" in hints_for(DOC, "| Free", "| Pro | 500 |", prefix=header)


def test_no_headings_means_no_address_hint_and_blank_chunks_have_none():
    plain = "Just a note.\n\nIt is 5 metres long.\n"
    found = hints_for(plain, "It is 5")
    assert set(found) == {"dangling_reference", "nameless_number"}
    assert hints_for(DOC + "\n\n\n", "\n\n\n") == {}


def test_path_prefixes_and_repeated_headers_lower_the_suspects(sample_markdown):
    for plain, stamped in (("structured:800", "structured:800+path"), ("recursive:800", "recursive:800+path+header")):
        before, after = suspect_summary(sample_markdown, plain), suspect_summary(sample_markdown, stamped)
        assert after.hints < before.hints and after.flagged < before.flagged
        assert after.by_code["no_heading_path"] < before.by_code["no_heading_path"]
    plain, stamped = suspect_summary(sample_markdown, "recursive:800"), suspect_summary(sample_markdown,
                                                                                        "recursive:800+header")
    assert stamped.by_code["headerless_row"] < plain.by_code["headerless_row"]


# -- reveal ------------------------------------------------------------------------------------

def test_context_gives_the_neighbours_and_the_heading_path(sample_markdown):
    spec = "structured:800"
    document = sample_markdown.documents[3]
    siblings = sample_markdown.split(spec)[3].chunks
    assert len(siblings) >= 3
    middle = context(siblings[1], sample_markdown)
    assert middle.previous == siblings[0].text(document) and middle.next == siblings[2].text(document)
    assert middle.heading_path == sample_markdown.analysis(document).heading_path(siblings[1].start)
    assert middle.title == document.title
    assert context(siblings[0], sample_markdown).previous is None
    assert context(siblings[-1], sample_markdown).next is None


def test_context_works_for_seed_mode_chunks():
    document = Document("a.md", "# Title\n\n" + "".join(f"Paragraph {i} says something.\n\n" for i in range(12)))
    workspace = Workspace([document], "seed")
    chunks = workspace.chunks("fixed:100/20")
    assert chunks[1].spec.endswith("@seed")
    found = context(chunks[1], workspace)
    assert (found.previous, found.next) == (chunks[0].text(document), chunks[2].text(document))
