"""What a demo opens on and points at: the document a splitter damages most, and what a second
splitter fixes and breaks on it.

A first look should show what the tool is for: a cut, in red. The document holding the most cut
atoms under the sidebar's splitter is opened (ties: the earlier in corpus order); a corpus that
no splitter cuts opens on its first document and says so. Beside a second splitter, the atoms
one cuts and the other keeps whole are listed each way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..measure.survival import cut_atoms
from ..spec import SplitterSpec, parse_spec

#: Characters from which the first look does not split the whole corpus to find its worst
#: document (the corpus's first is opened at once): analysing 3.1 million distinct characters
#: takes about 2 s here, time a first look should not wait.
MAX_DAMAGE_CHARACTERS = 2_000_000


@dataclass(frozen=True, slots=True)
class Damage:
    """Cut atoms per document under one splitter."""

    spec: str
    cuts: tuple[tuple[str, int], ...]
    """``(document id, cut atoms)`` in corpus order."""

    @property
    def worst(self) -> str | None:
        """The document with the most cut atoms (the first of a tie), None when nothing is cut."""
        most = max((n for _, n in self.cuts), default=0)
        return next(doc for doc, n in self.cuts if n == most) if most else None

    @property
    def total(self) -> int:
        return sum(n for _, n in self.cuts)


def damage(workspace, spec: SplitterSpec | str) -> Damage | None:
    """Cut atoms per document of ``workspace`` under ``spec``; None for a corpus over
    ``MAX_DAMAGE_CHARACTERS`` (too long to split for a first look)."""
    if workspace.characters > MAX_DAMAGE_CHARACTERS:
        return None
    spec = parse_spec(spec)
    counts = []
    for document, result in zip(workspace.documents, workspace.split(spec)):
        counts.append((document.id, len(cut_atoms(workspace.analysis(document).atoms, result.spans))))
    return Damage(str(spec), tuple(counts))


@dataclass(frozen=True, slots=True)
class LaneChanges:
    """What a second splitter fixes and breaks on one document, atom by atom."""

    fixed: tuple
    """Atoms lane a cuts and lane b keeps whole (``CutAtom`` of lane a, its chunks a's)."""

    broken: tuple
    """Atoms lane a keeps whole and lane b cuts (``CutAtom`` of lane b, its chunks b's)."""


def lane_changes(cuts_a, cuts_b) -> LaneChanges:
    """The atoms cut by one of two splitters of the same document and whole in the other."""
    in_a = {(c.kind, c.start, c.end) for c in cuts_a}
    in_b = {(c.kind, c.start, c.end) for c in cuts_b}
    return LaneChanges(tuple(c for c in cuts_a if (c.kind, c.start, c.end) not in in_b),
                       tuple(c for c in cuts_b if (c.kind, c.start, c.end) not in in_a))


_ANCHOR = re.compile(r"^ci-[A-Za-z0-9_-]{1,40}-cut-[0-9]{1,9}$")


def scroll_to_html(anchor: str) -> str:
    """A script that scrolls the overlay holding ``anchor`` (an id such as ``ci-a-cut-0``) so the
    mark sits in the top third of its text box, then, when the mark is still out of sight, the page so
    the text box starts at its top.
    It waits for the overlay to be drawn (up to 5 s) and does nothing when the mark is absent. For
    5 s after, elements drawn above the text can still push the mark out of sight: it is placed
    again, unless the reader has scrolled, typed or clicked meanwhile (any scroll it did not make)."""
    if not _ANCHOR.match(anchor):
        raise ValueError(f"{anchor!r} is not an overlay anchor (ci-LANE-cut-N)")
    return ("<script>(() => { const begun = Date.now(); let placed = 0, left = false, kept = null;"
            "const leave = () => { left = true; };"
            # The page scrolls in the app's main area, not the window: the nearest ancestor that scrolls.
            "const page = (el) => { for (let up = el.parentElement; up; up = up.parentElement) {"
            " const o = getComputedStyle(up).overflowY;"
            " if ((o === 'auto' || o === 'scroll') && up.scrollHeight > up.clientHeight) return up; }"
            " return document.scrollingElement; };"
            "for (const kind of ['wheel', 'touchstart', 'keydown', 'mousedown'])"
            " window.addEventListener(kind, leave, {capture: true, once: true});"
            "const place = (mark, box) => {"
            "if (box) box.scrollTop += mark.getBoundingClientRect().top - box.getBoundingClientRect().top"
            " - box.clientHeight / 3;"
            "const seen = mark.getBoundingClientRect();"
            "if (seen.top < 0 || seen.bottom > window.innerHeight) (box || mark).scrollIntoView({block: 'start'});"
            "placed = placed || Date.now(); kept = [box ? box.scrollTop : 0, page(box || mark).scrollTop]; };"
            "const go = () => { if (left) return;"
            f"const mark = document.getElementById('{anchor}');"
            "if (!mark) { if (!placed && Date.now() - begun < 5000) setTimeout(go, 50); return; }"
            "const box = mark.closest('.ci-text');"
            "if (!placed) place(mark, box);"
            "else if (kept[0] !== (box ? box.scrollTop : 0) || kept[1] !== page(box || mark).scrollTop) return;"
            "else { const seen = mark.getBoundingClientRect(), top = box ? box.getBoundingClientRect() : seen;"
            " if (seen.top < 0 || seen.bottom > window.innerHeight || seen.top < top.top"
            " || (box && seen.top > top.top + box.clientHeight)) place(mark, box); }"
            "if (Date.now() - placed < 5000) setTimeout(go, 100); }; go(); })();</script>")
