"""``inspector.measure.survival``: containment, survival and cut atoms from exact spans."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

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


def test_uncovered_counts_the_text_no_chunk_holds():
    from inspector.measure.survival import uncovered

    text = "ab  cd\n\nef gh"
    assert uncovered(text, [(0, 2)]) == len("cdefgh")
    assert uncovered(text, [(0, 6), (5, 13)]) == 0
    assert uncovered(text, []) == len("abcdefgh")
