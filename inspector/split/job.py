"""``SplitJob``: the split of one text under one spec, doing the work a kind's split calls on
(``kinds.base.Splitting``): pieces, packing (general, fast and the article's), embedders and a
chat model's kept answers. The kinds say what to cut at; this module and its siblings cut."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from functools import cached_property

from ..atoms.analysis import Analysis
from ..data_folder import document_hash
from ..errors import ContextLineError
from ..model import Span
from ..spec import SplitterSpec
from . import similarity
from .address import Address
from .answers import SplitAnswers
from .chroma import recursive_spans, window_spans
from .chroma_meaning import cluster_ends as chroma_cluster_ends
from .chroma_meaning import kamradt_ends, kamradt_windows
from .llm import SplitAnswersMissing, replay, window_for
from .packing import Packed, Piece, Sizer, pack, tile_text
from .packing_fast import Columns, pack_chars, packed_sections, packed_structured, packed_units
from .packing_seed import SeedPieces, pack_seed
from .pieces import (
    article_structured_pieces,
    fixed_windows,
    heading_sections,
    markdown_units,
    split_recursive,
    structured_pieces,
)
from .prefixes import prefixer
from .similarity import cluster_ends, cluster_pieces, neighbourhoods, semantic_groups, semantic_pieces, unit_rows


class SplitJob:
    """One text split under one spec (a ``kinds.base.Splitting``)."""

    def __init__(self, text: str, spec: SplitterSpec, analysis: Analysis, sizer: Sizer,
                 address: Address | None = None, answers: SplitAnswers | None = None) -> None:
        self.text = text
        self.spec = spec
        self.analysis = analysis
        self.sizer = sizer
        self.address = address
        self.answers = answers
        self.seed = analysis.mode == "seed"

    @cached_property
    def prefix_at(self) -> Callable[[int], str] | None:
        """A chunk's prefix from its start, or None when no chunk has one."""
        return prefixer(self.text, self.spec, self.analysis, self.seed, self.sizer, self.address)

    @property
    def separators(self) -> tuple[str, ...]:
        """Where the packer cuts a piece too large for its chunk."""
        return self.spec.separators[1:] or self.spec.separators

    @property
    def paragraphs(self) -> Sequence[Span]:
        return self.analysis.paragraphs

    @property
    def sentences(self) -> Sequence[Span]:
        return self.analysis.sentences

    def units(self) -> list[Span]:
        return markdown_units(self.analysis)

    def tiled(self, spans: Sequence[Span], start: int = 0, end: int | None = None) -> list[Span]:
        return tile_text(self.text, spans, start, len(self.text) if end is None else end)

    def recursive(self, start: int, end: int, separators: tuple[str, ...] | None = None,
                  budget: int | None = None) -> list[Span]:
        return split_recursive(self.text, start, end, separators or self.spec.separators, budget or self.spec.budget,
                               self.sizer)

    def sections(self) -> list[Span]:
        return heading_sections(self.text, self.analysis)

    def structured(self, units: list[Span] | None = None) -> list[Piece]:
        return structured_pieces(self.text, self.spec, self.analysis, self.sizer, self.prefix_at, units)

    def pack(self, pieces: Sequence, overlap: int | None = None) -> list[Packed]:
        if not self.text:
            return []
        pieces = [p if isinstance(p, Piece) else Piece(*p) for p in pieces]
        return pack(pieces, self.spec.budget, self.sizer, overlap=self.spec.overlap if overlap is None else overlap,
                    prefix_at=self.prefix_at, separators=self.separators)

    def windows(self) -> list[Packed]:
        return fixed_windows(self.text, self.spec, self.sizer, self.prefix_at, self.seed)

    def chroma_recursive(self) -> list[Span]:
        spec = self.spec
        return recursive_spans(self.text, spec.budget, spec.overlap, self.sizer.exact)

    def token_windows(self) -> list[Span]:
        length = self.sizer.length
        key = ("token_starts", length.key)
        starts = self.analysis.memo.get(key) if length.key else None
        if starts is None:
            starts = array("q", length.token_starts(self.text))
            if length.key:
                self.analysis.memo[key] = starts
        return window_spans(starts, len(self.text), self.spec.budget, self.spec.overlap)

    def chroma_pieces(self) -> list[Span]:
        length = self.sizer.length
        piece = self.spec.options.piece_size(self.spec)
        key = ("chroma_pieces", length.key, piece)
        found = self.analysis.memo.get(key) if length.key else None
        if found is None:
            found = recursive_spans(self.text, piece, 0, self.sizer.exact)
            if length.key:
                self.analysis.memo[key] = found
        return found

    def chroma_clusters(self) -> list[Span]:
        pieces = self.chroma_pieces()
        if not pieces:
            return []
        vectors = similarity.similarity_embedder(self.spec.options.embedder).embed(self._texts(pieces))
        most = self.spec.budget // self.spec.options.piece_size(self.spec)
        return _grouped(pieces, chroma_cluster_ends(vectors, most))

    def kamradt_texts(self) -> list[str]:
        return kamradt_windows(self._texts(self.chroma_pieces()))

    def kamradt_groups(self) -> list[Span]:
        pieces = self.chroma_pieces()
        if not pieces:
            return []
        vectors = similarity.similarity_embedder(self.spec.options.embedder).embed(self.kamradt_texts())
        total = sum(self.sizer.exact(text) for text in self._texts(pieces))
        return _grouped(pieces, kamradt_ends(vectors, total, self.spec.budget))

    def _texts(self, spans: Sequence[Span]) -> list[str]:
        return [self.text[a:b] for a, b in spans]

    def placed(self, spans: Sequence[Span]) -> list[Packed]:
        prefix_at = self.prefix_at
        return [Packed(a, b, prefix_at(a) if prefix_at else "") for a, b in spans]

    def article(self, name: str, pieces: Callable[[], Sequence[Span]]) -> list[Span]:
        key = f"seed_pieces:{name}"
        found = self.analysis.memo.get(key)
        if found is None:  # made once per document, reused for every budget
            found = self.analysis.memo[key] = SeedPieces(pieces())
        return pack_seed(found, self.spec.budget, self.sizer)

    def article_pack(self, pieces: Sequence[Span]) -> list[Span]:
        return pack_seed(list(pieces), self.spec.budget, self.sizer)

    def article_chunks(self, article: Callable[[SplitJob], list[Span] | None]) -> list[Packed] | None:
        if not self.seed or self.spec.overlap:
            return None
        spans = article(self)
        if spans is None:
            return None
        prefix_at = self.prefix_at
        return [Packed(a, b, prefix_at(a) if prefix_at else "") for a, b in spans]

    def article_structured(self) -> list[Span]:
        return article_structured_pieces(self.text, self.analysis)

    def fast(self, ends: list[int], atomic: Callable[[int], bool] | None = None) -> Columns:
        return pack_chars(ends, self.spec.budget, self.sizer, self.prefix_at, self.separators, atomic)

    def fast_units(self, name: str) -> Columns | None:
        return packed_units(self.text, self.spec.budget, self.analysis, self.sizer, self.prefix_at, self.separators,
                            name)

    def fast_structured(self) -> Columns | None:
        return packed_structured(self.text, self.spec.budget, self.analysis, self.sizer, self.prefix_at,
                                 self.separators)

    def fast_sections(self) -> Columns:
        return packed_sections(self.text, self.sections(), self.recursive, self.spec.budget, self.sizer,
                               self.prefix_at, self.separators)

    def semantic_pieces(self) -> list[Piece]:
        return semantic_pieces(self.text, self.spec, self.analysis, self.sizer, self.prefix_at)

    def semantic_groups(self, pieces: list[Piece]) -> list[list[Piece]]:
        options = self.spec.options
        embed = similarity.similarity_embedder(options.embedder).embed
        return semantic_groups(self.text, pieces, options.percentile, embed)

    def cluster(self) -> list[Piece]:
        return cluster_pieces(self.text, self.spec, self.analysis, self.sizer, self.prefix_at)

    def cluster_groups(self, pieces: list[Piece]) -> list[list[Piece]]:
        options = self.spec.options
        # Looked up when used, so that a test can put another embedder in its place.
        vectors = similarity.similarity_embedder(options.embedder).embed(self.texts(pieces))
        budget = self.spec.budget
        ends = cluster_ends(pieces, unit_rows(vectors), budget, budget // options.piece_size(self.spec), self.sizer)
        return [pieces[a:b] for a, b in zip([0, *ends], ends)]

    def pack_groups(self, groups: list[list[Piece]]) -> list[Packed]:
        out: list[Packed] = []
        for group in groups:
            out += self.pack(group, overlap=0)
        return out

    def by_answers(self, pieces: list[Piece]) -> list[Packed]:
        if self.answers is None:
            raise ContextLineError(f"{self.spec} cuts where its model's kept answers say, and none were given to read")
        text = self.text
        if not text:
            return []
        kept = self.answers.answers(self.spec.options.answered_by, document_hash(text))
        run = replay(text, pieces, self.sizer, window_for(self.spec), kept)
        if run.missing is not None:
            raise SplitAnswersMissing(self.spec, f"a document of {len(text):,} characters", len(run.asked),
                                      run.missing.first + 1, len(pieces))
        return self.pack_groups([pieces[a:b] for a, b in zip([0, *run.ends], run.ends)])

    def texts(self, pieces: list[Piece], neighbours: bool = False) -> list[str]:
        if neighbours:
            return neighbourhoods(self.text, pieces)
        return [self.text[p.start:p.end] for p in pieces]


def _grouped(pieces: Sequence[Span], ends: list[int]) -> list[Span]:
    """Each group of consecutive pieces (ending at ``ends``) as one span, first start to last end."""
    return [(pieces[a][0], pieces[b - 1][1]) for a, b in zip([0, *ends], ends)]
