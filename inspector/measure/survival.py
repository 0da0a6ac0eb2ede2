"""Which atoms a chunking keeps whole: survival, and the atoms it cuts.

An atom survives when one chunk's span contains it whole; prefixes do not count, since a
repeated header or heading path is not the atom's own text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate

from ..model import ATOM_KINDS, Span


class Containment:
    """Answers "does one chunk hold this span whole?" in O(log n) for one document's chunks."""

    __slots__ = ("starts", "reach")

    def __init__(self, chunks: list[Span]) -> None:
        ordered = chunks if all(chunks[i] <= chunks[i + 1] for i in range(len(chunks) - 1)) else sorted(chunks)
        self.starts = [a for a, _ in ordered]
        self.reach = list(accumulate((b for _, b in ordered), max))

    def holds(self, a: int, b: int) -> bool:
        """True when some chunk span contains ``[a, b)``."""
        k = bisect_right(self.starts, a)
        return k > 0 and self.reach[k - 1] >= b


class Interior:
    """Answers "is this offset strictly inside some atom?" in O(log n) for one document."""

    __slots__ = ("starts", "reach")

    def __init__(self, atoms) -> None:
        ordered = sorted(atoms)
        self.starts = [a for a, _ in ordered]
        self.reach = list(accumulate((b for _, b in ordered), max))

    def inside(self, offset: int) -> bool:
        k = bisect_left(self.starts, offset)  # atoms starting before the offset
        return k > 0 and self.reach[k - 1] > offset


def uncovered(text: str, spans) -> int:
    """Characters of ``text`` (whitespace not counted) outside every span: what a chunking lost."""
    lost, reached = 0, 0
    for a, b in sorted(spans):
        if a > reached:
            lost += len("".join(text[reached:a].split()))
        reached = max(reached, b)
    return lost + len("".join(text[reached:].split()))


def contained(atoms: tuple[Span, ...] | list[Span], chunks: list[Span]) -> list[bool]:
    """For each atom, whether some chunk span holds it whole (chunks in any order)."""
    if not chunks:
        return [False] * len(atoms)
    index = Containment(chunks)
    return [index.holds(a, b) for a, b in atoms]


def survival(atoms: dict[str, tuple[Span, ...]], chunks: list[Span],
             fits: int | None = None, size=None) -> dict[str, tuple[int, int]]:
    """``kind -> (intact, counted)``; with ``fits``, only atoms whose size is at most ``fits``
    count (``size(a, b)`` measures them, characters by default)."""
    return survival_pair(atoms, chunks, fits, size)[0 if fits is not None else 1]


def survival_pair(atoms: dict[str, tuple[Span, ...]], chunks: list[Span], fits: int | None,
                  size=None) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
    """Survival over atoms that fit (``fits``; all of them when None) and over every atom."""
    index = Containment(chunks) if chunks else None
    fit_out, all_out = {}, {}
    for kind in ATOM_KINDS:
        spans = atoms.get(kind, ())
        flags = [index.holds(a, b) for a, b in spans] if index else [False] * len(spans)
        all_out[kind] = (sum(flags), len(flags))
        if fits is None:
            fit_out[kind] = all_out[kind]
        else:
            measure = size or (lambda a, b: b - a)
            chosen = [flag for flag, (a, b) in zip(flags, spans) if measure(a, b) <= fits]
            fit_out[kind] = (sum(chosen), len(chosen))
    return fit_out, all_out



@dataclass(frozen=True, slots=True)
class CutAtom:
    """An atom no single chunk holds whole, and the chunks that hold its pieces."""

    kind: str
    """Atom kind (see ``ATOM_KINDS``)."""

    start: int
    """Offset of the atom's first character."""

    end: int
    """Offset one past the atom's last character."""

    chunks: tuple[int, ...]
    """Positions (in the chunk list given) of the chunks overlapping the atom, in order."""


def cut_atoms(atoms: dict[str, tuple[Span, ...]], chunks: list[Span]) -> list[CutAtom]:
    """Every atom that no chunk span contains whole, ordered by start then kind."""
    if not chunks:
        return [CutAtom(kind, a, b, ()) for kind in ATOM_KINDS for a, b in atoms.get(kind, ())]
    index = Containment(chunks)
    order = sorted(range(len(chunks)), key=lambda i: chunks[i])
    starts = [chunks[i][0] for i in order]
    # A chunk starting more than the longest chunk's length before an atom ends before it: only
    # the chunks from there on are looked at, not every chunk before the atom.
    longest = max(b - a for a, b in chunks)
    out = []
    for kind in ATOM_KINDS:
        for a, b in atoms.get(kind, ()):
            if index.holds(a, b):
                continue
            first, stop = bisect_left(starts, a - longest), bisect_left(starts, b)
            touching = tuple(sorted(i for i in order[first:stop] if chunks[i][1] > a))
            out.append(CutAtom(kind, a, b, touching))
    out.sort(key=lambda c: (c.start, ATOM_KINDS.index(c.kind)))
    return out
