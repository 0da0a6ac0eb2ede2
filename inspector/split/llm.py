"""The ``llm`` chunker: a chat model reads numbered pieces and names those after which a new
topic begins, as Chroma's LLMSemanticChunker does.

The text is cut into the cluster chunker's pieces (50 tokens at Chroma's separators by
default; ``+atoms`` keeps fences and tables whole). From the first piece, a window of pieces
up to ``WINDOW`` (800 tokens, Chroma's; 3,200 characters when counting characters) is shown
numbered, and the model answers ``split after: 3, 5``. The next window starts at the last piece
it named, as in Chroma's, but never before the middle of the window just shown, so a model that
names only early pieces cannot make the run crawl: a document of ``W`` windows asks between
``W`` and ``2W`` times. As in Chroma's, nothing is asked about the last ``TAIL`` pieces, and a
window of one piece is not asked about. The pieces between two cuts are then packed under the
budget, as the semantic chunker packs its groups.

Splitting never sends anything: it replays the answers kept in ``SplitAnswers`` (by model,
document and prompt), and refuses with the command that writes them when one is missing.
``context.splits`` plans, prices and writes them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..atoms.analysis import Analysis
from ..errors import ContextLineError
from ..lengths import Length
from ..model import Document
from ..spec import SplitterSpec
from .address import Address
from .answers import prompt_digest
from .packing import Piece, Sizer
from .prefixes import prefixer
from .similarity import cluster_pieces

#: How much of the text one prompt shows, in the spec's unit (tokens, or characters).
WINDOW = {True: 800, False: 3_200}
#: Chroma's chunker asks nothing about a document's last four pieces: they end its last chunk.
TAIL = 4
#: The longest answer read (``max_tokens`` of the request).
MAX_ANSWER_TOKENS = 100
_NUMBER = re.compile(r"\d{1,9}")

PROMPT = """Below is a passage cut into numbered pieces. Each piece stands between <piece N> and </piece N>.

{pieces}

Find where a new topic begins, so that pieces about one topic stay together. Answer with one line that
starts with "split after:" followed by the numbers of the pieces after which a new topic begins, in
ascending order, each from {low} to {high}; for example "split after: {example}". Name at least one."""


class SplitAnswersMissing(ContextLineError):
    """The llm chunker needs an answer nobody has written yet: for the ``answered``-th prompt of
    ``document`` (its id, or what it is when no id is known), at piece ``next_piece`` of ``pieces``."""

    def __init__(self, spec: SplitterSpec, document: str, answered: int, next_piece: int, pieces: int) -> None:
        self.spec, self.document, self.answered = spec, document, answered
        self.next_piece, self.pieces = next_piece, pieces
        super().__init__(
            f"{spec} needs answers from {spec.options.answered_by} that are not kept for {document} "
            f"({answered:,} prompts "
            f"answered, piece {next_piece:,} of {pieces:,} next): write them with `chunk-inspector context CORPUS "
            f"--spec '{spec.base}'` (it shows what they cost before sending anything)")

    def __reduce__(self):  # sent back from worker processes whole
        return SplitAnswersMissing, (self.spec, self.document, self.answered, self.next_piece, self.pieces)

    def of(self, document: str) -> "SplitAnswersMissing":
        """The same, naming the document by its id."""
        return SplitAnswersMissing(self.spec, document, self.answered, self.next_piece, self.pieces)


@dataclass(frozen=True, slots=True)
class Ask:
    """One prompt of a document's run: pieces ``first`` to ``last`` (exclusive) shown."""

    first: int
    last: int
    prompt: str

    @property
    def digest(self) -> str:
        return prompt_digest(self.prompt)


@dataclass(frozen=True, slots=True)
class Replay:
    """A document's run replayed from kept answers: every prompt answered and the cuts they
    place, or the first prompt without an answer."""

    pieces: list[Piece]
    asked: list[tuple[Ask, str]]
    ends: list[int]
    """Piece indexes (exclusive) where the groups end, the last one ``len(pieces)``; empty while ``missing``."""

    missing: Ask | None = None


def prompt_for(text: str, pieces: list[Piece], first: int, last: int) -> str:
    """The prompt showing ``pieces[first:last]``, numbered from 1 for the document's first piece."""
    shown = "\n".join(f"<piece {i + 1}>{text[pieces[i].start:pieces[i].end]}</piece {i + 1}>"
                      for i in range(first, last))
    low, high = first + 1, last - 1
    return PROMPT.format(pieces=shown, low=low, high=high,
                         example=f"{low}, {high}" if high > low else f"{low}")


def window_end(pieces: list[Piece], first: int, limit: int, sizer: Sizer) -> int:
    """Where the window from ``first`` ends: pieces added until their size passes ``limit`` (the
    piece that passes it shown too, as Chroma's does)."""
    size, last = 0, first
    while last < len(pieces):
        size += sizer.size(pieces[last].start, pieces[last].end)
        last += 1
        if size > limit:
            break
    return last


def cuts_in(answer: str, first: int, last: int) -> list[int]:
    """The cuts an answer names for the window ``[first, last)``: piece numbers after which a
    topic begins, as piece indexes (exclusive), in order; numbers outside the window dropped."""
    lines = [line for line in answer.splitlines() if re.search(r"split[ _]after", line, re.I)]
    return sorted({int(n) for n in _NUMBER.findall(lines[0] if lines else answer)} & set(range(first + 1, last)))


def next_first(first: int, last: int, cuts: list[int]) -> int:
    """Where the next window starts: at the last cut, but not before the window's middle."""
    if not cuts:
        return last
    return max(cuts[-1], first + (last - first + 1) // 2)


def replay(text: str, pieces: list[Piece], sizer: Sizer, limit: int, answers: Mapping[str, str],
           answer_for: Callable[[Ask], str | None] | None = None) -> Replay:
    """The run over ``pieces`` with the answers kept in ``answers`` (by prompt digest), or given
    by ``answer_for`` for a prompt without one (None: missing)."""
    asked: list[tuple[Ask, str]] = []
    cuts: list[int] = []
    first = 0
    n = len(pieces)
    while first < n - TAIL:
        last = window_end(pieces, first, limit, sizer)
        if last - first < 2:  # one piece: nothing to choose
            first = last
            continue
        ask = Ask(first, last, prompt_for(text, pieces, first, last))
        answer = answers.get(ask.digest)
        if answer is None and answer_for is not None:
            answer = answer_for(ask)
        if answer is None:
            return Replay(pieces, asked, [], ask)
        asked.append((ask, answer))
        found = cuts_in(answer, first, last)
        cuts += found  # each window starts at or after the last cut, so these come after it
        first = next_first(first, last, found)
    return Replay(pieces, asked, [*cuts, n] if n else [])


def document_run(document: Document, spec: SplitterSpec, analysis: Analysis, length: Length,
                 answers: Mapping[str, str], answer_for: Callable[[Ask], str | None] | None = None) -> Replay:
    """``replay`` over ``document``'s pieces under ``spec`` (what the writer and the cost walk)."""
    text = document.text
    sizer = Sizer.of(text, length, analysis.memo)
    prefix_at = prefixer(text, spec, analysis, analysis.mode == "seed", sizer, Address.of(document))
    return replay(text, cluster_pieces(text, spec, analysis, sizer, prefix_at), sizer, window_for(spec),
                  answers, answer_for)


def window_for(spec: SplitterSpec) -> int:
    """How much of the text one prompt shows the model, in ``spec``'s unit."""
    return WINDOW[spec.in_tokens]
