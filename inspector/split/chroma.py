"""Chroma's token chunkers (``chunking_evaluation.chunking``), cut as spans.

Chroma's evaluation splits with two chunkers adapted from LangChain and then searches each
chunk's text back in its corpus. Here the same cuts are made on offsets, so every chunk is
placed where it was cut:

- ``recursive_spans`` is ``RecursiveTokenChunker``: the first separator found in a text (of
  ``\\n\\n``, ``\\n``, ``.``, ``?``, ``!``, space, then every character) cuts it, each separator
  kept at the head of the piece after it; pieces under the size are merged by LangChain's rule
  (a chunk's size is the sum of its pieces' sizes, each counted alone), each chunk stripped of
  the whitespace at its ends; a piece at or over the size is cut again by the separators after
  the one that cut it.
- ``window_spans`` is ``FixedTokenChunker``: windows of the size over the whole text's tokens,
  each starting ``size - overlap`` tokens after the one before. Where a window ends inside a
  character (an emoji is several tokens), the character goes whole to the window after: Chroma
  decodes such a window with a replacement character that is in no document.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..model import Span

#: ``RecursiveTokenChunker``'s separators, tried in order ("" cuts between characters).
CHROMA_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ".", "?", "!", " ", "")


def recursive_spans(text: str, size: int, overlap: int, count: Callable[[str], int],
                    separators: Sequence[str] = CHROMA_SEPARATORS) -> list[Span]:
    """``RecursiveTokenChunker(chunk_size=size, chunk_overlap=overlap, length_function=count)``'s
    chunks of ``text`` as spans, in its order."""
    out: list[Span] = []
    if text:
        _split(_Cut(text, size, overlap, count), 0, len(text), tuple(separators), out)
    return out


class _Cut:
    """One text being cut, with the size of each piece counted once."""

    def __init__(self, text: str, size: int, overlap: int, count: Callable[[str], int]) -> None:
        self.text, self.size, self.overlap, self._count = text, size, overlap, count
        self._sizes: dict[Span, int] = {}

    def size_of(self, piece: Span) -> int:
        found = self._sizes.get(piece)
        if found is None:
            found = self._sizes[piece] = self._count(self.text[piece[0]:piece[1]])
        return found


def _split(cut: _Cut, start: int, end: int, separators: tuple[str, ...], out: list[Span]) -> None:
    text = cut.text
    separator, rest = separators[-1], ()
    for k, candidate in enumerate(separators):
        if candidate == "":
            separator = ""
            break
        if text.find(candidate, start, end) >= 0:
            separator, rest = candidate, separators[k + 1:]
            break
    fitting: list[Span] = []
    for piece in _pieces(text, start, end, separator):
        if cut.size_of(piece) < cut.size:
            fitting.append(piece)
            continue
        if fitting:
            out += _merged(cut, fitting)
            fitting = []
        if rest:
            _split(cut, piece[0], piece[1], rest, out)
        else:
            out.append(piece)  # one character over the size: kept as it is, unstripped
    if fitting:
        out += _merged(cut, fitting)


def _pieces(text: str, start: int, end: int, separator: str) -> list[Span]:
    """``[start, end)`` cut before each occurrence of ``separator`` (found left to right, not
    overlapping), or between characters for ""; empty pieces dropped."""
    if not separator:
        return [(k, k + 1) for k in range(start, end)]
    cuts = [start]
    found = text.find(separator, start, end)
    while found >= 0:
        cuts.append(found)
        found = text.find(separator, found + len(separator), end)
    cuts.append(end)
    return [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]


def _merged(cut: _Cut, pieces: list[Span]) -> list[Span]:
    """LangChain's ``_merge_splits`` over consecutive pieces joined by nothing (the separators
    are kept in them): each chunk the pieces since the last, stripped, the next starting with
    the last pieces that fit in the overlap."""
    size, overlap = cut.size, cut.overlap
    chunks: list[Span] = []
    current: list[Span] = []
    total = 0
    for piece in pieces:
        length = cut.size_of(piece)
        if total + length > size and current:
            chunk = _stripped(cut.text, current[0][0], current[-1][1])
            if chunk is not None:
                chunks.append(chunk)
            while total > overlap or (total + length > size and total > 0):
                total -= cut.size_of(current.pop(0))
        current.append(piece)
        total += length
    if current:
        chunk = _stripped(cut.text, current[0][0], current[-1][1])
        if chunk is not None:
            chunks.append(chunk)
    return chunks


def _stripped(text: str, start: int, end: int) -> Span | None:
    """``text[start:end].strip()`` as a span, or None when nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def window_spans(token_starts: Sequence[int], length: int, size: int, overlap: int) -> list[Span]:
    """``FixedTokenChunker(chunk_size=size, chunk_overlap=overlap)``'s windows of a text of
    ``length`` characters whose tokens start at ``token_starts`` (one offset per token)."""
    count = len(token_starts)
    step = max(1, size - overlap)
    out: list[Span] = []
    first = 0
    while first < count:
        last = min(first + size, count)
        start = token_starts[first]
        end = token_starts[last] if last < count else length
        if start < end:
            out.append((start, end))
        if last == count:
            break
        first += step
    return out
