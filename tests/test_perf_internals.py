"""The report's fast paths give exactly what the plain computations give.

Each shortcut taken for speed (one regex scan per document, bisection packing, whole-corpus
arrays, batched BM25 ranking, forked analysis) is checked here against a straightforward
version: ``reference_seed`` (the plain implementation the seed rules had before) for the
atoms and queries, our per-chunk code for the rest.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Workspace, analyze, build_report, split_document
from inspector.atoms.analysis import Analysis
from inspector.atoms.seed import ATX, ROW_ATOM, analyze_seed, matches_at_line_starts
from inspector.lengths import get_length
from inspector.measure.arrays import ChunkArrays, held_whole
from inspector.measure.headers import header_carry, header_carry_spans
from inspector.measure.survival import contained, survival_pair
from inspector.measure.workers import shares
from inspector.model import ATOM_KINDS, Document
from inspector.retrieval.bm25 import BM25
from inspector.retrieval.probe import make_queries
from inspector.retrieval.terms import TermTable, terms_of
from inspector.spec import SplitterSpec
from inspector.split.packing_seed import SeedPieces, pack_seed_chars
from inspector.split.splitters import chunk_spans

from . import reference_seed as plain
from .strategies import markdown_document

SAMPLE = Path(__file__).resolve().parent.parent / "sample_corpus"
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Line ends the article's line scanner knows but the regexes do not, stray pipes, fences,
# blank lines made of spaces and tabs, links and figures.
PIECES = ["Alpha beta.", " Gamma 42 delta epsilon zeta eta theta iota kappa lambda.", "\n", "\n\n", "\n \t\n",
          "\r\n", "\r", "\u2028", "\x0c", "\x85", "| a | b |", "|---|---|", "|x|  ", "not | a row", "```",
          "  ```py", "# Head", "## Sub #", "#NoSpace", "see [docs](https://x.example/a1).", "(Paren) ",
          '"Quote" ', "e.g. v4.2 ", "émigré 🙂 ", "  ", "\t", "?", "!", "Replication latency throughput 17%."]


@st.composite
def seed_text(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(PIECES), max_size=40)))


@FAST
@given(text=st.one_of(seed_text(), markdown_document()))
def test_seed_atoms_are_the_plain_rules(text):
    ours = analyze_seed(text)
    assert list(ours.paragraphs) == plain.paragraphs(text)
    assert list(ours.sentences) == plain.sentences(text)
    assert {k: list(v) for k, v in ours.atoms.items()} == plain.atoms(text)


@FAST
@given(text=seed_text())
def test_line_start_matching_equals_finditer(text):
    for pattern, first in ((ROW_ATOM, "|"), (ATX, "#")):
        assert [m.span() for m in matches_at_line_starts(pattern, text, first)] == \
               [m.span() for m in pattern.finditer(text)]


@FAST
@given(texts=st.lists(st.one_of(seed_text(), markdown_document()), min_size=1, max_size=4))
def test_queries_are_the_plain_recipe(texts):
    docs = [Document(f"d{i}.md", t) for i, t in enumerate(texts)]
    figures = [analyze_seed(d.text).atoms["num"] for d in docs]
    ours = make_queries(docs, figures, count=10**6)
    assert [(q.doc_id, q.evidence, q.words) for q in ours] == \
           plain.queries([(d.id, d.text) for d in docs], count=10**6)


# -- packing, spans and survival ---------------------------------------------------------------

@st.composite
def pieces(draw) -> list[tuple[int, int]]:
    out, pos = [], 0
    for _ in range(draw(st.integers(0, 25))):
        a = pos + draw(st.sampled_from([0, 0, 1, 3]))
        b = a + draw(st.sampled_from([0, 1, 5, 20, 50, 120, 300]))
        out.append((a, b))
        pos = b if draw(st.booleans()) else max(a, b - draw(st.sampled_from([5, 500])))  # some overlap
    return out


@settings(max_examples=300, deadline=None)
@given(pieces=pieces(), budget=st.sampled_from([1, 5, 50, 100, 200]))
def test_bisection_packer_equals_the_step_by_step_one(pieces, budget):
    assert SeedPieces(pieces).pack_chars(budget) == pack_seed_chars(pieces, budget)


KIND_SPECS = ["fixed:40", "fixed:60/7", "paragraph:80", "sentence:50", "recursive:70", "structured:90",
              "structured:60+path", "heading:100", "structured:40/5"]


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
@given(atoms=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 30)), max_size=20),
       chunks=st.lists(st.tuples(st.integers(0, 60), st.integers(0, 40)), max_size=12))
def test_whole_corpus_containment_equals_per_document(atoms, chunks):
    atoms = [(a, a + n) for a, n in atoms]
    chunks = [(a, a + n) for a, n in chunks]
    # the same spans in three documents 100 apart, with the chunks of the middle one missing
    base = np.array([0, 100, 200])
    starts = np.array([a + b for b in (0, 200) for a, _ in chunks], dtype=np.int64)
    ends = np.array([e + b for b in (0, 200) for _, e in chunks], dtype=np.int64)
    a_starts = np.array([a + b for b in base for a, _ in atoms], dtype=np.int64)
    a_ends = np.array([e + b for b in base for _, e in atoms], dtype=np.int64)
    held = held_whole(a_starts, a_ends, starts, ends).tolist()
    expected = contained(atoms, chunks) + [False] * len(atoms) + contained(atoms, chunks)
    assert held == expected


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


# -- the probe's term table and ranking --------------------------------------------------------

@FAST
@given(texts=st.lists(st.one_of(seed_text(), markdown_document()), min_size=1, max_size=3),
       extra=st.lists(st.sampled_from(["abcd", "abxd", "ab.c", "foo-bar", "Foo", "é", "a", "alpha", "x" * 30]),
                      max_size=5))
def test_selected_occurrences_are_every_equal_term(texts, extra):
    table = TermTable((f"d{i}", t) for i, t in enumerate(texts))
    joined = "\n".join(texts)
    terms = [(a, b) for a, b in zip(table.starts.tolist(), table.ends.tolist())]
    wanted = frozenset(extra) | frozenset(w for w in terms_of(joined)[:8])
    positions, word_ids, vocabulary = table.select(wanted)
    expected = [(i, vocabulary.index(joined[a:b].lower())) for i, (a, b) in enumerate(terms)
                if joined[a:b].lower() in wanted]
    assert list(zip(positions.tolist(), word_ids.tolist())) == expected


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(1, 8), data=st.data())
def test_batched_ranking_equals_one_query_at_a_time(n, k, data):
    vocabulary = ["w0", "w1", "w2", "w3", "w4"]
    postings = {}
    for word in vocabulary:
        chunks = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=n)))
        counts = data.draw(st.lists(st.integers(1, 3), min_size=len(chunks), max_size=len(chunks)))
        postings[word] = (np.array(chunks, dtype=np.int64), np.array(counts, dtype=np.float64))
    lens = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), dtype=np.int64)
    queries = data.draw(st.lists(st.lists(st.sampled_from(vocabulary + ["none"]), max_size=4).map(tuple),
                                 min_size=1, max_size=6))
    ranker = BM25(lens, postings)
    assert ranker.top_many(queries, k) == [ranker.top(q, k) for q in queries]


# -- handing work to forked processes ----------------------------------------------------------

@FAST
@given(text=st.one_of(seed_text(), markdown_document()), mode=st.sampled_from(["seed", "markdown"]))
def test_plain_analyses_round_trip(text, mode):
    analysis = analyze(text, mode)
    assert Analysis.from_plain(analysis.to_plain()) == analysis


@settings(max_examples=200, deadline=None)
@given(sizes=st.lists(st.sampled_from([0, 1, 10, 1000, 5000]), min_size=2, max_size=12),
       jobs=st.integers(2, 6), head=st.sampled_from([0.0, 0.05, 0.2, 1.0, 3.0]))
def test_every_worker_gets_documents(sizes, jobs, head):
    docs = [Document(f"d{i}", "x" * size) for i, size in enumerate(sizes)]
    bounds = shares(docs, jobs, head)
    assert bounds[0] == 0 and bounds[-1] == len(docs)
    assert len(bounds) == min(jobs - 1, len(docs)) + 2
    assert all(a <= b for a, b in zip(bounds, bounds[1:]))
    assert all(a < b for a, b in zip(bounds[1:], bounds[2:]))


@pytest.mark.parametrize("mode", ["seed", "markdown"])
def test_forked_report_equals_the_serial_one(mode, sample_seed, sample_markdown):
    documents = list((sample_seed if mode == "seed" else sample_markdown).documents)
    serial = build_report(Workspace(documents, mode), jobs=1)
    forked = Workspace(documents, mode)
    assert build_report(forked, jobs=3) == serial
    assert [a for a in forked.analyses()] == [analyze(d.text, mode) for d in documents]


def test_chunk_arrays_keep_prefixes_aligned():
    arrays = ChunkArrays.from_spans(["a", "b", "c"], [([(0, 2), (2, 4)], None, 0), ([], None, 0),
                                                      ([(0, 1)], ["P\n"], 1)])
    assert arrays.counts.tolist() == [2, 0, 1]
    assert arrays.doc_of.tolist() == [0, 0, 2]
    assert arrays.prefixes == ("", "", "P\n")
    assert arrays.oversized == 1 and arrays.span_chars() == 5
    starts, ends = arrays.global_spans(np.array([0, 10, 20]))
    assert starts.tolist() == [0, 2, 20] and ends.tolist() == [2, 4, 21]


@pytest.mark.parametrize("texts", [[], [""], ["", "Short. Text 1."]])
def test_empty_corpora_measure_to_zero(texts):
    work = Workspace([Document(f"d{i}", t) for i, t in enumerate(texts)], "seed")
    summary = work.summarize("structured:800")
    assert summary.survival_all == {k: (0, 0) for k in ATOM_KINDS}
    assert work.probe("fixed:100").queries == 0
    assert work.header_carry().as_dict() == {"rows": 0, "rows_with_header": 0, "rows_mid_table": 0,
                                             "mid_table_chunks": 0}


def test_command_line_report_is_the_same_with_any_number_of_workers(capsys):
    from inspector.cli import main

    outputs = []
    for jobs in ("1", "2", "3"):
        assert main(["report", str(SAMPLE), "--atoms", "seed", "--json", "--quiet", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]


def test_splitting_pauses_the_collector_and_restores_it(sample_markdown, monkeypatch):
    """The collector is off while a corpus is split, and afterwards as it was before."""
    import gc

    import inspector.measure.workspace as workspace_module
    from inspector.collector import collection_paused

    seen = []

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return split_document(*args, **kwargs)

    monkeypatch.setattr(workspace_module, "split_document", spy)
    work = Workspace(sample_markdown.documents[:3], "markdown")
    assert gc.isenabled()
    try:
        work.split("structured:300")
        assert seen and not any(seen) and gc.isenabled()
        gc.disable()
        work.split("sentence:300")
        assert len(seen) == 6 and not gc.isenabled()  # left off, as it was found
    finally:
        gc.enable()
    with pytest.raises(RuntimeError):
        with collection_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_reading_markdown_tokens_pauses_the_collector(monkeypatch):
    """The collector waits while the tokens are read, not while markdown-it parses."""
    import gc

    import inspector.atoms.markdown as atoms_markdown

    seen = []
    real_parse, real_prose = atoms_markdown.PARSER.parse, atoms_markdown.prose_sentences

    class Parser:
        def parse(self, src, env):
            seen.append(("parse", gc.isenabled()))
            return real_parse(src, env)

    def prose(*args):
        seen.append(("prose", gc.isenabled()))
        return real_prose(*args)

    monkeypatch.setattr(atoms_markdown, "PARSER", Parser())
    monkeypatch.setattr(atoms_markdown, "prose_sentences", prose)
    analysis = atoms_markdown.analyze_markdown("# Title\n\nOne sentence with 42 words in it, or so they say.\n")
    assert analysis.sentences and seen[0] == ("parse", True)
    assert ("prose", False) in seen and ("prose", True) not in seen
    assert gc.isenabled()
