"""What the default, markdown-aware structured splitter promises."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Document, analyze, split_document
from inspector.measure.headers import header_carry
from inspector.measure.survival import survival
from tests.strategies import markdown_document

KINDS_KEPT = ("code", "table", "row", "num")


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
