"""``inspector.model``: chunks built from columns equal chunks built one by one."""

from __future__ import annotations

import dataclasses

import pytest

from inspector.model import Chunk, make_chunks


def test_chunks_made_from_columns_equal_chunks_made_one_by_one():
    made = make_chunks("a.md", [0, 5], [5, 9], ["p\n", ""], "structured:800", [("A",), ("A", "B")])
    expected = (Chunk("a.md", 0, 0, 5, "p\n", "structured:800", ("A",)),
                Chunk("a.md", 1, 5, 9, "", "structured:800", ("A", "B")))
    assert made == expected
    assert [c.id for c in made] == [c.id for c in expected]
    assert hash(made[1]) == hash(expected[1])
    assert make_chunks("a.md", [3], [4], None, "x", [()]) == (Chunk("a.md", 0, 3, 4, "", "x", ()),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].start = 1  # still frozen
