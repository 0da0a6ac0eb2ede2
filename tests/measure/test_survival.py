"""``inspector.measure.survival``: containment, survival and cut atoms from exact spans."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.measure.survival import contained, cut_atoms, survival
from tests.support.strategies import markdown_document

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


def test_uncovered_counts_the_text_no_chunk_holds():
    from inspector.measure.survival import uncovered

    text = "ab  cd\n\nef gh"
    assert uncovered(text, [(0, 2)]) == len("cdefgh")
    assert uncovered(text, [(0, 6), (5, 13)]) == 0
    assert uncovered(text, []) == len("abcdefgh")


def _widened(text: str, spans):
    """Each span extended over the whitespace that follows it."""
    out = []
    for a, b in spans:
        while b < len(text) and text[b].isspace():
            b += 1
        out.append((a, b))
    return out


def _trimmed(text: str, spans):
    """Each span without its edge whitespace (what LangChain's splitters keep), empty ones dropped."""
    out = []
    for a, b in spans:
        inner = text[a:b]
        if inner.strip():
            start = a + len(inner) - len(inner.lstrip())
            out.append((start, start + len(inner.strip())))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), data=st.data())
def test_a_chunk_set_and_its_chunks_widened_or_trimmed_over_whitespace_keep_the_same_atoms_whole(text, data):
    analysis = analyze(text, "markdown")
    cuts = sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=20))) | {0, len(text)})
    chunks = [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]
    whole = survival(analysis.atoms, chunks)
    assert survival(analysis.atoms, _widened(text, chunks)) == whole
    assert survival(analysis.atoms, _trimmed(text, chunks)) == whole
    marks = [(c.kind, c.start, c.end) for c in cut_atoms(analysis.atoms, chunks)]
    assert [(c.kind, c.start, c.end) for c in cut_atoms(analysis.atoms, _trimmed(text, chunks))] == marks


def test_a_table_whose_chunk_stops_before_its_last_newline_is_kept_whole():
    text = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n\nAfter.\n"
    table, fence = text.index("| a"), text.index("```")
    chunks = [(0, 7), (table, text.index("\n\n```")), (fence, text.index("```\n\nAfter") + 3), (text.index("After"),
                                                                                             len(text) - 1)]
    assert survival(analyze(text).atoms, chunks)["table"] == (1, 1)
    assert survival(analyze(text).atoms, chunks)["row"] == (1, 1)
    assert survival(analyze(text).atoms, chunks)["code"] == (1, 1)
    assert survival(analyze(text, "seed").atoms, chunks)["code"] == (0, 1)  # the article's spans end on a newline
