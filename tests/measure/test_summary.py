"""What is counted over a whole corpus apart from any one document: configurations' counts
summed over runs of documents, and every document's spans kept compactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector import load_corpus
from inspector.measure.summary import BUCKETS, RunningSummary, SpanLists, SplitSummary, grouped_total
from inspector.measure.workspace import Workspace
from inspector.model import ATOM_KINDS
from inspector.retrieval.probe import drawn
from inspector.spec import parse_spec
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


buckets = st.dictionaries(st.integers(0, BUCKETS - 1), st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=20)
tallies = st.dictionaries(st.tuples(st.integers(0, 5), st.integers(0, 5)), st.integers(1, 9), max_size=4)


@given(st.lists(st.tuples(buckets, tallies, st.integers(0, 99)), max_size=8))
def test_running_sums_of_runs_are_the_sums_of_every_run_kept_to_the_end(runs):
    """A pass over many batches holds one running sum, and it is what summing every batch at the
    end gives: each group's counts, a group seen with no atom kept, tallies merged."""
    spec, kind = parse_spec("fixed:400"), ATOM_KINDS[0]
    parts = [SplitSummary(spec, chunks, chunks * 3, {kind: (1, 2)}, {kind: (2, 3)}, 0, {kind: tuple(sorted(t.items()))},
                          {}, {kind: tuple((g, a, b) for g, (a, b) in sorted(found.items()))}, {})
             for found, t, chunks in runs]
    running = RunningSummary(spec)
    for part in parts:
        running.add(part)
    total = running.summary()
    assert total == SplitSummary.total(spec, parts)
    groups: dict[int, list[int]] = {}
    tally: dict[tuple[int, int], int] = {}
    for found, t, _ in runs:
        for group, (a, b) in found.items():
            groups.setdefault(group, [0, 0])
            groups[group][0] += a
            groups[group][1] += b
        for pair, n in t.items():
            tally[pair] = tally.get(pair, 0) + n
    assert total.groups_fit[kind] == tuple((g, a, b) for g, (a, b) in sorted(groups.items()))
    assert total.tally_fit[kind] == tuple(sorted(tally.items()))
    assert total.chunks == sum(chunks for *_, chunks in runs)
    assert total.survival_fit[kind] == (len(runs), 2 * len(runs))
    assert all(total.groups_all[k] == () for k in ATOM_KINDS)
