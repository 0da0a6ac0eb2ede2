"""``views.damage``: the document a first look opens on is the one the splitter cuts most."""

from __future__ import annotations

from inspector import Workspace
from inspector.measure.survival import cut_atoms
from inspector.model import Document
from inspector.views import first_look
from inspector.views.first_look import Damage, damage

FENCE = "```\n" + "x = 1\n" * 40 + "```\n"


def test_the_worst_document_is_the_one_with_most_cut_atoms_the_first_of_a_tie():
    documents = [Document("calm.md", "# Calm\n\nWords only.\n"), Document("one.md", "Intro.\n\n" + FENCE),
                 Document("two.md", "Intro.\n\n" + FENCE + "\nMiddle.\n\n" + FENCE),
                 Document("also.md", "Hi.\n\n" + FENCE * 2)]
    workspace = Workspace(documents)
    found = damage(workspace, "fixed:100")
    counts = {doc.id: len(cut_atoms(workspace.analysis(doc).atoms, result.spans))
              for doc, result in zip(documents, workspace.split("fixed:100"))}
    assert dict(found.cuts) == counts and found.total == sum(counts.values())
    most = max(counts.values())
    assert found.worst == next(d for d in counts if counts[d] == most) and counts["calm.md"] == 0
    assert damage(workspace, "structured:2000").worst is None, "a splitter that cuts nothing names no document"
    assert Damage("x", (("a", 2), ("b", 2))).worst == "a" and Damage("x", ()).worst is None


def test_a_corpus_too_long_for_a_first_look_is_not_split(monkeypatch):
    workspace = Workspace([Document("a.md", "Intro.\n\n" + FENCE)])
    monkeypatch.setattr(first_look, "MAX_DAMAGE_CHARACTERS", 10)
    assert damage(workspace, "fixed:100") is None
