"""An Orphan Test round held on the screen: once a reviewer opens a round from its link or saves
its first answer, the round and the sidebar settings that draw its chunks stay fixed on the
Orphan Test page until the reviewer starts another round. Pure Python: nothing here imports
Streamlit.

Holding the settings, not only the round's id, is what keeps a team's answers in one round: a
sidebar click while reviewing would otherwise draw other chunks under another id.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..review.rounds import ReviewRound
from .state import PASTE, SAMPLE, UPLOAD, AppState

_WHERE = {"sample": "a random sample of every chunk", "probe": "the chunks the probe retrieved",
          "questions": "the chunks retrieved for your questions"}


@dataclass(frozen=True, slots=True)
class HeldRound:
    """A round fixed on the Orphan Test page, with what draws its chunks again on every run."""

    round: ReviewRound
    """The round every answer given on the page goes to."""

    state: AppState
    """The sidebar's settings when the round was opened (its corpus, mode and splitter)."""

    corpus_label: str
    """How the corpus is named to the reviewer ("the bundled sample corpus", a folder)."""

    uploaded: tuple[tuple[str, bytes], ...] = ()
    """The uploaded files or pasted text, when that is the corpus: they live in the browser
    session, so the held round keeps them for the chunks to be drawn again."""

    def viewing(self, doc: str) -> AppState:
        """The held settings with the document the sidebar shows (not part of a round)."""
        return replace(self.state, doc=doc)

    def corpus_source(self) -> str:
        """Which corpus widget the settings came from: sample, folder, upload or paste."""
        return self.state.corpus if self.state.corpus in (SAMPLE, UPLOAD, PASTE) else "folder"

    def settings(self) -> tuple[tuple[str, str], ...]:
        """The round's fixed settings as (name, value) lines, in the order a reviewer reads them."""
        r = self.round
        lines = [("Corpus", self.corpus_label), ("Atom detection", r.mode), ("Splitter", r.spec),
                 ("Chunks", f"{r.size} drawn with seed {r.seed} from {_WHERE[r.source]}")]
        if r.source != "sample":
            lines.append(("Ranked by", f"{r.index} asked itself" if r.index else f"{r.retriever}, top {r.k}"))
        if r.questions:
            lines.append(("Questions", r.questions))
        lines.append(("Round", r.id))
        return tuple(lines)
