"""``inspector.chunks.importer``: formats, exact placement, and every problem named by line."""

from __future__ import annotations

import json
import re

import pytest

from inspector import Document
from inspector.chunks.importer import import_chunks
from inspector.errors import ImportChunksError
from tests.support.chunks import jsonl
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def lc_docs(corpus):
    """A real LangChain run over every document of the sample corpus (absolute sources)."""
    splitters = pytest.importorskip("langchain_text_splitters")
    splitter = splitters.RecursiveCharacterTextSplitter(add_start_index=True, chunk_size=800, chunk_overlap=100)
    return splitter.create_documents([d.text for d in corpus.documents],
                                     metadatas=[{"source": str(SAMPLE / d.id)} for d in corpus.documents])


def test_langchain_dump_with_offsets_aligns_every_chunk(corpus, lc_docs):
    result = import_chunks(jsonl(d.model_dump() for d in lc_docs), corpus, name="lc.jsonl")
    assert result.problems == ()
    assert result.imported == len(lc_docs) == result.records
    assert result.placements["offsets"] == len(lc_docs)
    placed = [(o.doc_id, o.start, o.end) for o in result.origins]
    wanted = [(d.metadata["source"].split("sample_corpus/")[1], d.metadata["start_index"],
               d.metadata["start_index"] + len(d.page_content)) for d in lc_docs]
    assert placed == wanted
    assert result.missing_documents == ()
    # LangChain strips whitespace between chunks: every uncovered stretch is blank.
    assert result.gaps and all(g.blank for g in result.gaps)
    assert result.spec == "imported:lc.jsonl"
    assert all(c.spec == "imported:lc.jsonl" for c in result.all_chunks())


def test_langchain_dump_without_offsets_places_each_chunk_or_names_it(corpus, lc_docs):
    with_offsets = import_chunks(jsonl(d.model_dump() for d in lc_docs), corpus, name="a.jsonl")
    bare = [{"page_content": d.page_content, "metadata": {"source": d.metadata["source"]}} for d in lc_docs]
    result = import_chunks(jsonl(bare), corpus, name="b.jsonl")
    placed_lines = {o.line for o in result.origins}
    named_lines = {p.line for p in result.problems}
    assert placed_lines | named_lines == set(range(1, len(lc_docs) + 1)), "nothing vanishes silently"
    assert result.imported == len(lc_docs), "the text-only dump aligns 100%"
    assert [(o.doc_id, o.start, o.end) for o in result.origins] == \
        [(o.doc_id, o.start, o.end) for o in with_offsets.origins]
    assert result.placements["exact"] == len(lc_docs)


def test_whitespace_mangled_chunks_map_back_to_exact_offsets(corpus, lc_docs):
    docs = lc_docs[:60]
    mangled = [{"text": re.sub(r"\s+", "  ", d.page_content), "source": d.metadata["source"]} for d in docs]
    result = import_chunks(jsonl(mangled), corpus, name="m.jsonl")
    assert result.problems == ()
    assert result.placements["normalised"] >= 40  # most chunks hold a newline or a double space
    for origin, doc in zip(result.origins, docs):
        assert origin.start == doc.metadata["start_index"]
        assert origin.end == doc.metadata["start_index"] + len(doc.page_content)


def test_langchain_constructor_dump_and_path_suffixes(corpus):
    document = corpus.by_id("handbook/leave-policy.md")
    text = document.text
    a = text.index("## 5. Sick leave")
    b = text.index("### 5.1")
    records = [
        {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "document", "Document"],
         "kwargs": {"page_content": text[a:b], "metadata": {"source": "/somewhere/else/handbook/leave-policy.md",
                                                            "start_index": a}}},
        {"text": text[b:b + 50], "path": "leave-policy.md"},            # unique tail of a corpus id
        {"text": "anything", "doc_id": "index.md"},                      # blog/index.md or product/index.md
        {"text": "anything", "doc_id": "handbook/no-such-page.md"},
    ]
    result = import_chunks(jsonl(records), corpus, name="x.jsonl")
    assert [(o.line, o.doc_id, o.start, o.end, o.how) for o in result.origins] == [
        (1, "handbook/leave-policy.md", a, b, "offsets"), (2, "handbook/leave-policy.md", b, b + 50, "exact")]
    kinds = {p.line: p.kind for p in result.problems}
    assert kinds == {3: "ambiguous-document", 4: "unknown-document"}
    assert "blog/index.md" in result.problems[0].message and "product/index.md" in result.problems[0].message


def test_broken_records_are_listed_by_line_and_the_rest_imports(corpus):
    document = corpus.by_id("product/faq.md")
    text = document.text
    s = text.index("Three nodes with the recommended profile")
    good = {"doc_id": document.id, "text": text[s:s + 80], "start": s, "end": s + 80}
    lines = [
        json.dumps(good),                                                                    # 1 fine
        '{"doc_id": "product/faq.md", "text": "broken',                                      # 2 malformed
        json.dumps({"doc_id": document.id, "text": "qqqq", "start": len(text) + 5, "end": len(text) + 9}),  # 3
        json.dumps({"doc_id": document.id, "text": "This sentence is nowhere in the FAQ at all."}),      # 4
        json.dumps({"doc_id": "product/missing.md", "text": text[s:s + 20]}),               # 5 unknown doc
        json.dumps({"doc_id": document.id}),                                                 # 6 no text
        "",
        json.dumps(good),                                                                    # 8 duplicate
        json.dumps({"doc_id": document.id, "text": text[s + 80:s + 160], "start": "12a"}),    # 9 bad offset
        json.dumps([1, 2]),                                                                  # 10 not an object
        json.dumps({"doc_id": document.id, "text": text[s + 160:s + 200], "chunk_id": "c-9"}),  # 11 fine
    ]
    result = import_chunks("\n".join(lines).encode(), corpus, name="broken.jsonl")
    kinds = [(p.line, p.kind) for p in result.problems]
    assert kinds == [(2, "malformed"), (3, "bad-offsets"), (4, "not-found"), (5, "unknown-document"),
                     (6, "malformed"), (8, "duplicate"), (9, "bad-offsets"), (10, "malformed")]
    assert [o.line for o in result.origins] == [1, 9, 11]
    assert [o.how for o in result.origins] == ["offsets", "realigned", "exact"]
    assert result.records == 10
    assert result.duplicates[0].line == 8 and "line 1" in result.duplicates[0].message
    assert {p.line for p in result.unplaced} == {2, 3, 4, 5, 6, 10}
    assert [c.index for c in result.chunks[document.id]] == [0, 1, 2]
    # Every uncovered stretch of the FAQ is reported, with text, since only a few chunks came.
    solid = [g for g in result.gaps if not g.blank]
    assert solid[0].start == 0 and solid[0].end == s and solid[-1].end == len(text)


def test_offset_mismatch_is_reported_then_placed_by_text(corpus):
    document = corpus.by_id("handbook/remote-work.md")
    piece = document.text[300:700]
    records = [{"doc_id": document.id, "text": piece, "start_index": 310}]
    result = import_chunks(jsonl(records), corpus, name="shift.jsonl")
    (origin,) = result.origins
    assert (origin.start, origin.end, origin.how) == (300, 700, "realigned")
    (problem,) = result.problems
    assert problem.kind == "offset-mismatch" and "10 characters earlier" in problem.message


def test_chunks_of_the_raw_file_with_front_matter_are_reported(corpus):
    raw = (SAMPLE / "handbook" / "leave-policy.md").read_text(encoding="utf-8")
    document = corpus.by_id("handbook/leave-policy.md")
    cut = raw.index("## 2. Annual leave")
    records = [{"source": "handbook/leave-policy.md", "text": raw[:cut], "start": 0},
               {"source": "handbook/leave-policy.md", "text": raw[cut:cut + 300], "start": cut}]
    result = import_chunks(jsonl(records), corpus, name="raw.jsonl")
    assert [o.how for o in result.origins] == ["realigned", "realigned"]
    first = result.origins[0]
    removed = len(raw) - len(document.text)  # the front matter the corpus dropped
    assert (first.start, first.end) == (0, cut - removed)
    assert result.origins[1].start == cut - removed
    assert {p.kind for p in result.problems if p.line == 1} == {"front-matter", "offset-mismatch"}


def test_chonkie_json_with_a_default_document(corpus):
    document = corpus.by_id("product/guides/quickstart.md")
    text = document.text
    bounds = [0, 700, 1500, len(text)]
    items = [{"id": f"chnk_{i}", "text": text[a:b], "start_index": a, "end_index": b, "token_count": b - a,
              "context": None, "embedding": None, "metadata": {}}
             for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    data = json.dumps(items, indent=4).encode()
    with pytest.raises(AssertionError):
        assert import_chunks(data, corpus, name="c.json").imported  # no document named, none given
    result = import_chunks(data, corpus, name="c.json", default_doc="quickstart.md")
    assert result.problems == () and result.gaps == ()
    assert [(c.start, c.end) for c in result.chunks[document.id]] == list(zip(bounds, bounds[1:]))
    assert [o.chunk_id for o in result.origins] == ["chnk_0", "chnk_1", "chnk_2"]
    lines = data.decode().split("\n")
    assert [o.line for o in result.origins] == [i + 1 for i, line in enumerate(lines) if line == "    {"]


def test_real_chonkie_chunks_import_by_their_offsets(corpus):
    chonkie = pytest.importorskip("chonkie")
    document = corpus.by_id("product/guides/quickstart.md")
    chunks = chonkie.RecursiveChunker(chunk_size=512).chunk(document.text)
    data = json.dumps([c.to_dict() for c in chunks]).encode()
    result = import_chunks(data, [document], name="chonkie.json")
    assert result.problems == ()
    assert [(c.start, c.end) for c in result.chunks[document.id]] == [(c.start_index, c.end_index) for c in chunks]


def test_malformed_json_array_element_costs_only_itself(corpus):
    document = corpus.by_id("product/guides/quickstart.md")
    good = [json.dumps({"text": document.text[i:i + 40], "start": i}) for i in (0, 100, 200)]
    data = "[\n" + good[0] + ",\n" + '{"text": oops},\n' + good[1] + ",\n" + good[2] + "\n]\n"
    result = import_chunks(data.encode(), [document], name="chunks.json")
    assert [(p.line, p.kind) for p in result.problems] == [(3, "malformed")]
    assert [o.line for o in result.origins] == [2, 4, 5]


def test_csv_with_multiline_text_and_line_numbers(corpus):
    document = corpus.by_id("handbook/leave-policy.md")
    text = document.text
    a = text.index("| Group | Carry-over limit")
    b = text.index("These limits are per person")
    quoted = text[a:b].replace('"', '""')
    rows = ["doc_id,start,end,text", f'{document.id},{a},{b},"{quoted}"',
            f"{document.id},{b},{b + 10},{text[b:b + 10]}", f"{document.id},1,2"]
    result = import_chunks("\n".join(rows).encode(), corpus, name="chunks.csv")
    assert [(o.line, o.start, o.end) for o in result.origins] == [(2, a, b), (2 + text[a:b].count("\n") + 1, b, b + 10)]
    (problem,) = result.problems
    assert problem.kind == "malformed" and problem.line == 2 + text[a:b].count("\n") + 2


def test_out_of_order_chunk_is_reported(corpus):
    document = corpus.by_id("handbook/remote-work.md")
    text = document.text
    records = [{"text": text[500:600]}, {"text": text[100:200]}]
    result = import_chunks(jsonl(records), [document], name="o.jsonl")
    assert [(o.start, o.end) for o in result.origins] == [(500, 600), (100, 200)]
    assert [(p.line, p.kind) for p in result.problems] == [(2, "out-of-order")]
    assert [(c.start, c.index) for c in result.chunks[document.id]] == [(100, 0), (500, 1)]


def test_repeated_text_is_matched_in_order():
    document = Document("d.md", "alpha beta\n\nalpha beta\n\nalpha beta\n")
    records = [{"text": "alpha beta"}] * 3
    result = import_chunks(jsonl(records), [document], name="r.jsonl")
    assert [(o.start, o.end) for o in result.origins] == [(0, 10), (12, 22), (24, 34)]
    assert result.problems == ()


def test_unreadable_files_raise_a_clear_error(tmp_path, corpus):
    with pytest.raises(ImportChunksError, match="cannot read"):
        import_chunks(tmp_path / "absent.jsonl", corpus)
    with pytest.raises(ImportChunksError, match="not UTF-8"):
        import_chunks(b"\xff\xfe\x00\x80", corpus, name="bin.jsonl")


def test_the_articles_chunk_markdown_records_keep_their_heading_prefix(corpus):
    document = corpus.by_id("handbook/leave-policy.md")
    text = document.text
    a = text.index("Annual leave is meant to be taken")
    b = text.index("## 3. Exceptions")
    path = "Leave policy > 2. Annual leave > 2.3 Carry-over"
    records = [{"id": f"{document.id}:00007", "doc_id": document.id, "heading_path": path,
                "text": f"{path}\n{text[a:b]}", "n_tokens": 300}]
    result = import_chunks(jsonl(records), corpus, name="article.jsonl")
    assert result.problems == ()
    (chunk,) = result.chunks[document.id]
    assert (chunk.start, chunk.end, chunk.prefix) == (a, b, path + "\n")
    assert chunk.heading_path == ("Leave policy", "2. Annual leave", "2.3 Carry-over")
    assert result.origins[0].chunk_id == f"{document.id}:00007"


def test_hostile_nesting_is_a_reported_record_not_a_crash(corpus):
    document = corpus.by_id("product/faq.md")
    deep = "[" * 100_000 + "]" * 100_000
    good = json.dumps({"doc_id": document.id, "text": document.text[:50]})
    result = import_chunks(f"{deep}\n{good}\n".encode(), corpus, name="deep.jsonl")
    assert [(p.line, p.kind) for p in result.problems] == [(1, "malformed")]
    assert result.imported == 1
    result = import_chunks(deep.encode(), corpus, name="deep.json")
    assert [p.kind for p in result.problems] == ["malformed"] and result.imported == 0


def test_a_guess_between_overlapping_matches_is_reported():
    document = Document("r.md", "ab " * 40)
    records = [{"text": document.text[0:30]}, {"text": document.text[24:54]}]
    result = import_chunks(jsonl(records), [document], name="r.jsonl")
    assert [(o.start, o.end) for o in result.origins] == [(0, 30), (3, 33)]
    assert [(p.line, p.kind) for p in result.problems] == [(1, "ambiguous"), (2, "ambiguous")]
    assert "also starts at 3" in result.problems[0].message
