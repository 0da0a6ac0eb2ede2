"""``inspector.review.reveal``: the hints shown after an answer, and a chunk's context."""

from __future__ import annotations

import pytest

from inspector import Chunk, Document, Workspace, analyze
from inspector.review.reveal import context, suspect_summary, suspects
from inspector.spec import parse_spec

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


def test_an_address_stamp_lowers_the_address_suspects_on_the_sample_corpus(sample_markdown):
    for kind in ("structured", "recursive", "fixed"):
        plain = suspect_summary(sample_markdown, f"{kind}:800")
        path = suspect_summary(sample_markdown, f"{kind}:800+path")
        stamped = suspect_summary(sample_markdown, f"{kind}:800+address")
        assert stamped.address < path.address < plain.address
        assert stamped.by_code["no_document_name"] == 0 < path.by_code["no_document_name"]


def test_a_chunk_that_does_not_name_its_document_is_suspect():
    document = Document("guide.md", DOC, title="Gateway 2.3 guide")
    chunk = lambda prefix: Chunk("guide.md", 0, DOC.index("The Pro"), len(DOC), prefix, "test")
    codes = lambda prefix: {h.code for h in suspects(chunk(prefix), document, analyze(DOC, "markdown"))}
    assert "no_document_name" in codes("")
    assert "no_document_name" not in codes("Gateway 2.3  Guide > Rate limits\n")


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


@pytest.mark.parametrize("spec", ["structured:800", "fixed:300/60", "heading:1200", "recursive:500+path"])
def test_the_context_of_a_chunk_is_the_same_whether_or_not_the_corpus_was_split_here(spec):
    from inspector import load_corpus
    from tests.support.paths import SAMPLE

    whole = Workspace(load_corpus(SAMPLE))
    chunks = whole.chunks(spec)  # split here: the neighbours come from this split
    picked = chunks[:: max(1, len(chunks) // 12)]
    fresh = Workspace(load_corpus(SAMPLE))  # as a server whose round was drawn in a worker
    for chunk in picked:
        assert context(chunk, fresh) == context(chunk, whole), (spec, chunk.doc_id, chunk.index)
    assert str(parse_spec(spec)) not in fresh.held(), "the corpus was not split for a reveal"
