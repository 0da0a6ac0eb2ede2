"""``chroma-recursive`` and ``chroma-fixed``: Chroma's chunkers cut as spans, checked against
what Chroma's own code cut from an excerpt of its State of the Union corpus (public domain; the
lengths and hashes in ``data/chroma_excerpt.json`` were written by ``bench/bench_chroma_chunkers.py``
running Chroma's modules), against LangChain's splitter Chroma's was adapted from, and against
tiktoken's own decoding of the windows."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, get_length, split_document
from inspector.errors import SpecError
from inspector.kinds import kind_named, offered_kinds
from inspector.split.chroma import CHROMA_SEPARATORS, window_spans
from inspector.split.chroma_meaning import cluster_ends, kamradt_ends, kamradt_windows
from tests.support.strategies import FAST, markdown_document

DATA = Path(__file__).parent / "data"


def _texts(text: str, spec: str) -> list[str]:
    document = Document("d.md", text)
    return [chunk.text(document) for chunk in split_document(document, spec).chunks]


def _line(chunk: str) -> str:
    return f"{len(chunk)} {hashlib.sha256(chunk.encode('utf-8')).hexdigest()[:16]}"


EXPECTED = json.loads((DATA / "chroma_excerpt.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("configuration", sorted(c for c in EXPECTED if not c.endswith("wordllama")))
def test_the_chunks_are_chroma_codes_own_on_its_corpus(configuration):
    kind, sizes = configuration.split(":")
    size, overlap = sizes.split("/")
    spec = f"chroma-{kind}:{size}t" + (f"/{overlap}" if overlap != "0" else "") + ":cl100k"
    text = (DATA / "chroma_excerpt.md").read_text(encoding="utf-8")
    ours = _texts(text, spec)
    expected = EXPECTED[configuration]
    for k, (chunk, line) in enumerate(zip(ours, expected)):
        assert _line(chunk) == line, f"chunk {k} of {spec} differs from Chroma's ({line}): {chunk[:200]!r}"
    assert len(ours) == len(expected)


def test_recursive_chunks_stay_within_the_size_and_keep_no_whitespace_at_their_ends():
    text = (DATA / "chroma_excerpt.md").read_text(encoding="utf-8")
    cl100k = get_length("cl100k")
    chunks = _texts(text, "chroma-recursive:200t:cl100k")
    assert max(cl100k.count(chunk) for chunk in chunks) <= 200
    assert all(chunk == chunk.strip() for chunk in chunks)
    assert "".join("".join(chunks).split()) == "".join(text.split()), "nothing but whitespace is left out"


@FAST
@given(text=st.one_of(markdown_document(), st.text(alphabet=" \n.?!ab\tc", max_size=400)),
       size=st.integers(2, 80), share=st.floats(0, 0.9))
@example(text="\n\n\n", size=2, share=0.0)
@example(text="a.b.c.d" * 20, size=5, share=0.5)
def test_recursive_is_langchains_splitter_it_was_adapted_from(text, size, share):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    overlap = int(size * share)
    theirs = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, keep_separator=True,
                                            separators=list(CHROMA_SEPARATORS)).split_text(text)
    spec = f"chroma-recursive:{size}" + (f"/{overlap}" if overlap else "")
    assert _texts(text, spec) == theirs


def _decoded_windows(text: str, size: int, overlap: int) -> list[str]:
    """FixedTokenChunker's windows the way it makes them: tokens sliced, then decoded."""
    encoding = get_length("cl100k").encoding
    tokens = encoding.encode_ordinary(text)
    out, first = [], 0
    while first < len(tokens):
        out.append(encoding.decode(tokens[first:first + size]))
        if first + size >= len(tokens):
            break
        first += size - overlap
    return out


@FAST
@given(text=st.one_of(markdown_document(), st.text(max_size=300)), size=st.integers(1, 60),
       share=st.floats(0, 0.9))
@example(text="Hello \U0001f642 w\u00f6rld, \u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3067\u3059\u3002", size=3,
         share=0.34)
def test_fixed_windows_are_tiktokens_decoded_windows_wherever_a_window_ends_between_characters(text, size, share):
    overlap = int(size * share)
    text = text.replace("\ufffd", "")
    spec = f"chroma-fixed:{size}t" + (f"/{overlap}" if overlap else "") + ":cl100k"
    ours = _texts(text, spec)
    theirs = _decoded_windows(text, size, overlap)
    if not any("\ufffd" in window for window in theirs):
        assert ours == theirs
    else:  # a window ending inside a character: the character goes whole to the next window
        assert all("\ufffd" not in chunk for chunk in ours)
        assert len(ours) <= len(theirs)
    if ours and not overlap:
        assert "".join(ours) == text


def test_a_window_ending_inside_an_emoji_leaves_it_whole_to_the_next():
    text = "ab \U0001f642\U0001f642 cd"
    starts = get_length("cl100k").token_starts(text)
    assert len(starts) > len(set(starts)), "some tokens start inside one character"
    for size in (1, 2, 3):  # at 1, some windows hold a part of an emoji only: none is kept empty
        spans = window_spans(starts, len(text), size, 0)
        assert [text[a:b] for a, b in spans] and "".join(text[a:b] for a, b in spans) == text
        assert all(0 <= a < b <= len(text) for a, b in spans)


def test_token_starts_are_one_per_token():
    for unit in ("cl100k", "o200k", "chars"):
        length = get_length(unit)
        text = "Port 7420 \U0001f642 \u65e5\u672c\u8a9e"
        starts = length.token_starts(text)
        assert len(starts) == length.count(text) and starts == sorted(starts) and starts[0] == 0
        assert sorted(set(starts)) == length.boundaries(text)


def test_chroma_kinds_are_offered_and_say_they_leave_whitespace_between_chunks():
    for name in ("chroma-recursive", "chroma-fixed"):
        assert name in offered_kinds() and not kind_named(name).tiles
    assert str(SplitterSpec.parse("chroma-fixed:250t/125:cl100k")) == "chroma-fixed:250t/125:cl100k"


@pytest.mark.parametrize("spec, reason", [
    ("chroma-recursive:200t;seps=%0A", "Chroma's own separators"),
    ("chroma-fixed:200/200", "smaller than the budget"),
])
def test_what_chromas_chunkers_do_not_take_is_refused_with_the_reason(spec, reason):
    with pytest.raises(SpecError, match=reason):
        SplitterSpec.parse(spec)


def test_a_prefix_is_added_without_moving_the_chunk():
    text = "# Guide\n\nPort 7420 is the client port. " * 30
    plain = split_document(Document("d.md", text), "chroma-recursive:40t:cl100k")
    prefixed = split_document(Document("d.md", text), "chroma-recursive:40t:cl100k+path")
    assert plain.spans == prefixed.spans
    assert any(chunk.prefix for chunk in prefixed.chunks)


@pytest.mark.parametrize("configuration", sorted(c for c in EXPECTED if c.endswith("wordllama")))
def test_the_chunkers_by_meaning_group_as_chroma_codes_own_given_the_same_embedder(configuration):
    kind, rest = configuration.split(":")
    size = rest.split("/")[0]
    text = (DATA / "chroma_excerpt.md").read_text(encoding="utf-8")
    ours = ["".join(chunk.split()) for chunk in _texts(text, f"chroma-{kind}:{size}t:cl100k;embed=wordllama")]
    expected = EXPECTED[configuration]
    for k, (chunk, line) in enumerate(zip(ours, expected)):
        assert _line(chunk) == line, f"chunk {k} differs from Chroma's ({line}): {chunk[:200]!r}"
    assert len(ours) == len(expected)


def test_a_cluster_runs_back_to_the_first_piece_where_every_reward_is_negative_as_in_chromas_programme():
    # Three pieces, each unlike the others: every group's reward is below 0, the best score stays
    # 0 and each piece's group "starts" at piece 0, so Chroma's programme returns one chunk of
    # all three although at most one piece a chunk was asked for.
    vectors = np.eye(3)
    assert cluster_ends(vectors, 1) == [3]
    alike = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    assert cluster_ends(alike, 2) == [2, 4]
    assert cluster_ends(np.zeros((0, 2)), 4) == []
    assert cluster_ends(np.ones((1, 2)), 4) == [1]


def test_kamradt_cuts_at_the_largest_drifts_as_many_times_as_the_mean_size_allows():
    # Pieces 0-1 the same, 2-3 the same, 4 apart: the two drifts (after 1 and after 3) are the
    # cuts when the summed size allows two or more (the same pieces never part).
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [1.0, 0.2]])
    assert kamradt_ends(vectors, total=200, average=100) == [2, 4, 5]
    assert kamradt_ends(vectors, total=900, average=100) == [2, 4, 5]
    # Chroma bisects its threshold in [0, 1]: a drift past 1 (vectors more than perpendicular)
    # is cut even where the size allows no cut.
    assert kamradt_ends(np.array([[1.0, 0.0], [-1.0, 0.1]]), total=10, average=100) == [1, 2]
    assert kamradt_windows(["a", "b", "c", "d", "e"])[0] == "a b c d"
    assert kamradt_windows(["a", "b", "c", "d", "e"])[4] == "b c d e"


@given(text=markdown_document(), budget=st.integers(51, 400))
@FAST
def test_chunks_by_meaning_are_runs_of_chromas_pieces_in_order(text, budget):
    pieces = split_document(Document("d.md", text), "chroma-recursive:50t:cl100k").spans
    for kind in ("chroma-cluster", "chroma-kamradt"):
        spans = split_document(Document("d.md", text), f"{kind}:{budget}t:cl100k;embed=wordllama").spans
        if not pieces:
            assert spans == []
            continue
        starts, ends = [a for a, _ in pieces], [b for _, b in pieces]
        assert all(a in starts and b in ends for a, b in spans)
        assert spans[0][0] == pieces[0][0] and spans[-1][1] == pieces[-1][1]
        assert all(ends.index(x[1]) + 1 == starts.index(y[0]) for x, y in zip(spans, spans[1:]))


def test_chunkers_by_meaning_refuse_pieces_larger_than_the_budget_and_any_overlap():
    with pytest.raises(SpecError, match="at most the budget"):
        SplitterSpec.parse("chroma-cluster:250t;piece=300")
    with pytest.raises(SpecError, match="repeats nothing"):
        SplitterSpec.parse("chroma-kamradt:400t/20")
    written = "chroma-cluster:250t:cl100k;embed=minilm"
    assert str(SplitterSpec.parse(written)) == written


def test_a_tune_space_names_chromas_chunkers_and_export_writes_their_chunks(tmp_path, capsys):
    from inspector.cli import main
    from inspector.tune.space import Space

    space = Space(kinds=("chroma-recursive", "chroma-fixed"), budgets=(200,), unit="cl100k")
    assert [str(s) for s in space.candidates()] == [
        "chroma-recursive:200t:cl100k", "chroma-recursive:200t:cl100k+path", "chroma-recursive:200t/30:cl100k",
        "chroma-recursive:200t/30:cl100k+path", "chroma-fixed:200t:cl100k", "chroma-fixed:200t/30:cl100k"]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text((DATA / "chroma_excerpt.md").read_text(encoding="utf-8"), encoding="utf-8")
    status = main(["export", str(corpus), "--spec", "chroma-recursive:200t:cl100k"])
    exported = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 0 and [r["text"] for r in exported] == _texts(
        (DATA / "chroma_excerpt.md").read_text(encoding="utf-8"), "chroma-recursive:200t:cl100k")
