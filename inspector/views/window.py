"""Long documents drawn in windows, so that no overlay grows past what a browser can take.

A window is a ``(start, end)`` stretch of the text holding at most ``max_chars`` characters
and the starts of at most ``max_chunks`` chunks; windows tile the text and begin where a chunk
begins whenever they can. The overlay of one window is about as large as its text plus a
constant per chunk, whatever the document (a 450 kB table cut by 15,000 chunks included).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..model import Span

#: Characters drawn at once on a page.
WINDOW_CHARS = 250_000
#: Chunk starts drawn at once on a page (each chunk adds a label and a band or two).
WINDOW_CHUNKS = 2_000


def windows(length: int, starts: Sequence[int], *, max_chars: int = WINDOW_CHARS,
            max_chunks: int = WINDOW_CHUNKS) -> list[Span]:
    """The windows of a text of ``length`` characters whose chunks start at ``starts``."""
    if max_chars < 1 or max_chunks < 1:
        raise ValueError("a window holds at least one character and one chunk")
    points = sorted(set(s for s in starts if 0 < s < length))
    out: list[Span] = []
    begin = 0
    while begin < length:
        limit = min(length, begin + max_chars)
        first = bisect_right(points, begin)  # chunk starts after the window's beginning
        crowded = first + max_chunks - 1  # where a window holding too many chunk starts must end
        if crowded < len(points) and points[crowded] < limit:
            end = points[crowded]
        elif limit == length:
            end = length
        else:
            # The last chunk start within the limit; a chunk longer than a whole window is cut
            # at the character limit instead.
            last = bisect_right(points, limit) - 1
            end = points[last] if last >= first else limit
        if end <= begin:
            end = limit
        out.append((begin, end))
        begin = end
    return out or [(0, 0)]


def window_of(offset: int, spans: Sequence[Span]) -> int:
    """The index of the window holding ``offset`` (the last one for an offset at the end)."""
    index = bisect_right([a for a, _ in spans], offset) - 1
    return max(0, min(index, len(spans) - 1))


def cut_window(cut, spans: Sequence[Span]) -> int:
    """The index of the window where a cut atom (anything with a ``start``) begins."""
    return window_of(cut.start, spans)
