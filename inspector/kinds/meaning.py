"""What the chunkers that cut by meaning share: ``+atoms``, the embedders they may use, the size
of their pieces. Not a kind: ``semantic``, ``cluster`` and ``llm`` build their options from it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Control

if TYPE_CHECKING:
    from ..spec import SplitterSpec

#: The models a similarity chunker may embed with: offline, their weights in a package.
SIMILARITY_MODELS: tuple[str, ...] = ("wordllama", "minilm")
#: Chroma's ClusterSemanticChunker clusters pieces of 50 tokens (here 200 characters when counting characters).
DEFAULT_PIECE = {True: 50, False: 200}
#: Why a chunker by meaning takes no overlap.
REPEATS_NOTHING = "cuts where the meaning changes and repeats nothing"

ATOMS = Control("atoms", "Keep code blocks and tables whole", "toggle",
                "Off, the chunker cuts wherever its sentences or pieces end, as the library's does.")
EMBED = Control("embed", "Embed pieces with", "embedder",
                "wordllama ships inside its package; all-MiniLM-L6-v2 is offered when the server allows "
                "transformer models.", default=SIMILARITY_MODELS[0], choices=SIMILARITY_MODELS[:1])


def piece_control(what: str) -> Control:
    return Control("piece", "Piece size (0: 50 tokens or 200 characters)", "number", f"The size of the pieces {what}.")


def piece_size(piece: int, spec: SplitterSpec) -> int:
    """The size of a chunker's pieces in ``spec``'s unit: ``piece``, or by default Chroma's (a
    quarter of a budget too small for four of them)."""
    return piece or min(DEFAULT_PIECE[spec.in_tokens], max(1, spec.budget // 4))


def embed_problem(kind: str, embed: str) -> str | None:
    if embed and embed not in SIMILARITY_MODELS:
        return f"a {kind} chunker embeds with {' or '.join(SIMILARITY_MODELS)}, not {embed[:60]!r}"
    return None


def piece_problem(kind: str, piece: int, spec: SplitterSpec) -> str | None:
    if piece and not 0 < piece < spec.budget:
        return f"piece is the {kind} chunker's piece size, smaller than the budget ({spec.budget})"
    return None
