"""``inspector.measure.workspace``: summaries and probes equal the per-chunk computation, and
chunks made elsewhere (chunk sets, imports) measure exactly like the splitter that made them."""

from __future__ import annotations

import pytest

from inspector import Document, SplitterSpec, Workspace, load_corpus
from inspector.chunks.importer import import_chunks
from inspector.chunks.sets import ChunkSetStore, chunk_set_from_import, make_chunk_set
from inspector.errors import ChunkSetError
from inspector.lengths import get_length
from inspector.measure.headers import HeaderCarry
from inspector.measure.summary import SplitSummary
from inspector.measure.survival import survival_pair
from inspector.model import ATOM_KINDS, Chunk
from inspector.spec import parse_spec
from tests.support.chunks import chunks_of, jsonl
from tests.support.paths import SAMPLE


def _plain_summary(work: Workspace, spec: str, fits: int | None):
    """``Workspace.summarize`` the way it was computed before the arrays: per document."""
    fit = {k: [0, 0] for k in ATOM_KINDS}
    every = {k: [0, 0] for k in ATOM_KINDS}
    chunks = chars = oversized = 0
    for document, result in zip(work.documents, work.split(spec)):
        chunks += len(result.spans)
        chars += sum(b - a for a, b in result.spans)
        oversized += len(result.oversized)
        pair = survival_pair(work.analysis(document).atoms, result.spans, fits or result.spec.budget)
        for target, part in zip((fit, every), pair):
            for kind, (intact, counted) in part.items():
                target[kind][0] += intact
                target[kind][1] += counted
    return chunks, chars, oversized, {k: tuple(v) for k, v in fit.items()}, {k: tuple(v) for k, v in every.items()}


@pytest.mark.parametrize("spec", ["structured:800", "fixed:800/120", "heading:256t"])
def test_a_set_of_a_splitters_chunks_measures_exactly_like_the_splitter(spec):
    work = Workspace(load_corpus(SAMPLE))
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, spec))
    imported = SplitterSpec.imported(work.add_chunk_set(chunk_set).chunk_set, SplitterSpec.parse(spec).unit)
    built_in, copy = work.summarize(spec, fits=800), work.summarize(imported, fits=800)
    assert copy.chunks == built_in.chunks and copy.span_chars == built_in.span_chars
    assert copy.survival_all == built_in.survival_all and copy.survival_fit == built_in.survival_fit
    assert copy.oversized == 0
    a, b = work.probe(spec), work.probe(imported)
    assert (a.answer_rate, a.cut_rate, a.miss_rate, a.context_chars, a.context_tokens) == \
        (b.answer_rate, b.cut_rate, b.miss_rate, b.context_chars, b.context_tokens)
    assert work.header_carry(spec) == work.header_carry(imported)
    assert [(c.doc_id, c.start, c.end, c.prefix) for c in work.chunks(spec)] == \
        [(c.doc_id, c.start, c.end, c.prefix) for c in work.chunks(imported)]


def test_token_fits_count_atoms_in_the_specs_unit(work):
    chunk_set = make_chunk_set("copy", work.fingerprint, work.documents, chunks_of(work, "structured:200t"))
    work.add_chunk_set(chunk_set)
    in_tokens = work.summarize(SplitterSpec.imported(chunk_set.id, "o200k"), fits=200)
    assert in_tokens.survival_fit == work.summarize("structured:200t", fits=200).survival_fit
    in_chars = work.summarize(SplitterSpec.imported(chunk_set.id), fits=200)
    assert in_chars.survival_fit != in_tokens.survival_fit  # 200 characters hold fewer atoms than 200 tokens


def test_a_partial_set_leaves_other_documents_without_chunks(work):
    covered = {d.id for d in work.documents[:3]}
    chunk_set = make_chunk_set("part", work.fingerprint, work.documents, chunks_of(work, "recursive:800", covered))
    results = work.split(work.add_chunk_set(chunk_set))
    assert [r.doc_id for r in results] == [d.id for d in work.documents]
    assert {r.doc_id for r in results if r.chunks} == covered


def test_a_workspace_refuses_another_corpus_and_unknown_sets(work, tmp_path):
    stranger = make_chunk_set("x", "0" * 32, work.documents, chunks_of(work, "fixed:900", {work.documents[0].id}))
    with pytest.raises(ChunkSetError, match="another corpus"):
        work.add_chunk_set(stranger)
    fresh = Workspace(work.documents)
    with pytest.raises(ChunkSetError, match="registered"):
        fresh.split("imported:0123456789abcdef")
    fresh.chunk_set_store = ChunkSetStore(tmp_path)
    with pytest.raises(ChunkSetError, match="Import page"):
        fresh.split("imported:0123456789abcdef")


def test_imported_chunks_measure_like_the_splitter_that_made_them(sample_markdown):
    spec = "structured:800"
    built = sample_markdown.split(spec)
    by_doc = {r.doc_id: r.chunks for r in built}
    copy = sample_markdown.add_chunk_set(make_chunk_set("copy", sample_markdown.fingerprint,
                                                        sample_markdown.documents, by_doc))
    mine, theirs = sample_markdown.summarize(copy, fits=800), sample_markdown.summarize(spec)
    assert (mine.chunks, mine.span_chars, mine.survival_fit, mine.survival_all, mine.oversized) == \
        (theirs.chunks, theirs.span_chars, theirs.survival_fit, theirs.survival_all, theirs.oversized)
    assert sample_markdown.probe(copy) == sample_markdown.probe(spec)
    assert sample_markdown.header_carry(copy) == sample_markdown.header_carry(spec)
    assert [r.spans for r in sample_markdown.split(copy)] == [r.spans for r in built]
    whole = sample_markdown.subset(d.id for d in sample_markdown.documents)
    assert whole.summarize(copy, fits=800).survival_fit == theirs.survival_fit
    with pytest.raises(ChunkSetError, match="not in the corpus"):
        make_chunk_set("x", sample_markdown.fingerprint, sample_markdown.documents,
                       {"nope.md": (Chunk("nope.md", 0, 0, 1),)})


def test_partial_import_measures_only_its_documents(corpus):
    workspace = Workspace(corpus)
    document = corpus.by_id("handbook/leave-policy.md")
    a = document.text.index("## 2. Annual leave")
    chunk_text = document.text[a:a + 1000]
    result = import_chunks(jsonl([{"doc_id": document.id, "text": chunk_text}]), corpus, name="one.jsonl",
                           workspace=workspace)
    assert len(result.missing_documents) == len(corpus.documents) - 1
    covered = workspace.subset(result.chunks)
    spec = covered.add_chunk_set(chunk_set_from_import(result, workspace))
    assert [d.id for d in covered.documents] == [document.id]
    assert covered.summarize(spec, fits=500).oversized == 1
    assert covered.summarize(spec).oversized == 0, "imported chunks have no budget of their own"
    assert result.chunks[document.id][0].heading_path == ("Leave policy", "2. Annual leave")


@pytest.mark.parametrize("mode", ["seed", "markdown"])
def test_summaries_and_probes_equal_the_per_chunk_computation(mode, sample_seed, sample_markdown):
    fresh = Workspace(list((sample_seed if mode == "seed" else sample_markdown).documents), mode)
    for spec in ["fixed:400", "sentence:800", "structured:800", "heading:600", "structured:300/40"]:
        summary = fresh.summarize(spec, fits=800)
        probe = fresh.probe(spec)
        plain = Workspace(fresh.documents, mode)
        plain.add_analyses({d.id: fresh.analysis(d) for d in fresh.documents})
        plain.split(spec)  # measured from its SplitResults from here on
        assert (summary.chunks, summary.span_chars, summary.oversized, summary.survival_fit,
                summary.survival_all) == _plain_summary(plain, spec, 800)
        assert probe == plain.probe(spec)
    assert fresh.header_carry("structured:800").as_dict() == plain.header_carry("structured:800").as_dict()


def test_token_budget_fit_counts_atoms_in_tokens(sample_markdown):
    fresh = Workspace(list(sample_markdown.documents)[:6], "markdown")
    summary = fresh.summarize("structured:200t")
    length = get_length("o200k")
    fit = {k: [0, 0] for k in ATOM_KINDS}
    for document, result in zip(fresh.documents, fresh.split("structured:200t")):
        size = lambda a, b, t=document.text: length.count(t[a:b])  # noqa: E731
        part = survival_pair(fresh.analysis(document).atoms, result.spans, 200, size)[0]
        for kind, (intact, counted) in part.items():
            fit[kind][0] += intact
            fit[kind][1] += counted
    assert summary.survival_fit == {k: tuple(v) for k, v in fit.items()}


@pytest.mark.parametrize("texts", [[], [""], ["", "Short. Text 1."]])
def test_empty_corpora_measure_to_zero(texts):
    work = Workspace([Document(f"d{i}", t) for i, t in enumerate(texts)], "seed")
    summary = work.summarize("structured:800")
    assert summary.survival_all == {k: (0, 0) for k in ATOM_KINDS}
    assert work.probe("fixed:100").queries == 0
    assert work.header_carry().as_dict() == {"rows": 0, "rows_with_header": 0, "rows_mid_table": 0,
                                             "mid_table_chunks": 0}


def test_a_subset_counts_only_its_documents_and_shares_the_rest(sample_markdown):
    ids = [d.id for d in sample_markdown.documents[2:7]]
    part = sample_markdown.subset(reversed(ids))
    assert [d.id for d in part.documents] == ids, "corpus order, whatever order the ids come in"
    assert part.fingerprint == sample_markdown.fingerprint
    assert part.term_table() is sample_markdown.term_table()
    assert {q.doc_id for q in part.queries()} <= set(ids)
    assert [q for q in sample_markdown.queries() if q.doc_id in ids] == part.queries()
    whole = {r.doc_id: r.spans for r in sample_markdown.split("structured:800")}
    assert {r.doc_id: r.spans for r in part.split("structured:800")} == {i: whole[i] for i in ids}
    assert part.summarize("structured:800").chunks == sum(len(whole[i]) for i in ids)
    assert part.analysis(part.documents[0]) is sample_markdown.analysis(part.documents[0])


def test_sizes_count_what_is_embedded_in_any_unit(sample_markdown):
    spec = "heading:256t"
    chunks = sample_markdown.chunks(spec)
    texts = {d.id: d.text for d in sample_markdown.documents}
    tokens = sample_markdown.sizes(spec)
    assert tokens == get_length("o200k").count_many([c.prefix + texts[c.doc_id][c.start:c.end] for c in chunks])
    assert sample_markdown.sizes(spec, "chars") == [len(c.prefix) + c.end - c.start for c in chunks]
    assert any(c.prefix for c in chunks)


def test_analyses_made_elsewhere_are_taken_as_they_are(sample_markdown):
    fresh = Workspace(sample_markdown.documents, "markdown")
    made = {d.id: sample_markdown.analysis(d) for d in sample_markdown.documents[:3]}
    fresh.add_analyses(made)
    for document in sample_markdown.documents[:3]:
        assert fresh.analysis(document) is made[document.id]
        assert fresh.headings(document) is made[document.id].heading_index
    assert fresh.analysis(sample_markdown.documents[3]) is not sample_markdown.analysis(sample_markdown.documents[3])


def test_kept_is_the_share_of_atoms_kept_whole(sample_markdown):
    summary = sample_markdown.summarize("fixed:400")
    for kind in ATOM_KINDS:
        intact, counted = summary.survival_fit[kind]
        assert summary.kept(kind) == (intact / counted if counted else None)
        intact, counted = summary.survival_all[kind]
        assert summary.kept(kind, every=True) == (intact / counted if counted else None)
    assert summary.kept("code") < 1 and summary.kept("row") > summary.kept("table", every=True)


def test_a_released_configuration_is_measured_again_the_same(sample_markdown):
    work = Workspace(sample_markdown.documents, "markdown")
    before = work.summarize("recursive:800"), work.probe("recursive:800"), work.split("fixed:800")
    pooled = work.pool("recursive:800").starts
    assert work.pool("recursive:800").starts is pooled and work.split("fixed:800") is before[2], "kept until released"
    work.release("recursive:800")
    work.release("fixed:800")
    assert work.pool("recursive:800").starts is not pooled and work.split("fixed:800") is not before[2]
    assert (work.summarize("recursive:800"), work.probe("recursive:800"), work.split("fixed:800")) == before


@pytest.mark.parametrize("spec", ["structured:800", "recursive:200t/40"])
def test_a_corpus_measured_in_runs_of_documents_adds_up_to_the_whole(sample_markdown, spec):
    """What ``--engine ray``'s partitions rely on: survival, sizes and header carry are sums over documents."""
    whole = sample_markdown
    ids = [d.id for d in whole.documents]
    runs = [whole.subset(ids[a:b]) for a, b in ((0, 3), (3, 4), (4, len(ids)))]
    for fits in (None, 300):
        summary = SplitSummary.total(parse_spec(spec), [run.summarize(spec, fits=fits) for run in runs])
        assert summary == whole.summarize(spec, fits=fits)
    carry = HeaderCarry.total(run.header_carry(spec) for run in runs)
    assert carry == whole.header_carry(spec) and carry.rows > 0 and HeaderCarry.total([]) == HeaderCarry()
    assert SplitSummary.total(parse_spec(spec), []).chunks == 0
