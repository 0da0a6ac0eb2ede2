"""Survival, cut atoms, header carry and size statistics from exact spans."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import Chunk, Document, analyze, split_document
from inspector.measure.headers import header_carry
from inspector.measure.sizes import SizeStats, cap_report, percentile
from inspector.measure.survival import contained, cut_atoms, survival

spans_strategy = st.lists(st.tuples(st.integers(0, 200), st.integers(1, 60)).map(lambda t: (t[0], t[0] + t[1])),
                          max_size=25)


@given(atoms=spans_strategy, chunks=spans_strategy)
def test_contained_matches_the_definition(atoms, chunks):
    expected = [any(a <= s and e <= b for a, b in chunks) for s, e in atoms]
    assert contained(atoms, chunks) == expected


@given(atoms=spans_strategy, chunks=spans_strategy)
def test_cut_atoms_are_exactly_the_atoms_no_chunk_holds(atoms, chunks):
    cuts = cut_atoms({"row": tuple(atoms)}, chunks)
    expected = [s for s in atoms if not any(a <= s[0] and s[1] <= b for a, b in chunks)]
    assert sorted((c.start, c.end) for c in cuts) == sorted(expected)
    for cut in cuts:
        assert list(cut.chunks) == [i for i, (a, b) in enumerate(chunks) if a < cut.end and b > cut.start]


def test_survival_counts_fit_atoms_only_when_asked():
    atoms = {"code": ((0, 10), (20, 100)), "row": ((0, 5),)}
    chunks = [(0, 50), (50, 100)]
    assert survival(atoms, chunks)["code"] == (1, 2)
    assert survival(atoms, chunks, fits=30)["code"] == (1, 1)
    assert survival(atoms, chunks, fits=30)["row"] == (1, 1)
    assert survival(atoms, chunks)["num"] == (0, 0)


def test_percentile_interpolates_like_the_article():
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 99) == 10
    assert percentile([], 50) == 0.0
    assert percentile([1, 100], 90) == pytest.approx(90.1)


def test_size_stats_and_cap_report():
    stats = SizeStats.of([10, 20, 30, 40, 400])
    assert (stats.count, stats.p50, stats.max) == (5, 30, 400)
    report = cap_report([10, 40, 300, 510, 520], cap=512, runt_tokens=32, overhead=2)
    assert report.runt_ratio == pytest.approx(1 / 5)
    assert report.over_cap == (4,)  # 510 + 2 special tokens still fits 512


TABLE = "Intro.\n\n| name | value |\n|---|---|\n" + "".join(f"| r{i} | {'x' * 30} |\n" for i in range(12)) + "\nEnd.\n"


def test_header_carry_counts_rows_cut_from_their_header_in_seed_mode():
    doc = Document("t.md", TABLE)
    analysis = analyze(TABLE, "seed")
    result = split_document(doc, "structured:200", analysis)
    carry = header_carry(TABLE, analysis, list(result.chunks))
    rows = len(analysis.atoms["row"])
    assert carry.rows <= rows
    assert carry.rows_with_header + carry.rows_mid_table == carry.rows
    assert carry.mid_table_chunks >= 1 and carry.rows_mid_table >= 1


def test_repeated_header_prefix_counts_as_carried_in_markdown_mode():
    doc = Document("t.md", TABLE)
    analysis = analyze(TABLE)
    with_header = split_document(doc, "structured:200", analysis)
    without = split_document(doc, "structured:200-header", analysis)
    carried = header_carry(TABLE, analysis, list(with_header.chunks))
    lost = header_carry(TABLE, analysis, list(without.chunks))
    assert carried.rows == 12 and carried.rows_with_header == 12 and carried.mid_table_chunks == 0
    assert lost.rows_mid_table > 0


def test_header_in_span_counts_even_without_prefix():
    analysis = analyze(TABLE)
    whole = [Chunk("t.md", 0, 0, len(TABLE))]
    carry = header_carry(TABLE, analysis, whole)
    assert carry.rows == carry.rows_with_header == 12
