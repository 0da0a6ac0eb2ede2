"""``inspector.split.splitters``: invariants of every splitter on generated markdown (property tests
first), and what the markdown-aware structured splitter promises on the sample corpus."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, analyze, get_length, split_document
from inspector.kinds import kind_named, offered_kinds
from inspector.measure.headers import header_carry, header_carry_spans
from inspector.measure.survival import survival
from inspector.split.splitters import chunk_spans
from tests.support.strategies import FAST, markdown_document, seed_text

KINDS_KEPT = ("code", "table", "row", "num")

KINDS = offered_kinds()
#: The kinds whose chunks cover the text (Chroma's leave the whitespace at their cuts out).
TILING = tuple(k for k in KINDS if kind_named(k).tiles)
SIMILARITY_KINDS = tuple(k for k in KINDS if kind_named(k).overlap_refusal)


KIND_SPECS = ["fixed:40", "fixed:60/7", "paragraph:80", "sentence:50", "recursive:70", "structured:90",
              "structured:60+path", "heading:100", "structured:40/5"]




def _spans(result):
    return [(c.start, c.end) for c in result.chunks]


def _check_common(text, result, spec, length):
    spans = _spans(result)
    assert all(0 <= a < b <= len(text) for a, b in spans), "spans in range and non-empty"
    assert [a for a, _ in spans] == sorted(a for a, _ in spans), "sorted by start"
    assert [c.index for c in result.chunks] == list(range(len(spans)))
    doc = Document("d.md", text)
    for i, chunk in enumerate(result.chunks):
        size = length.count(chunk.embedded_text(doc))
        if size > spec.budget:
            assert i in result.oversized, f"chunk {i} is {size} > {spec.budget} and not reported"
    for i in result.oversized:
        assert length.count(result.chunks[i].embedded_text(doc)) > spec.budget


def test_structured_800_keeps_every_atom_that_fits_on_the_sample_corpus(sample_markdown):
    summary = sample_markdown.summarize("structured:800")
    for kind in KINDS_KEPT:
        intact, counted = summary.survival_fit[kind]
        assert counted > 0
        assert intact == counted, f"{kind}: {intact}/{counted}"


def test_no_row_of_a_split_table_loses_its_header_on_the_sample_corpus(sample_markdown):
    carry = sample_markdown.header_carry("structured:800")
    assert carry.rows > 0
    assert carry.rows_with_header == carry.rows
    assert carry.rows_mid_table == 0 and carry.mid_table_chunks == 0


def test_the_sample_corpus_exercises_split_tables(sample_markdown):
    # Without repeated headers, some rows would lose theirs: the guarantee above is not vacuous.
    assert sample_markdown.header_carry("structured:800-header").rows_mid_table > 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), budget=st.integers(60, 900))
def test_structured_keeps_fitting_atoms_on_generated_documents(text, budget):
    analysis = analyze(text)
    result = split_document(Document("d.md", text), f"structured:{budget}", analysis)
    spans = [(c.start, c.end) for c in result.chunks]
    kept = survival(analysis.atoms, spans, fits=budget)
    for kind in KINDS_KEPT:
        intact, counted = kept[kind]
        assert intact == counted, (kind, kept[kind])
    carry = header_carry(text, analysis, list(result.chunks))
    assert carry.rows_mid_table == 0


@FAST
@given(text=st.one_of(seed_text(), markdown_document()), mode=st.sampled_from(["seed", "markdown"]),
       spec=st.sampled_from(KIND_SPECS))
def test_chunk_spans_are_what_split_document_makes(text, mode, spec):
    doc = Document("d.md", text)
    analysis = analyze(text, mode)
    result = split_document(doc, spec, analysis)
    spans, prefixes, oversized = chunk_spans(text, SplitterSpec.parse(spec), analysis, get_length("chars"))
    assert spans == result.spans
    assert (prefixes or [""] * len(spans)) == [c.prefix for c in result.chunks]
    assert oversized == len(result.oversized)
    assert header_carry_spans(text, analysis, spans, prefixes) == header_carry(text, analysis, list(result.chunks))


@FAST
@given(text=markdown_document(), kind=st.sampled_from(TILING), budget=st.integers(8, 400))
def test_without_overlap_chunks_tile_the_text(text, kind, budget):
    spec = SplitterSpec(kind, budget)
    result = split_document(Document("d.md", text), spec)
    _check_common(text, result, spec, get_length("chars"))
    spans = _spans(result)
    if text:
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(x[1] == y[0] for x, y in zip(spans, spans[1:])), "no gap, no repeat"
    else:
        assert spans == []


@FAST
@given(text=markdown_document(), kind=st.sampled_from([k for k in TILING if k not in SIMILARITY_KINDS]),
       budget=st.integers(20, 400), share=st.floats(0.05, 0.6))
def test_with_overlap_consecutive_chunks_share_at_most_the_overlap(text, kind, budget, share):
    spec = SplitterSpec(kind, budget, overlap=max(1, int(budget * share)))
    result = split_document(Document("d.md", text), spec)
    _check_common(text, result, spec, get_length("chars"))
    spans = _spans(result)
    if text:
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for x, y in zip(spans, spans[1:]):
        assert y[0] <= x[1], "nothing between chunks is lost"
        assert y[0] > x[0], "each chunk starts after the one before"
        assert x[1] - y[0] <= spec.overlap


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), kind=st.sampled_from(KINDS), budget=st.integers(6, 120),
       unit=st.sampled_from(["o200k", "cl100k"]), overlap=st.integers(0, 4))
# A window shortened to its real token count (an emoji is several cl100k tokens) once left a gap.
@example(text="    indented = 1\n    more = 2\n\nAlpha.\n\nAlpha.\n\nAlpha.\n\nAlpha.\n\nAlpha.\n\n\U0001f642.\n\n",
         kind="fixed", budget=6, unit="cl100k", overlap=0)
def test_token_budgets_hold_in_real_tokens(text, kind, budget, unit, overlap):
    spec = SplitterSpec(kind, budget, unit, overlap=0 if kind in SIMILARITY_KINDS else min(overlap, budget - 1))
    length = get_length(unit)
    result = split_document(Document("d.md", text), spec, length=length)
    _check_common(text, result, spec, length)
    spans = _spans(result)
    if text and not spec.overlap and kind in TILING:
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(x[1] == y[0] for x, y in zip(spans, spans[1:]))


@FAST
@given(text=markdown_document(), kind=st.sampled_from(KINDS), budget=st.integers(8, 300),
       mode=st.sampled_from(["markdown", "seed"]))
def test_same_input_same_chunks_and_ids(text, kind, budget, mode):
    doc = Document("d.md", text)
    first = split_document(doc, SplitterSpec(kind, budget), analyze(text, mode))
    second = split_document(doc, SplitterSpec(kind, budget), analyze(text, mode))
    assert first.chunks == second.chunks
    assert [c.id for c in first.chunks] == [c.id for c in second.chunks]
    assert len({c.id for c in first.chunks}) == len(first.chunks)


@FAST
@given(text=markdown_document(), kind=st.sampled_from([k for k in KINDS if kind_named(k).caps_chunks]),
       budget=st.integers(8, 300))
def test_seed_mode_spans_are_in_range_non_empty_and_within_budget(text, kind, budget):
    # The article's splitters drop the whitespace between chunks (so they need not tile), and
    # its structured splitter can repeat a table found inside a fence; they never exceed the
    # budget, because over-long pieces are cut into windows.
    result = split_document(Document("d.md", text), SplitterSpec(kind, budget), analyze(text, "seed"))
    if not text and kind == "recursive":
        # The article's recursive splitter returns one empty chunk for an empty document.
        assert [(c.start, c.end) for c in result.chunks] == [(0, 0)]
        return
    for chunk in result.chunks:
        if kind == "structured":
            # A table inside a fence is a second, overlapping hard piece for the article's
            # packer, which can then emit an empty or backward-shrunk chunk: kept, as it counts.
            assert 0 <= chunk.start <= len(text) and chunk.end <= len(text)
        else:
            assert 0 <= chunk.start < chunk.end <= len(text)
        if kind != "heading":
            assert chunk.end - chunk.start <= budget


def test_structured_repeats_the_header_on_every_continuation_chunk():
    rows = "\n".join(f"| row {i} | {'x' * 20} |" for i in range(30))
    text = "Intro sentence.\n\n| name | value |\n|---|---|\n" + rows + "\n\nAfter.\n"
    doc = Document("t.md", text)
    result = split_document(doc, "structured:200")
    header = "| name | value |\n|---|---|\n"
    inside = [c for c in result.chunks if "| row" in c.text(doc)]
    assert len(inside) > 2
    for chunk in inside:
        assert header in chunk.embedded_text(doc)
        assert len(chunk.embedded_text(doc)) <= 200
    rows = analyze(text).atoms["row"]
    assert len(rows) == 30
    assert all(any(c.start <= a and b <= c.end for c in result.chunks) for a, b in rows)


def test_structured_keeps_a_fitting_fence_whole_and_splits_a_long_one_between_lines():
    small = "```python\n" + "x = 1\n" * 5 + "```\n"
    big = "~~~\n" + "".join(f"line {i}\n" for i in range(80)) + "~~~\n"
    text = "Before. " * 30 + "\n\n" + small + "\nMiddle text.\n\n" + big
    doc = Document("f.md", text)
    result = split_document(doc, "structured:120")
    start = text.index(small)
    assert any(c.start <= start and start + len(small) <= c.end for c in result.chunks)
    big_start = text.index(big)
    for chunk in result.chunks:
        if chunk.start > big_start:
            assert text[chunk.start - 1] == "\n", "long fence cut only between lines"


def test_heading_splitter_never_crosses_a_heading_and_prefixes_the_path():
    text = "# Guide\n\nIntro.\n\n## Ports\n\nPort 7420 is the client port.\n\n### TLS\n\nUse TLS.\n"
    doc = Document("h.md", text)
    result = split_document(doc, "heading:400")
    starts = {text.index("## Ports"), text.index("### TLS")}
    for chunk in result.chunks:
        assert not any(chunk.start < s < chunk.end for s in starts)
    tls = next(c for c in result.chunks if "Use TLS" in c.text(doc))
    assert tls.prefix == "Guide > Ports\n"
    assert tls.heading_path == ("Guide", "Ports", "TLS")


def test_path_prefix_counts_against_the_budget():
    text = "# A very long heading title here\n\n" + "Word " * 200
    doc = Document("p.md", text)
    result = split_document(doc, "recursive:100+path")
    for chunk in result.chunks:
        assert len(chunk.embedded_text(doc)) <= 100


def test_fixed_windows_in_seed_mode_match_the_article():
    text = "x" * 750
    seed = split_document(Document("a", text), "fixed:800/120", analyze(text, "seed"))
    assert [(c.start, c.end) for c in seed.chunks] == [(0, 750), (680, 750)]
    default = split_document(Document("a", text), "fixed:800/120")
    assert [(c.start, c.end) for c in default.chunks] == [(0, 750)]


def test_empty_document_has_no_chunks():
    for kind in KINDS:
        assert split_document(Document("e", ""), SplitterSpec(kind, 10)).chunks == ()


@pytest.mark.parametrize("kind", KINDS)
def test_chunk_ids_depend_on_configuration(kind):
    doc = Document("a.md", "Hello there. " * 40)
    a = split_document(doc, SplitterSpec(kind, 100))
    b = split_document(doc, SplitterSpec(kind, 101))
    assert a.chunks[0].id != b.chunks[0].id


@FAST
@given(text=st.one_of(markdown_document(), seed_text()),
       kind=st.sampled_from([k for k in KINDS if k not in SIMILARITY_KINDS]),
       budgets=st.lists(st.integers(20, 600), min_size=2, max_size=3, unique=True),
       mode=st.sampled_from(["markdown", "seed"]), prefix=st.booleans())
# The article's recursive pieces depend on the budget: kept from 600, they are too coarse for 100.
@example(text=("Alpha beta gamma delta. " * 20 + "\n\n") * 2, kind="recursive", budgets=[600, 100],
         mode="seed", prefix=False)
def test_a_split_is_the_same_whatever_the_analysis_split_before(text, kind, budgets, mode, prefix):
    """An analysis keeps what splits derive from it (a kind's pieces, token bounds) for the next
    split: only what holds at every budget may be kept."""
    shared = analyze(text, mode)
    for budget in budgets:
        spec = SplitterSpec(kind, budget, heading_prefix=prefix or None)
        kept = split_document(Document("d.md", text), spec, shared, mode=mode).chunks
        fresh = split_document(Document("d.md", text), spec, analyze(text, mode), mode=mode).chunks
        assert [(c.start, c.end, c.prefix) for c in kept] == [(c.start, c.end, c.prefix) for c in fresh]
        assert chunk_spans(text, spec, shared, get_length("chars"))[0] == [(c.start, c.end) for c in fresh]
