"""Other libraries' splitters as splitter choices, when they are installed.

=========================  ==========================  ======================================
name (spec kind)           library                     splitter
=========================  ==========================  ======================================
``ext-langchain``          langchain-text-splitters    ``RecursiveCharacterTextSplitter``
``ext-chonkie-recursive``  chonkie                     ``RecursiveChunker`` (no overlap)
``ext-chonkie-token``      chonkie                     ``TokenChunker``
``ext-semantic-text``      semantic-text-splitter      ``TextSplitter``
``ext-semantic-markdown``  semantic-text-splitter      ``MarkdownSplitter``
=========================  ==========================  ======================================

A spec such as ``ext-langchain:800/100`` or ``ext-semantic-markdown:256t`` names one; sizes
are counted in the spec's unit by our own ``Length`` (so every tool counts the same way).
Spans come from each tool's own offsets (``add_start_index``, ``start_index``/``end_index``,
``chunk_indices``) and are checked against the text exactly as imported chunks are: an offset
that does not hold its chunk's text is reported, then the text is placed by search, never
accepted silently. None of these libraries is imported until an adapter runs.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from ..atoms.analysis import Analysis
from ..chunks.importer import place_records
from ..chunks.records import ChunkRecord
from ..errors import SpecError
from ..extras import install_hint
from ..lengths import CharLength, HFTokenizerLength, Length, TiktokenLength, get_length
from ..model import Document, SplitResult
from ..spec import SplitterSpec


@dataclass(frozen=True, slots=True)
class Adapter:
    """One library splitter offered as a spec kind."""

    name: str
    """The spec kind, ``ext-...``."""

    module: str
    """The module whose presence makes the adapter available."""

    package: str
    """The distribution it needs."""

    extra: str
    """The optional extra that installs it."""

    title: str
    """What it runs, for people."""

    overlap: bool = True
    """Whether the splitter takes an overlap."""


ADAPTERS: dict[str, Adapter] = {a.name: a for a in (
    Adapter("ext-langchain", "langchain_text_splitters", "langchain-text-splitters", "langchain",
            "LangChain RecursiveCharacterTextSplitter"),
    Adapter("ext-chonkie-recursive", "chonkie", "chonkie", "chonkie", "Chonkie RecursiveChunker", overlap=False),
    Adapter("ext-chonkie-token", "chonkie", "chonkie", "chonkie", "Chonkie TokenChunker"),
    Adapter("ext-semantic-text", "semantic_text_splitter", "semantic-text-splitter", "semantic",
            "semantic-text-splitter TextSplitter"),
    Adapter("ext-semantic-markdown", "semantic_text_splitter", "semantic-text-splitter", "semantic",
            "semantic-text-splitter MarkdownSplitter"),
)}


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found without executing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def available_adapters() -> list[str]:
    """Names of the adapters whose library is installed, in ``ADAPTERS`` order."""
    return [name for name, adapter in ADAPTERS.items() if installed(adapter.module)]


def split_with_adapter(name: str, document: Document, budget: int, overlap: int = 0, *,
                       unit: str | Length = "chars", analysis: Analysis | None = None,
                       mode: str = "markdown") -> SplitResult:
    """Split one document with an installed library; spans from its offsets, checked.

    Every chunk whose offsets do not hold its text is placed again by its text (or dropped)
    and named in the result's ``problems``; ``oversized`` lists the chunks whose embedded
    text is over ``budget`` in ``unit``. An ``analysis`` of the document supplies heading
    paths. Raises ``SpecError`` for an unknown or uninstalled adapter or a setting it
    cannot take.
    """
    adapter = ADAPTERS.get(name)
    if adapter is None:
        raise SpecError(f"unknown adapter {name!r}; adapters are {', '.join(ADAPTERS)}")
    if not installed(adapter.module):
        raise SpecError(f"{name} needs the {adapter.package} package ({install_hint(adapter.extra)})")
    if overlap and not adapter.overlap:
        raise SpecError(f"{adapter.title} takes no overlap; use {name}:{budget}")
    length = get_length(unit)
    unit_name = "chars" if isinstance(length, CharLength) else length.name
    spec = SplitterSpec(name, budget, unit_name, overlap)
    pieces = RUNNERS[name](document.text, budget, overlap, length)
    records = [ChunkRecord(i + 1, f"{document.id}#{i}", None, text, start, end)
               for i, (start, end, text) in enumerate(pieces)]
    headings = (lambda _: analysis.heading_index) if analysis is not None else None
    placed = place_records(records, [document], name=name, label=str(spec), headings=headings)
    chunks = placed.chunks.get(document.id, ())
    sizes = length.count_many([c.embedded_text(document) for c in chunks])
    oversized = tuple(i for i, size in enumerate(sizes) if size > budget)
    return SplitResult(document.id, spec, analysis.mode if analysis is not None else mode, chunks, oversized,
                       placed.problems)


# -- the runners: each returns (start, end or None, text) as its library reports them --------

def _langchain(text: str, budget: int, overlap: int, length: Length):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=budget, chunk_overlap=overlap,
                                              length_function=length.count, add_start_index=True)
    return [(d.metadata.get("start_index"), None, d.page_content) for d in splitter.create_documents([text])]


def _chonkie_tokenizer(length: Length, *, counting_only: bool):
    if isinstance(length, CharLength):
        return "character"
    if isinstance(length, TiktokenLength):
        return length.encoding
    if isinstance(length, HFTokenizerLength):
        return length.tokenizer
    if counting_only:
        return length.count
    raise SpecError(f"Chonkie's TokenChunker cannot use the unit {length.name!r}")


def _chonkie_recursive(text: str, budget: int, overlap: int, length: Length):
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer=_chonkie_tokenizer(length, counting_only=True), chunk_size=budget)
    return [(c.start_index, c.end_index, c.text) for c in chunker.chunk(text)]


def _chonkie_token(text: str, budget: int, overlap: int, length: Length):
    from chonkie import TokenChunker

    chunker = TokenChunker(tokenizer=_chonkie_tokenizer(length, counting_only=False), chunk_size=budget,
                           chunk_overlap=overlap)
    return [(c.start_index, c.end_index, c.text) for c in chunker.chunk(text)]


def _semantic(kind: str):
    def run(text: str, budget: int, overlap: int, length: Length):
        import semantic_text_splitter as sts

        cls = sts.MarkdownSplitter if kind == "markdown" else sts.TextSplitter
        if isinstance(length, CharLength):
            splitter = cls(budget, overlap=overlap)
        else:
            splitter = cls.from_callback(length.count, budget, overlap=overlap)
        return [(start, None, chunk) for start, chunk in splitter.chunk_indices(text)]
    return run


#: Each adapter's runner: ``(text, budget, overlap, length)`` -> ``(start, end or None, text)`` per chunk.
RUNNERS = {
    "ext-langchain": _langchain,
    "ext-chonkie-recursive": _chonkie_recursive,
    "ext-chonkie-token": _chonkie_token,
    "ext-semantic-text": _semantic("text"),
    "ext-semantic-markdown": _semantic("markdown"),
}
