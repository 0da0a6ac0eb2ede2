"""What a splitter kind declares: its options, its defaults, its controls and its split.

A kind is one module holding one ``Kind`` (the way markdown-it-py keeps a rule in a file and
lists it in one table): ``kinds/__init__`` lists them. A kind's split is written against
``Splitting``, the work a split of one text can call on (pieces, packing, embedders, a chat
model's kept answers); ``split.job`` does that work. So this room needs nothing above it, and
``SplitterSpec`` reads a kind's options from its string form without knowing any kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from ..errors import SpecError

if TYPE_CHECKING:
    from ..spec import SplitterSpec

Span = tuple[int, int]

#: The largest budget (and piece) a spec may name.
MAX_BUDGET = 1_000_000


def whole_number(digits: str, what: str) -> int:
    """A number read from a spec string's digits, refused before ``int`` when it is too long to
    be one (Python would refuse 4,300 digits, and work hard on fewer)."""
    if not digits.isascii() or not digits.isdigit():
        raise SpecError(f"{what} must be a whole number, got {digits[:12]!r}")
    if len(digits.lstrip("0")) > len(str(MAX_BUDGET)):
        raise SpecError(f"{what} {digits[:12]}{'…' if len(digits) > 12 else ''} ({len(digits):,} digits) is larger "
                        f"than the limit of {MAX_BUDGET}")
    return int(digits)


@dataclass(frozen=True, slots=True)
class KindOptions:
    """A kind's own options: none. A kind with options subclasses this with its fields, says
    which ``+flag`` and ``;key=`` of the spec string are its (``FLAGS``, ``KEYS``) and reads and
    writes them; ``SplitterSpec`` keeps the value whole."""

    FLAGS: ClassVar[tuple[str, ...]] = ()
    """The ``+flag`` switches this kind adds (each off unless given)."""
    KEYS: ClassVar[tuple[str, ...]] = ()
    """The ``;key=value`` options this kind adds, in the order the string form writes them."""

    @classmethod
    def read(cls, flags: Sequence[str], values: Mapping[str, str]) -> "KindOptions":
        """These options from the spec string's flags (among ``FLAGS``) and values (among ``KEYS``)."""
        return cls()

    def flags(self) -> str:
        """The ``+flag`` switches that are on, as the string form writes them."""
        return ""

    def text(self) -> str:
        """The ``;key=value`` options that differ from their defaults, as the string form writes them."""
        return ""

    def problem(self, spec: SplitterSpec) -> str | None:
        """Why these options cannot run with ``spec``'s budget, unit and flags, or None."""
        return None

    @property
    def embedder(self) -> str:
        """The model this kind embeds the text with to split it; empty for a kind that embeds nothing."""
        return ""

    @property
    def answered_by(self) -> str:
        """The chat model whose kept answers place the cuts; empty for a kind that needs none."""
        return ""


@dataclass(frozen=True, slots=True)
class Control:
    """One of a kind's options as the app draws it under the splitter menu."""

    field: str
    """The options' field it sets."""
    label: str
    widget: str
    """``toggle`` (a checkbox), ``number`` (whole numbers from ``low`` to ``high``), ``text``
    (a line of at most ``high`` characters) or ``embedder`` (one of ``choices`` or the
    embedders the server allows)."""
    help: str = ""
    low: int = 0
    high: int = MAX_BUDGET
    default: Any = None
    """What the widget shows for the option's default value (e.g. 95 for a threshold of 0)."""
    choices: tuple[str, ...] = ()


class Splitting(Protocol):
    """The work a kind's split of one text calls on (``split.job.SplitJob`` does it). Spans are
    offsets into ``text``; a kind returns its chunks as ``pack`` returns them."""

    text: str
    spec: SplitterSpec
    seed: bool
    """True in seed mode, where the article's splitters run as it wrote them."""
    answers: object
    """What places a chat model's cuts (``split.answers.SplitAnswers``), or None."""

    @property
    def paragraphs(self) -> Sequence[Span]: ...
    @property
    def sentences(self) -> Sequence[Span]: ...
    def units(self) -> list[Span]:
        """Sentences where a block has prose, the whole block where it has none."""
    def tiled(self, spans: Sequence[Span], start: int = 0, end: int | None = None) -> list[Span]:
        """``spans`` widened to tile ``[start, end)`` by the packer's rules."""
    def recursive(self, start: int, end: int, separators: tuple[str, ...] | None = None,
                  budget: int | None = None) -> list[Span]:
        """``[start, end)`` cut after each separator in turn, recursing where a piece is over budget."""
    def sections(self) -> list[Span]:
        """Each heading to the next (the text before the first its own section unless blank)."""
    def structured(self, units: list[Span] | None = None) -> list:
        """Code blocks and tables as atomic pieces (an over-budget one cut between lines or rows),
        ``units`` (default: ``units()``) between them."""
    def pack(self, pieces: Sequence, overlap: int | None = None) -> list:
        """Pieces (spans, or ``structured``'s) packed greedily under the budget, with prefixes."""
    def windows(self) -> list:
        """Fixed windows of the budget, each starting ``budget - overlap`` after the one before."""
    def chroma_recursive(self) -> list[Span]:
        """Chroma's ``RecursiveTokenChunker`` at the budget and overlap, sizes in the spec's unit
        (``split.chroma``): stripped chunks, the whitespace at their cuts between them."""
    def token_windows(self) -> list[Span]:
        """Chroma's ``FixedTokenChunker``: windows of the budget over the whole text's tokens,
        each starting ``budget - overlap`` tokens after the one before."""
    def chroma_pieces(self) -> list[Span]:
        """Chroma's pieces for its chunkers by meaning: ``chroma_recursive`` at the piece size."""
    def chroma_clusters(self) -> list[Span]:
        """Chroma's ``ClusterSemanticChunker``'s groups of ``chroma_pieces``, each as one span."""
    def kamradt_texts(self) -> list[str]:
        """What ``KamradtModifiedChunker`` embeds: each piece with three on either side."""
    def kamradt_groups(self) -> list[Span]:
        """Chroma's ``KamradtModifiedChunker``'s groups of ``chroma_pieces``, each as one span."""
    def placed(self, spans: Sequence[Span]) -> list:
        """``spans`` as chunks, each with its prefix (which its budget does not count)."""
    def article(self, name: str, pieces: Callable[[], Sequence[Span]]) -> list[Span]:
        """The article's packer over ``pieces`` (made once per document and ``name``, for
        pieces that do not depend on the budget)."""
    def article_pack(self, pieces: Sequence[Span]) -> list[Span]:
        """The article's packer over ``pieces``."""
    def article_chunks(self, article: Callable[["Splitting"], list[Span] | None]) -> list | None:
        """In seed mode without overlap, ``article``'s spans with their prefixes; else None."""
    def article_structured(self) -> list[Span]:
        """The article's structured pieces: fences and tables whole, sentences elsewhere."""
    def fast(self, ends: list[int], atomic: Callable[[int], bool] | None = None) -> object:
        """``pack`` over pieces given by their sorted ends, one bisection per chunk."""
    def fast_units(self, name: str) -> object | None:
        """``fast`` over the ``paragraphs`` or ``units`` tiling the text, or None."""
    def fast_structured(self) -> object | None:
        """``fast`` over ``structured``'s pieces, or None where its shortcut does not hold."""
    def fast_sections(self) -> object:
        """``fast`` section by section over ``recursive``'s pieces."""
    def semantic_pieces(self) -> list:
        """The semantic chunker's sentences (with ``+atoms`` fences and tables whole)."""
    def semantic_groups(self, pieces: list) -> list[list]:
        """Runs of ``pieces`` between the breaks an embedder finds (the semantic chunker's)."""
    def cluster(self) -> list:
        """The cluster chunker's pieces: Chroma's separators merged up to the piece size."""
    def cluster_groups(self, pieces: list) -> list[list]:
        """The best clustering of ``pieces`` by their embeddings (Chroma's)."""
    def pack_groups(self, groups: list[list]) -> list:
        """Each group of pieces packed on its own."""
    def by_answers(self, pieces: list) -> list:
        """``pieces`` grouped where a chat model's kept answers cut, each group packed."""
    def texts(self, pieces: list, neighbours: bool = False) -> list[str]:
        """Each piece's text (``neighbours``: with the piece before and after it)."""


@dataclass(frozen=True, slots=True)
class Kind:
    """A splitter kind: one row of ``kinds.KINDS``."""

    name: str
    summary: str
    """One clause for the splitter menu's help: what it cuts at."""
    split: Callable[[Splitting], list]
    """Its chunks of one text, in atom mode ``Splitting.seed`` (the general path)."""
    options: type[KindOptions] = KindOptions
    controls: tuple[Control, ...] = ()
    """How the app draws ``options``."""
    article: Callable[[Splitting], list[Span] | None] | None = None
    """The article's own spans in seed mode, without prefixes: the shortcut measuring many
    configurations takes (None where the general path must run)."""
    fast: Callable[[Splitting], object | None] | None = None
    """Its chunks in markdown mode under a character budget without overlap, the fast way (None
    where it does not apply: the general path runs, with the same result)."""
    embedded: Callable[[Splitting], list[str]] | None = None
    """The texts an embedder reads to split one text (what its index-time cost counts); None
    for a kind that embeds nothing."""
    offered: bool = True
    """Splits with nothing but the text: the app's menu, ``tune`` and the drop-ins offer it (a
    kind needing answers written beforehand is offered apart)."""
    needs_answers: bool = False
    """Cuts where a chat model's answers, kept beforehand, say (``split.answers``)."""
    overlap_refusal: str = ""
    """Why it takes no overlap (e.g. "cuts where the meaning changes and repeats nothing"), or
    empty when it does."""
    path_default: bool = False
    """Prefixes each chunk with its heading path unless told not to (``-path``)."""
    header_default: bool = False
    """Repeats a table's header on chunks starting inside it unless told not to, outside seed mode."""
    follows_structure: bool = False
    """Cuts along the document's sections: the fixes table's "structure" step keeps it (with
    headers repeated) rather than switching to ``structured``."""
    tune_overlaps: bool = False
    """``tune`` tries it with each overlap of its space (else without overlap only)."""
    caps_chunks: bool = True
    """No chunk is over the budget but one holding an indivisible piece (Chroma's chunkers by
    meaning: Kamradt's budget is a mean, and the cluster programme can run a group past it)."""
    tiles: bool = True
    """Without overlap its chunks cover the text with nothing between them (Chroma's chunkers
    leave out the whitespace at their cuts)."""
    tune_prefixes: bool = True
    """``tune`` tries it with and without each heading-path prefix of its space (else as it
    is: a kind whose prefix never changes what it ranks, or that prefixes by default)."""
