"""The splitters: each turns a document into chunk spans under a ``SplitterSpec``.

Every splitter returns offsets, never strings. In ``seed`` mode the article's splitters are
reproduced exactly (including that its paragraph and sentence packers leave the whitespace
between chunks out of every chunk); in ``markdown`` mode chunks tile the text, overlap is
carried at piece boundaries, prefixes are paid for out of the budget, and ``structured``
splits an over-budget table between rows (repeating its header) or a fence between lines.
"""

from __future__ import annotations

from itertools import repeat

from ..atoms.analysis import Analysis
from ..atoms.detect import analyze
from ..errors import SpecError
from ..kinds import Kind, kind_named
from ..lengths import Length, get_length
from ..model import Document, Span, SplitResult, make_chunks, mode_tag
from ..spec import SplitterSpec, parse_spec
from .address import Address
from .answers import SplitAnswers
from .job import SplitJob
from .llm import SplitAnswersMissing
from .packing import Packed, Sizer
from .packing_fast import Columns


def split_document(
    document: Document,
    spec: SplitterSpec | str,
    analysis: Analysis | None = None,
    length: Length | None = None,
    *,
    mode: str = "markdown",
    answers: SplitAnswers | None = None,
) -> SplitResult:
    """Split one document. Pass a precomputed ``analysis`` to reuse its atoms. An ``llm`` spec
    reads the answers that place its cuts from ``answers`` (default: the data folder's store)."""
    spec = parse_spec(spec)
    if spec.is_imported:
        raise SpecError(f"{spec} names imported chunks, which are not split: register the chunk set with a "
                        "Workspace (Workspace.add_chunk_set) and use Workspace.split")
    length = length or get_length(spec.unit)
    if spec.is_adapter:
        from .adapters import split_with_adapter  # optional libraries load only when asked for

        return split_with_adapter(spec.kind, document, spec.budget, spec.overlap, unit=length,
                                  analysis=analysis, mode=mode)
    analysis = analysis or analyze(document.text, mode)
    if spec.needs_answers and answers is None:
        from ..data_folder import data_folder

        answers = SplitAnswers(data_folder())
    try:
        columns, oversized = split_columns(document.text, spec, analysis, length, Address.of(document), answers)
    except SplitAnswersMissing as missing:
        raise missing.of(document.id) from None
    tag = str(spec) + mode_tag(analysis.mode)
    chunks = make_chunks(document.id, columns.starts, columns.ends, columns.prefixes, tag,
                         analysis.heading_index.paths_at(columns.starts))
    return SplitResult(document.id, spec, analysis.mode, chunks, tuple(oversized))


def chunk_spans(text: str, spec: SplitterSpec, analysis: Analysis, length: Length,
                address: Address | None = None,
                answers: SplitAnswers | None = None) -> tuple[list[Span], list[str] | None, int]:
    """What ``split_document`` puts in its chunks, without building them: the spans, their
    prefixes (None when no chunk has one) and how many chunks are oversized.

    Measuring many configurations over a corpus needs only these; the article's character
    splitters go straight from pieces to spans.
    """
    kind = _kind(spec)
    if (kind.article is not None and analysis.mode == "seed" and length.unit == "characters"
            and not (spec.prefixes_path or spec.table_header or spec.address)):
        spans = kind.article(SplitJob(text, spec, analysis, Sizer(text)))
        if spans is not None:
            return spans, None, sum(1 for a, b in spans if b - a > spec.budget)
    columns, oversized = split_columns(text, spec, analysis, length, address, answers)
    prefixes = columns.prefixes
    return (list(zip(columns.starts, columns.ends)), prefixes if prefixes and any(prefixes) else None,
            len(oversized))


def _kind(spec: SplitterSpec) -> Kind:
    kind = kind_named(spec.kind)
    if kind is None:
        raise SpecError(f"{spec} is not a splitter kind this library splits with")
    return kind


def _oversized(text: str, packed: list[Packed], budget: int, length: Length) -> list[int]:
    """Chunks whose embedded text is over budget (only an indivisible piece can cause it)."""
    if length.unit == "characters":
        return [i for i, p in enumerate(packed) if len(p.prefix) + p.end - p.start > budget]
    unknown = [i for i, p in enumerate(packed) if p.size < 0]
    sizes = [p.size for p in packed]
    for i, size in zip(unknown, length.count_many([packed[i].prefix + text[packed[i].start:packed[i].end]
                                                  for i in unknown])):
        sizes[i] = size
    return [i for i, size in enumerate(sizes) if size > budget]


def split_columns(text: str, spec: SplitterSpec, analysis: Analysis, length: Length,
                  address: Address | None = None, answers: SplitAnswers | None = None) -> tuple[Columns, list[int]]:
    """Chunk spans and prefixes for one text as columns, with the indexes of the oversized
    chunks; the engine behind ``split_document``. ``address`` names the text's document
    for ``+address`` stamps; ``answers`` keeps what places an ``llm`` spec's cuts."""
    job = SplitJob(text, spec, analysis, Sizer.of(text, length, analysis.memo), address, answers)
    columns = fast_columns(job)
    if columns is not None:
        budget = spec.budget
        if columns.prefixes is None:
            oversized = [i for i, (a, b) in enumerate(zip(columns.starts, columns.ends)) if b - a > budget]
        else:
            oversized = [i for i, (a, b, p) in enumerate(zip(columns.starts, columns.ends, columns.prefixes))
                         if len(p) + b - a > budget]
        return columns, oversized
    packed = general_chunks(job)
    prefixes = [p.prefix for p in packed]
    columns = Columns([p.start for p in packed], [p.end for p in packed], prefixes if any(prefixes) else None)
    return columns, _oversized(text, packed, spec.budget, length)


def split_spans(text: str, spec: SplitterSpec, analysis: Analysis, length: Length,
                address: Address | None = None, answers: SplitAnswers | None = None) -> list[Packed]:
    """Chunk spans (with prefixes) for one text, as ``Packed`` values."""
    job = SplitJob(text, spec, analysis, Sizer.of(text, length, analysis.memo), address, answers)
    columns = fast_columns(job)
    if columns is None:
        return general_chunks(job)
    # The packer flags a chunk oversized exactly when one piece alone overfills its room.
    return [Packed(a, b, p, b - a > max(1, spec.budget - len(p)))
            for a, b, p in zip(columns.starts, columns.ends, columns.prefixes or repeat(""))]


def general_chunks(job: SplitJob) -> list[Packed]:
    """A text's chunks piece by piece, the way every kind can: its split."""
    return _kind(job.spec).split(job)


def fast_columns(job: SplitJob) -> Columns | None:
    """A kind's chunks the fast way where it has one and it applies (markdown mode, a character
    budget, no overlap); None sends the split down the general path, to the same chunks."""
    fast = _kind(job.spec).fast
    if fast is None or job.spec.overlap or not job.sizer.is_chars or job.analysis.mode != "markdown":
        return None
    if not job.text:
        return Columns([], [], None)
    return fast(job)


def chunker_inputs(document: Document, spec: SplitterSpec, analysis: Analysis, length: Length) -> list[str]:
    """The texts a chunker that embeds to split reads for ``document`` (what its index-time cost
    counts); none for a kind that embeds nothing."""
    embedded = _kind(spec).embedded
    if embedded is None:
        return []
    text = document.text
    return embedded(SplitJob(text, spec, analysis, Sizer.of(text, length, analysis.memo), Address.of(document)))
