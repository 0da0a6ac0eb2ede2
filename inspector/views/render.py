"""Escaped HTML for the chunk overlay, the cut-atom list, side-by-side lanes and chunk cards.

Documents are untrusted: every character of document text (and every caller-given label)
passes through ``html.escape`` before it reaches a string of HTML; the only markup is the
fixed set of tags and attributes written here. The app shows these fragments through
``st.html``, which sanitises them a second time.

Elements marked ``data-label`` carry text that is not document text (chunk labels, legends,
notices, headings): strip them and the remaining text of an overlay is the document exactly.
Output is deterministic: ids derive from the lane name and the cut's position, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from ..atoms.analysis import Analysis
from ..measure.survival import CutAtom, cut_atoms
from ..model import ATOM_LABELS, Chunk, Document, Span
from .text import chunk_numbers, page_label

__all__ = ["CSS", "chunk_card_html", "cut_list", "cut_list_html", "lanes_html", "overlay_cuts",
           "overlay_html", "style_html"]

#: Every rule is scoped under one of the wrappers, so the page's other elements are untouched
#: (``st.html`` applies a ``<style>`` to the whole page).
CSS = """\
.ci-overlay,.ci-lanes,.ci-cuts,.ci-card{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;\
color:#1f2933;font-size:14px;line-height:1.5}
.ci-overlay .ci-legend{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;font-size:12px;\
color:#4a5565;margin:0 0 6px}
.ci-overlay .ci-legend b{color:#1f2933;font-weight:600}
.ci-overlay .ci-swatch{display:inline-block;width:14px;height:10px;border-radius:2px;margin-right:4px;\
vertical-align:-1px;border:1px solid rgba(0,0,0,.12)}
.ci-overlay .ci-text,.ci-card .ci-card-body{white-space:pre-wrap;overflow-wrap:anywhere;tab-size:4;margin:0;\
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:13px;\
line-height:1.7;background:#fff;color:#1f2933}
.ci-overlay .ci-text{padding:10px 14px;border:1px solid #d5dbe3;border-radius:6px;max-height:75vh;overflow:auto}
.ci-text .ci-c0,.ci-text .ci-c1,.ci-text .ci-overlap,.ci-text .ci-gap{padding:3px 0}
.ci-overlay .ci-c0{background:#dbe6fa}
.ci-overlay .ci-c1{background:#dcf0e0}
.ci-overlay .ci-overlap{background:repeating-linear-gradient(135deg,#e2d5fa 0 4px,#c4abf0 4px 8px)}
.ci-overlay .ci-gap{color:#7b8594;background:repeating-linear-gradient(45deg,#fff 0 3px,#e3e7ec 3px 6px)}
.ci-text .ci-gap::before{content:"";display:inline-block;width:9px;height:1.05em;vertical-align:-2px;\
border:1px dashed #9aa4b1;border-radius:2px;background:inherit}
.ci-overlay .ci-cut{background:#ffd4cf;color:#8f1111;\
text-decoration:underline wavy #d93025 1px;text-decoration-skip-ink:none;text-underline-offset:3px}
.ci-overlay .ci-cut .ci-cut{background:#ffb9b1}
.ci-overlay .ci-label{display:inline-block;margin:0 4px 0 1px;padding:0 5px;border-radius:3px;\
background:#334155;color:#fff;font:600 10.5px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;\
vertical-align:1px;white-space:nowrap;user-select:none;text-decoration:none;unicode-bidi:isolate}
.ci-overlay .ci-label.ci-aside{float:right;clear:right;margin:3px 0 0 8px;vertical-align:0}
.ci-overlay .ci-bound{display:inline-block;width:0;height:1.3em;margin-right:-2px;border-left:2px solid #334155;\
vertical-align:-4px;position:relative;z-index:1}
.ci-shown{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2933;font-size:14px}
.ci-shown .ci-summary{margin:0 0 8px;font-size:15px;font-weight:600}
.ci-shown .ci-problems{margin:0 0 10px;padding:6px 10px 6px 28px;border-radius:4px;background:#fff4d6;\
color:#6b5200;font-size:13px}
.ci-overlay .ci-notice{margin:6px 0 0;padding:6px 10px;border-radius:4px;background:#fff4d6;color:#6b5200;\
font-size:12px}
.ci-lanes{display:grid;gap:14px;align-items:start}
.ci-lanes .ci-lane{min-width:0}
.ci-lanes .ci-lane-title{margin:0 0 4px;font-size:14px;font-weight:600}
.ci-cuts{margin:0;padding-left:2.2em;font-size:13px}
.ci-cutlist{max-height:45vh;overflow:auto}
.ci-cuts li{margin:2px 0}
.ci-cuts a{color:#b3261e;font-weight:600;text-decoration:none}
.ci-cuts a:hover{text-decoration:underline}
.ci-cuts .ci-where{color:#5b6573;margin:0 6px}
.ci-cuts .ci-excerpt{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;\
font-size:12px;color:#3d4754}
.ci-card{border:1px solid #d5dbe3;border-radius:6px;overflow:hidden;background:#fff;margin:0 0 10px}
.ci-card .ci-card-title{padding:5px 10px;background:#f3f5f8;border-bottom:1px solid #d5dbe3;font-weight:600;\
font-size:13px}
.ci-card .ci-card-body{padding:8px 10px}
.ci-card .ci-prefix{background:#fff3c4;color:#5c4600;box-shadow:inset 3px 0 0 #e0b400;padding:1px 0 1px 5px;\
-webkit-box-decoration-break:clone;box-decoration-break:clone}
.ci-card .ci-card-hints{padding:5px 10px;border-top:1px solid #e4e8ee;font-size:12px;color:#4a5565;\
background:#fafbfc}
.ci-card .ci-empty{color:#8a94a3;font-style:italic}
.ci-strip{display:flex;gap:3px;height:75vh;margin-top:34px}
.ci-strip .ci-strip-lane{position:relative;width:10px;background:#eef2f7;border-radius:3px}
.ci-strip .ci-strip-bound{position:absolute;left:0;right:0;height:1px;background:#8a94a3}
.ci-strip .ci-strip-cut{position:absolute;left:-2px;right:-2px;height:4px;background:#c62828;border-radius:2px}
.ci-card mark.ci-quote{background:#c8f0d2;color:inherit;box-shadow:inset 0 -2px 0 #2e8b57}
.ci-overlay mark.ci-quote{background:transparent;color:#14532d;font-weight:600;box-shadow:inset 0 -3px 0 #2e8b57}
.ci-overlay .ci-hit{background:#cddcf7}
.ci-overlay .ci-hit-b{background:#e2cff5}
.ci-overlay .ci-skip{display:block;margin:6px 0;color:#7b8594;font-style:italic;font-family:system-ui,sans-serif;\
font-size:12px}
"""

_LANE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def style_html() -> str:
    """The one ``<style>`` block every fragment here relies on (emit it once per page)."""
    return f"<style>{CSS}</style>"


def overlay_cuts(analysis: Analysis | None, chunks: Sequence[Chunk]) -> list[CutAtom]:
    """The bisected atoms the overlay paints, in the order its anchors number them."""
    if analysis is None:
        return []
    return cut_atoms(analysis.atoms, [(c.start, c.end) for c in chunks])


def _text_of(document: Document | str) -> str:
    return document if isinstance(document, str) else document.text


def _check_lane(lane: str) -> str:
    # The lane lands in ids and attributes; a fixed alphabet keeps it inert there.
    if not _LANE_NAME.match(lane):
        raise ValueError(f"lane name {lane!r} must be 1-40 letters, digits, '-' or '_'")
    return lane


def _unit_word(unit: str) -> str:
    return "chars" if unit in ("chars", "characters", "") else "tokens"


def _cut_title(cut: CutAtom) -> str:
    what = ATOM_LABELS.get(cut.kind, cut.kind)
    if len(cut.chunks) >= 2:
        return f"{what} split across chunks {chunk_numbers(cut.chunks)}"
    if cut.chunks:
        return f"{what} only partly inside chunk {chunk_numbers(cut.chunks)}"
    return f"{what} outside every chunk"


def _laid_out(analysis: Analysis | None) -> list[Span]:
    """Where columns carry meaning (code blocks, tables: ASCII diagrams, aligned output): a chunk
    label starting inside one goes to the margin instead of pushing its line to the right."""
    if analysis is None:
        return []
    return sorted((a, b) for kind in ("code", "table") for a, b in analysis.atoms.get(kind, ()))


def _overlay_body(text: str, chunks: Sequence[Chunk], cuts: list[CutAtom], sizes: Sequence[int] | None,
                  unit: str, lane: str, window: Span | None, document: Document | None = None,
                  laid_out: Sequence[Span] = ()) -> str:
    """Legend, text block and notice of one overlay, without the style block."""
    spans = [(c.start, c.end) for c in chunks]
    _check_spans(len(text), spans, sizes)
    window = _checked_window(window, len(text))
    pages = [document.page_span(a, b) for a, b in spans] if document is not None and document.pages else None
    labels = _labels(spans, sizes, _unit_word(unit) if sizes is not None else "chars", pages)
    for i, (a, _) in enumerate(spans):
        if any(start < a < end for start, end in laid_out):
            labels[i] = ('<span class="ci-bound" data-label=""></span>'
                         + labels[i].replace('class="ci-label"', 'class="ci-label ci-aside"', 1))
    block, has_gap = _text_block(text, spans, cuts, labels, lane, window)
    return (f'<div class="ci-legend" data-label="">{_legend(spans, cuts, has_gap)}</div>'
            f'<div class="ci-text">{block}</div>{_notice(spans, window, len(text))}')


def _checked_window(window: Span | None, n: int) -> Span:
    if window is None:
        return (0, n)
    start, end = window
    if not 0 <= start <= end:
        raise ValueError(f"window {window} is not a range of offsets")
    return (min(start, n), min(end, n))


def _check_spans(n: int, spans: list[Span], sizes: Sequence[int] | None) -> None:
    for i, (a, b) in enumerate(spans):
        if not 0 <= a <= b <= n:
            raise ValueError(f"chunk #{i + 1} span ({a}, {b}) lies outside the text (length {n})")
    if sizes is not None and len(sizes) != len(spans):
        raise ValueError(f"{len(sizes)} sizes given for {len(spans)} chunks")


def _labels(spans: list[Span], sizes: Sequence[int] | None, word: str, pages=None) -> list[str]:
    """Each chunk's label: its number and size, and its pages when the document has them."""
    where = [""] * len(spans) if pages is None else [f" · {page_label(p)}" for p in pages]
    return [f'<span class="ci-label" data-label="">#{i + 1} · '
            f'{sizes[i] if sizes is not None else b - a} {word}{where[i]}</span>' for i, (a, b) in enumerate(spans)]


def _text_block(text: str, spans: list[Span], cuts: list[CutAtom], labels: list[str], lane: str,
                window: Span) -> tuple[str, bool]:
    """The text of ``window`` as bands, labels and cut atoms; and whether any of it lies in no
    chunk. Chunks and cut atoms reaching in from before the window are open when it starts."""
    first, shown = window
    starts_at: dict[int, list[int]] = {}
    ends_at: dict[int, list[int]] = {}
    for i, (a, b) in enumerate(spans):
        starts_at.setdefault(a, []).append(i)
        ends_at.setdefault(b, []).append(i)
    cut_starts: dict[int, list[int]] = {}
    cut_ends: dict[int, list[int]] = {}
    for k, cut in enumerate(cuts):
        if cut.start < cut.end:
            cut_starts.setdefault(cut.start, []).append(k)
            cut_ends.setdefault(cut.end, []).append(k)
    bounds = sorted({first, shown, *(p for p in (*starts_at, *ends_at, *cut_starts, *cut_ends) if first < p < shown)})
    # Sweep the boundaries left to right. Spans are closed and reopened at every boundary, so
    # overlapping chunks and nested cut atoms never produce crossed tags.
    cut_open = [f'<span class="ci-cut" data-cut="{k}" title="{escape(_cut_title(c), quote=True)}">'
                for k, c in enumerate(cuts)]
    out: list[str] = []
    has_gap = False
    active = {i for i, (a, b) in enumerate(spans) if a < first < b}
    active_cuts = sorted((k for k, c in enumerate(cuts) if c.start < first < c.end),
                         key=lambda k: (cuts[k].start, -cuts[k].end, k))
    for p, q in zip(bounds, bounds[1:] + [None]):
        for i in ends_at.get(p, ()):
            active.discard(i)
        for k in cut_ends.get(p, ()):
            if k in active_cuts:  # a cut ending where the window begins was never opened
                active_cuts.remove(k)
        if q is None and shown < len(text):
            break  # chunks starting at the window's end belong to the part after it
        for i in starts_at.get(p, ()):
            out.append(labels[i])
            if spans[i][1] > p:
                active.add(i)
        new_cuts = cut_starts.get(p, ())
        if new_cuts:
            active_cuts.extend(new_cuts)
            # Outermost first, so a row's red sits inside its table's red and its tooltip wins.
            active_cuts.sort(key=lambda k: (cuts[k].start, -cuts[k].end, k))
        if q is None:
            break
        if not active:
            has_gap = True
            band = '<span class="ci-gap" title="in no chunk">'
        elif len(active) == 1:
            (i,) = active
            band = f'<span class="ci-c{i % 2}" title="chunk #{i + 1}">'
        else:
            band = f'<span class="ci-overlap" title="overlap of chunks {chunk_numbers(active)}">'
        opens = "".join(
            cut_open[k].replace("<span ", f'<span id="ci-{lane}-cut-{k}" ', 1) if cuts[k].start == p
            else cut_open[k] for k in active_cuts)
        out.append(f"{band}{opens}{escape(text[p:q], quote=True)}{'</span>' * (len(active_cuts) + 1)}")
    return "".join(out), has_gap


def _legend(spans: list[Span], cuts: list[CutAtom], has_gap: bool) -> str:
    kinds = [("ci-c0", "chunk"), ("ci-c1", "next chunk")]
    if any(spans[i][1] > spans[i + 1][0] for i in range(len(spans) - 1)):
        kinds.append(("ci-overlap", "overlap"))
    if has_gap:
        kinds.append(("ci-gap", "in no chunk"))
    kinds.append(("ci-cut", "bisected atom"))
    legend = "".join(f'<span><span class="ci-swatch {cls}"></span>{name}</span>' for cls, name in kinds)
    return (f"<b>{len(spans)} chunk{'s' if len(spans) != 1 else ''} · "
            f"{len(cuts)} bisected atom{'s' if len(cuts) != 1 else ''}</b>{legend}")


def _notice(spans: list[Span], window: Span, n: int) -> str:
    first, shown = window
    if first == 0 and shown >= n:
        return ""
    after = sum(1 for a, _ in spans if a >= shown)
    if first == 0:
        return (f'<div class="ci-notice" data-label="">Showing the first {shown:,} of {n:,} characters; '
                f'{after} more chunk{"s" if after != 1 else ""} not shown.</div>')
    before = sum(1 for _, b in spans if b <= first)
    return (f'<div class="ci-notice" data-label="">Showing characters {first + 1:,}–{shown:,} of {n:,}; '
            f'{before:,} chunk{"s" if before != 1 else ""} before and {after:,} after are not shown.</div>')


def overlay_html(document: Document | str, chunks: Sequence[Chunk], analysis: Analysis | None, *,
                 sizes: Sequence[int] | None = None, unit: str = "chars", lane: str = "a",
                 window: Span | None = None, style: bool = True) -> str:
    """The document with chunk bands, overlaps, gaps, chunk labels and bisected atoms in red.

    ``sizes[i]`` (in ``unit``) labels chunk ``i``; without sizes, labels show span lengths in
    characters. Chunk numbers (``#1``...) are positions in ``chunks`` plus one. Each bisected
    atom's first piece has the id ``ci-{lane}-cut-{k}``, ``k`` its position in
    ``overlay_cuts(analysis, chunks)``. ``window`` (``(start, end)``, see ``views.window``)
    renders only that stretch of the text, with a notice saying what is left out. A ``<div>``
    with ``white-space: pre-wrap`` stands in for ``<pre>``, which would swallow a leading
    newline of the text.
    """
    _check_lane(lane)
    cuts = overlay_cuts(analysis, chunks)
    body = _overlay_body(_text_of(document), chunks, cuts, sizes, unit, lane, window,
                         document if isinstance(document, Document) else None, _laid_out(analysis))
    return (f'<div class="ci-overlay" data-lane="{lane}">{style_html() if style else ""}{body}</div>')


def cut_list(document: Document | str, cuts: Sequence[CutAtom], lane: str = "a") -> list[dict]:
    """One plain-text row per bisected atom for a "jump to cut" list (nothing escaped here).

    ``excerpt`` is the atom's first 80 characters with whitespace runs collapsed (``…`` added
    when longer); ``href`` points at the overlay anchor of the same lane; ``chunks`` holds
    human chunk numbers (positions plus one).
    """
    _check_lane(lane)
    text = _text_of(document)
    rows = []
    for k, cut in enumerate(cuts):
        flat = " ".join(text[cut.start:cut.end].split())
        rows.append({
            "kind": cut.kind,
            "label": ATOM_LABELS.get(cut.kind, cut.kind),
            "start": cut.start,
            "end": cut.end,
            "chunks": tuple(i + 1 for i in cut.chunks),
            "excerpt": flat if len(flat) <= 80 else flat[:80].rstrip() + "…",
            "href": f"#ci-{lane}-cut-{k}",
            "title": _cut_title(cut),
        })
    return rows


def cut_list_html(document: Document | str, cuts: Sequence[CutAtom], lane: str = "a", *,
                  limit: int | None = None, only: Sequence[CutAtom] | None = None, style: bool = True) -> str:
    """The cut list as an ordered list of links to the overlay's red marks (escaped); ``only``
    keeps the rows of those cuts (the ones a window draws), numbered as in ``cuts``."""
    rows = cut_list(document, cuts, lane)
    if only is not None:
        wanted = {(c.kind, c.start, c.end) for c in only}
        rows = [row for row in rows if (row["kind"], row["start"], row["end"]) in wanted]
    shown = rows if limit is None else rows[:limit]
    items = []
    for row in shown:
        where = "chunks " + chunk_numbers(c - 1 for c in row["chunks"]) if row["chunks"] else "no chunk"
        items.append(f'<li><a href="{row["href"]}" title="{escape(row["title"], quote=True)}">'
                     f'{escape(row["label"])}</a><span class="ci-where">{where}</span>'
                     f'<span class="ci-excerpt">{escape(row["excerpt"], quote=True)}</span></li>')
    more = ""
    if len(shown) < len(rows):
        more = f'<li data-label="">… and {len(rows) - len(shown)} more</li>'
    empty = '<li data-label="">No bisected atoms.</li>' if not rows else ""
    return (f'<div class="ci-cutlist">{style_html() if style else ""}'
            f'<ol class="ci-cuts">{"".join(items)}{more}{empty}</ol></div>')


def lanes_html(document: Document | str, analysis: Analysis | None,
               lanes: Sequence[tuple[str, Sequence[Chunk], Sequence[int] | None]], unit: str = "chars", *,
               window: Span | None = None, style: bool = True) -> str:
    """Several overlays of one document side by side, one grid column per lane.

    Lanes get the ids ``a``, ``b``, ``c``... in order, so their anchors never collide.
    """
    text = _text_of(document)
    laid_out = _laid_out(analysis)
    columns = []
    for position, (label, chunks, sizes) in enumerate(lanes):
        lane = chr(ord("a") + position) if position < 26 else f"l{position + 1}"
        cuts = overlay_cuts(analysis, chunks)
        body = _overlay_body(text, chunks, cuts, sizes, unit, lane, window,
                             document if isinstance(document, Document) else None, laid_out)
        columns.append(f'<div class="ci-lane"><h4 class="ci-lane-title" data-label="">{escape(label)}</h4>'
                       f'<div class="ci-overlay" data-lane="{lane}">{body}</div></div>')
    grid = f"grid-template-columns:repeat({max(1, len(columns))},minmax(0,1fr))"
    return f'<div class="ci-lanes" style="{grid}">{style_html() if style else ""}{"".join(columns)}</div>'


def chunk_card_html(text: str, prefix: str = "", *, title: str = "", hint_lines: Sequence[str] = (),
                    style: bool = True, marked: tuple[int, int] | None = None) -> str:
    """Exactly what an embedder receives: the prefix (highlighted), then the text, escaped;
    ``marked``: a span of ``text`` drawn as the passage that answers (a quote)."""
    head = f'<div class="ci-card-title" data-label="">{escape(title)}</div>' if title else ""
    pre = ""
    if prefix:
        pre = f'<span class="ci-prefix" title="prefix added by the splitter">{escape(prefix)}</span>'
    body = escape(text)
    if marked is not None and 0 <= marked[0] < marked[1] <= len(text):
        a, b = marked
        body = f'{escape(text[:a])}<mark class="ci-quote">{escape(text[a:b])}</mark>{escape(text[b:])}'
    if not prefix and not text:
        body = '<span class="ci-empty" data-label="">(empty chunk)</span>'
    hints = "".join(f"<div>{escape(line)}</div>" for line in hint_lines)
    foot = f'<div class="ci-card-hints" data-label="">{hints}</div>' if hints else ""
    return (f'<div class="ci-card">{style_html() if style else ""}{head}'
            f'<div class="ci-card-body">{pre}{body}</div>{foot}</div>')


def drawn_lines(text: str, window: Span | None = None, line_chars: int = 100) -> int:
    """About how many lines the drawn stretch of ``text`` takes in a box about ``line_chars``
    characters wide (long lines wrap; a final newline starts no line)."""
    first, last = window if window is not None else (0, len(text))
    return sum(max(1, -(-len(line) // line_chars)) for line in text[first:last].removesuffix("\n").split("\n"))


#: The overlay's text box: 13 px at a line height of 1.7, 10 px of padding and a border each side.
_LINE_PX, _BOX_PX = 13 * 1.7, 22


def strip_html(length: int, lanes: Sequence[tuple[str, Sequence[Span], Sequence[CutAtom]]], *,
               window: Span | None = None, style: bool = True, lines: int | None = None) -> str:
    """A slim strip of the whole drawn stretch beside the text, one column per lane (ids ``a``,
    ``b``... as ``lanes_html`` gives them): a line at each chunk's start and a red mark at each
    bisected atom, a link to its mark in the overlay (``#ci-{lane}-cut-{k}``, numbered as
    ``cuts``). As tall as the text's scrolling box (75% of the window), or, given the text's
    ``lines`` (``drawn_lines``), as the text when it is shorter: a mark sits beside what it marks."""
    first, last = window if window is not None else (0, length)
    size = max(1, last - first)
    columns = []
    for (lane, spans, cuts) in lanes:
        lane = _check_lane(lane)
        marks = [f'<span class="ci-strip-bound" style="top:{100 * (a - first) / size:.3f}%"></span>'
                 for a, _ in spans if first < a < last]
        marks += [f'<a class="ci-strip-cut" href="#ci-{lane}-cut-{k}" '
                  f'style="top:{100 * (c.start - first) / size:.3f}%" title="{escape(_cut_title(c), quote=True)}"></a>'
                  for k, c in enumerate(cuts) if first <= c.start < last]
        columns.append(f'<div class="ci-strip-lane" data-lane="{lane}" title="lane {lane}">{"".join(marks)}</div>')
    height = "" if lines is None else f' style="height:min(75vh,{lines * _LINE_PX + _BOX_PX:.0f}px)"'
    return f'<div class="ci-strip"{height} data-label="">{style_html() if style else ""}{"".join(columns)}</div>'
