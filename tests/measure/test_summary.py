"""What is counted over a whole corpus apart from any one document: configurations' counts
summed over runs of documents, and every document's spans kept compactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector import load_corpus
from inspector.measure.summary import SpanLists, grouped_total
from inspector.measure.workspace import Workspace
from inspector.retrieval.probe import drawn
from tests.support.paths import SAMPLE

spans = st.tuples(st.integers(0, 2**40), st.integers(0, 2**40))


@given(st.lists(st.lists(spans, max_size=5), max_size=30))
def test_span_lists_give_back_every_document_s_spans_and_the_same_draw(lists):
    kept = SpanLists()
    for found in lists:
        kept.append(found)
    assert len(kept) == len(lists) and list(kept) == lists
    assert drawn(kept, count=7) == drawn(lists, count=7)


def test_groups_counted_apart_add_up_to_the_whole():
    corpus = load_corpus(SAMPLE)
    whole = Workspace(corpus)
    specs = ["fixed:400", "structured:800"]
    halves = [Workspace(corpus.documents[:40]), Workspace(corpus.documents[40:])]
    for key in ("format", "language"):
        assert grouped_total(part.summaries_by(key, specs) for part in halves) == whole.summaries_by(key, specs)
