"""``inspector.measure.headers``: table rows that keep or lose their header."""

from __future__ import annotations

from inspector import Chunk, Document, analyze, split_document
from inspector.measure.headers import header_carry

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
