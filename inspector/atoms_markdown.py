"""The markdown-aware atom detector: structure from markdown-it-py tokens.

``analyze_markdown`` parses a document once with markdown-it-py (CommonMark plus GFM
tables), turns every block token's line ``map`` into character offsets through a table
of line starts, and reads code blocks, tables, rows, headings and paragraph units
straight from the token stream. Prose (the inline content of paragraph tokens, in
lists and blockquotes too) is split into sentences by a few precompiled regexes that
run on each paragraph's content only, after inline code spans, backslash escapes,
links, autolinks and raw HTML tags have been masked, so a ``.`` inside a code span or a
link title never ends a sentence and a digit inside a URL never makes a figure sentence.

Where the seed detector (``atoms_seed``) guesses from line patterns, this one follows
CommonMark: a fence closes only on a run of its own character at least as long as the
opening one, a pipe table inside a fence is code, a shortcut reference ``[x]`` is a link
only when ``[x]: ...`` is defined, and link syntax inside inline code is not a link.

Conventions (all spans are ``(start, end)`` offsets into ``text``, end exclusive):

* ``code`` and ``fences``: whole lines of a fenced or indented code block, the final
  newline included; an unclosed fence runs to the end of its container or document.
* ``table``: header line to last body row, final newline included; ``row``: each body
  row line without its newline. Lines inside a blockquote keep their ``>`` markers.
* ``sentences``: prose sentences only, trimmed; ``num`` / ``cite`` are some of them
  (see ``analyze_markdown``).
* ``paragraphs``: top-level blocks (list items one by one) as whole lines without the
  final newline; runs of non-blank lines that no token covers (link reference
  definitions) are units too, so every non-blank line belongs to exactly one unit.
* ``headings``: top-level ATX and setext headings (not those quoted in blockquotes or
  nested in list items), ``end`` after the newline of the heading's last line, ``title``
  the heading's inline source with whitespace collapsed (emphasis markers and
  backticks kept: ``## The `hbl` CLI`` gives ``The `hbl` CLI``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate, compress
from operator import attrgetter

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference

from .analysis import Analysis, Heading, Table
from .model import ATOM_KINDS, Span

try:  # the exact whitespace set markdown-it trims paragraph content with
    from markdown_it.common.utils import MD_TRIM_CHARS as _TRIM
except ImportError:  # pragma: no cover - older markdown-it-py
    _TRIM = " \t\n\r\f\v"

__all__ = ["analyze_markdown", "MIN_FIGURE_WORDS", "ABBREVIATIONS"]

#: One parser for the whole process: building a ``MarkdownIt`` costs more than parsing a page.
_MD = MarkdownIt("commonmark", {"html": True}).enable("table")

#: A figure sentence has at least this many whitespace-separated words.
MIN_FIGURE_WORDS = 10

#: Lower-cased words after which a ``.`` does not end a sentence. Technical prose ends many
#: sentences with "4 ms." or "No." and "30 sec.", so those are left out on purpose.
ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "e.g.", "i.e.", "etc.", "vs.", "cf.", "al.", "approx.", "ca.", "resp.",
        "dr.", "mr.", "mrs.", "prof.", "st.", "jr.", "sr.",
        "fig.", "figs.", "eq.", "vol.", "pp.",
    }
)

# Masking: a masked character is replaced by this one. It is not whitespace, not a
# digit, not punctuation and not a bracket, so nothing the regexes below look for
# matches on it.
_M = "\x01"

# --- inline structure -----------------------------------------------------------

# A backslash escape (CommonMark: any ASCII punctuation) or a run of backticks.
_ESC_OR_TICKS = re.compile(r"\\[!-/:-@\[-`{-~]|`+")
_TICKS = re.compile(r"`+")

# Autolinks (URI and e-mail) and raw inline HTML (tags and comments); one pass.
_ANGLE = re.compile(
    r"(?P<auto><[A-Za-z][A-Za-z0-9+.\-]{1,31}:[^\s<>]*>"
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*>)"
    r"|(?P<html><!--.*?-->|</?[A-Za-z][A-Za-z0-9\-]*(?:\s[^<>]*)?/?>)",
    re.S,
)
_HTML_ANCHOR = re.compile(r"<a\s[^<>]*\bhref\s*=", re.I)

# Link text: brackets balanced two levels deep (enough for ``[![img](src)](href)``).
_TEXT = r"\[(?:[^\[\]]|\[(?:[^\[\]]|\[[^\[\]]*\])*\])*\]"
# Inline destination (``<...>`` or balanced parentheses, no spaces) and optional title.
_DEST = (
    r"\([ \t\n]*(?:<[^<>\n]*>|(?:[^\s()]|\((?:[^\s()]|\([^\s()]*\))*\))*)"
    r"(?:[ \t\n]+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?[ \t\n]*\)"
)
# Both start with a literal "[" so the regex engine can skip ahead fast; a "!" just
# before it (checked by hand) makes an image.
_INLINE_LINK = re.compile(_TEXT + r"(" + _DEST + r")")
_REF_LINK = re.compile(r"(" + _TEXT + r")(\[[^\[\]]*\])?")

# Bare URLs (what GFM's autolink extension links); trailing punctuation is trimmed below.
_BARE_URL = re.compile(r"(?<![\w@/.\-])(?:https?://[^\s<>\x01]+|www\.[A-Za-z0-9\-]+\.[^\s<>\x01]*)", re.I)
_URL_TRAIL = "?!.,:;*_~'\""

# --- sentences --------------------------------------------------------------------

# A "." ends no sentence after an abbreviation or after initials (``U.S.``, ``e.g.``):
# one fixed-width negative lookbehind each, tried only where ``[.!?]`` matched, so the
# check runs inside the regex engine.
_NOT_ABBREV = "".join(
    r"(?<!\b(?i:%s)\.)" % re.escape(a[:-1]) for a in sorted(ABBREVIATIONS)
) + r"(?<!\b[A-Za-z]\.[A-Za-z]\.)"
# End punctuation, optional closing quotes/brackets/emphasis, then the whitespace gap,
# then (lookahead) an ASCII sentence starter or any non-ASCII character, which
# ``_split_sentences`` checks with ``str.isupper``/``isdigit``.
_BOUNDARY = re.compile(
    r"[.!?](?=[\"'\u201d\u2019)\]*_]*\s)" + _NOT_ABBREV
    + r"[\"'\u201d\u2019)\]*_]*(\s+)(?=[A-Z0-9\"'(\[`*_]|[^\x00-\x7f])"
)
_STARTERS = frozenset("\"'\u201c\u2018([`*_")
_DIGIT = re.compile(r"\d")
_DIGIT_ASCII = re.compile(r"[0-9]")  # twice as fast; used when the text is ASCII
# At least MIN_FIGURE_WORDS whitespace-separated words from the match position.
_WORDS = re.compile(r"(?:\S+\s+){%d}\S" % (MIN_FIGURE_WORDS - 1))


def _mask(s: str, ranges: list[tuple[int, int]]) -> str:
    """``s`` with every ``(a, b)`` range replaced by mask characters (same length)."""
    parts: list[str] = []
    pos = 0
    for a, b in sorted(ranges):
        if a < pos:
            a = pos
        if b <= a:
            continue
        parts.append(s[pos:a])
        parts.append(_M * (b - a))
        pos = b
    parts.append(s[pos:])
    return "".join(parts)


def _mask_code_and_escapes(c: str) -> str:
    """Mask backslash escapes and the inside of inline code spans (delimiters kept).

    Left to right, as CommonMark reads them: a backtick run opens a code span closed by
    the nearest run of exactly the same length (or is literal text when there is none);
    a backslash before ASCII punctuation escapes it (outside code spans only).
    """
    if "\\" not in c and "``" not in c:
        # Fast path, single backticks only: they pair up left to right, so the
        # inside of every code span is an odd-numbered piece between backticks (a
        # last, unpaired backtick is literal text).
        parts = c.split("`")
        inside = 2 * ((len(parts) - 1) // 2)  # pieces 1, 3, ... below this
        if inside == 0:
            return c
        parts[1:inside:2] = [_M * len(p) for p in parts[1:inside:2]]
        return "`".join(parts)
    ranges: list[tuple[int, int]] = []
    pos = 0
    search = _ESC_OR_TICKS.search
    while True:
        m = search(c, pos)
        if m is None:
            break
        a, b = m.span()
        if c[a] == "\\":
            ranges.append((a, b))
            pos = b
            continue
        # the closer: the next backtick run of exactly the same length
        n = b - a
        close = _TICKS.search(c, b)
        while close is not None and close.end() - close.start() != n:
            close = _TICKS.search(c, close.end())
        if close is None:
            pos = b  # no closer: the run is literal text
            continue
        ranges.append((b, close.start()))
        pos = close.end()
    return _mask(c, ranges) if ranges else c


def _inline_links(
    c: str, refs: dict, md_links: bool
) -> tuple[str, list[int], list[tuple[int, int]]]:
    """Find links in paragraph content ``c``.

    Returns the boundary string (code spans, escapes and link/tag interiors masked),
    the sorted start positions of citing links, and the ranges hidden from the
    "visible text" (link destinations, reference labels, URLs, HTML tags).
    ``md_links`` says whether markdown-it produced any ``link_open`` for this paragraph;
    when it did not, bracket and angle syntax found here is not counted as a link.
    """
    sm = _mask_code_and_escapes(c) if ("`" in c or "\\" in c) else c
    cites: list[int] = []
    hidden: list[tuple[int, int]] = []
    interiors: list[tuple[int, int]] = []  # masked in the boundary string
    whole: list[tuple[int, int]] = []  # masked before looking for references and bare URLs

    if "<" in sm:
        for m in _ANGLE.finditer(sm):
            a, b = m.span()
            hidden.append((a, b))
            interiors.append((a + 1, b - 1))
            whole.append((a, b))
            if m.group("auto") is not None:
                if md_links:
                    cites.append(a)
            elif _HTML_ANCHOR.match(sm, a):
                cites.append(a)
        if whole:
            sm_links = _mask(sm, whole)
        else:
            sm_links = sm
    else:
        sm_links = sm

    if "](" in sm_links:
        found = False
        for m in _INLINE_LINK.finditer(sm_links):
            found = True
            a, b = m.span()
            image = a > 0 and sm_links[a - 1] == "!"
            if md_links and not image:
                cites.append(a)
            hidden.append(m.span(1))
            interiors.append((a + 1, b - 1))
            whole.append((a - image, b))
            if not image and "![" in sm_links[a:b]:  # an image as the link text
                text = sm_links[a + 1 : m.start(1) - 1]
                for im in _INLINE_LINK.finditer(text):
                    if im.start() > 0 and text[im.start() - 1] == "!":
                        hidden.append((a + 1 + im.start(1), a + 1 + im.end(1)))
        sm_rest = _mask(sm, whole) if found else sm_links
    else:
        sm_rest = sm_links

    if refs and md_links and "[" in sm_rest:
        # CommonMark: [text][label] is a link only when label is defined, and then
        # [text] is no shortcut either; [text][] and [text] need text defined. A
        # bracket that is not a link may still contain one, so the search resumes
        # just inside it.
        pos = 0
        search = _REF_LINK.search
        while True:
            m = search(sm_rest, pos)
            if m is None:
                break
            ta, b = m.span()
            tb = m.end(1)
            if m.group(2) is not None and b - tb > 2:  # full reference
                if normalizeReference(c[tb + 1 : b - 1]) not in refs:
                    pos = ta + 1
                    continue
                hidden.append((tb, b))
            elif tb - ta <= 2 or normalizeReference(c[ta + 1 : tb - 1]) not in refs:
                pos = ta + 1
                continue
            elif m.group(2) is None and sm_rest.startswith("(", b) and not sm_rest[b + 1 :].strip():
                pos = ta + 1  # markdown-it: "[x](" then only spaces is no link
                continue
            # "![x](" that is no inline image is no reference image either for
            # markdown-it, but its "[x]" is then read as a reference link
            image = ta > 0 and sm_rest[ta - 1] == "!" and not sm_rest.startswith("(", b)
            if not image:
                cites.append(ta)
            interiors.append((ta + 1, b - 1))
            pos = b

    if "://" in sm_rest or "www." in sm_rest or "WWW." in sm_rest:
        for m in _BARE_URL.finditer(sm_rest):
            a, b = m.span()
            url = m.group()
            stripped = url.rstrip(_URL_TRAIL)
            while stripped.endswith(")") and stripped.count(")") > stripped.count("("):
                stripped = stripped[:-1].rstrip(_URL_TRAIL)
            if len(stripped) <= 4 or stripped.lower() in ("http://", "https://"):
                continue
            b = a + len(stripped)
            cites.append(a)
            hidden.append((a, b))

    bm = _mask(sm, interiors) if interiors else sm
    if len(cites) > 1:
        cites.sort()
    return bm, cites, hidden


def _split_sentences(c: str, bm: str) -> list[int]:
    """Sentence bounds of stripped paragraph content ``c``, flat ``[a0, b0, a1, b1, ...]``.

    Boundaries are looked for in ``bm``, the content with inline code, escapes, links
    and tags masked, so none falls inside them.
    """
    out: list[int] = [0]
    append = out.append
    for m in _BOUNDARY.finditer(bm):
        we = m.end()
        nxt = bm[we]
        if nxt > "\x7f" and not (nxt.isupper() or nxt.isdigit() or nxt in _STARTERS):
            continue
        append(m.start(1))
        append(we)
    append(len(c))
    return out


#: Block tokens the walk looks at; every other token is skipped after one set lookup.
_WANTED = frozenset(
    {
        "paragraph_open", "tr_open", "list_item_open", "fence", "code_block",
        "heading_open", "table_open", "table_close", "tbody_open", "tbody_close",
        "html_block", "hr", "blockquote_open",
    }
)
_TRIM_SET = frozenset(_TRIM)
_BLANK_START = frozenset(" \t\n\v\f\r\x1c\x1d\x1e\x1f\x85") | _TRIM_SET
_TYPE = attrgetter("type")


def analyze_markdown(text: str) -> Analysis:
    """Detect the atoms, paragraphs, sentences, tables and headings of ``text``.

    Prose is the inline content of paragraph tokens (also inside list items and
    blockquotes); headings, code, tables, HTML blocks and link reference definitions are
    never prose. A prose paragraph is split into sentences after ``.``, ``!`` or ``?``
    (optionally followed by closing quotes, brackets, ``*`` or ``_``) and whitespace when
    the next character starts a sentence (an uppercase letter, a digit, a quote, ``(``,
    ``[``, a backtick, ``*`` or ``_``), except after common abbreviations and initials
    (``e.g.``, ``Dr.``, ``U.S.``) and never inside inline code, a link or an HTML tag.

    A ``num`` atom is a sentence of at least ``MIN_FIGURE_WORDS`` words with a digit in
    its visible text (digits of link destinations, reference labels, URLs and HTML tags
    do not count; inline code does). A ``cite`` atom is a sentence with a link: inline,
    full/collapsed/shortcut reference whose label is defined, autolink, bare ``http(s)://``
    or ``www.`` URL, or an HTML ``<a href>``. Images are not links.
    """
    n_text = len(text)
    # markdown-it normalises CR and CRLF to LF, which would shift offsets; the text is
    # supposed to be normalised already, so a stray CR is parsed as a space instead.
    src = text.replace("\r", " ") if "\r" in text else text
    env: dict = {}
    tokens = _MD.parse(src, env)
    refs = env.get("references") or {}

    lines = src.split("\n")
    n_lines = len(lines)
    starts = list(accumulate(map((1).__add__, map(len, lines)), initial=0))
    starts[-1] = n_text  # "the start of the line after the last one" is the end of the text

    code: list[Span] = []
    table_atoms: list[Span] = []
    rows: list[Span] = []
    tables: list[Table] = []
    nums: list[Span] = []
    cites: list[Span] = []
    sentences: list[Span] = []
    headings: list[Heading] = []
    units: list[list[int]] = []  # top-level line ranges [m0, m1)

    table_map: list[int] | None = None
    table_rows: list[Span] = []
    in_tbody = False
    last_line = n_lines - 1

    wanted = compress(range(len(tokens)), map(_WANTED.__contains__, map(_TYPE, tokens)))
    for i in wanted:
        tok = tokens[i]
        ttype = tok.type
        m = tok.map
        if ttype == "paragraph_open":
            if m is None:
                continue
            if tok.level == 0:
                units.append(m)
            inline = tokens[i + 1]
            if inline.content:
                _prose(text, src, inline, starts, n_lines, n_text, refs, sentences, nums, cites)
        elif ttype == "tr_open":
            if in_tbody and m is not None:
                r = m[0]
                rows.append((starts[r], starts[r + 1] - 1 if r < last_line else n_text))
                table_rows.append((starts[r], starts[r + 1]))
        elif ttype == "list_item_open":
            if tok.level == 1 and m is not None:
                units.append(m)
        elif ttype == "tbody_open":
            in_tbody = True
        elif ttype == "tbody_close":
            in_tbody = False
        elif ttype == "table_close":
            if table_map is not None:
                t0, t1 = table_map
                tstart, tend = starts[t0], starts[t1]
                table_atoms.append((tstart, tend))
                header = (tstart, starts[min(t0 + 2, t1)])
                tables.append(Table(tstart, tend, header, tuple(table_rows)))
                table_map = None
        elif m is None:
            continue
        else:
            if tok.level == 0:
                units.append(m)
            if ttype == "fence" or ttype == "code_block":
                code.append((starts[m[0]], starts[m[1]]))
            elif ttype == "table_open":
                table_map = m
                table_rows = []
            elif ttype == "heading_open" and tok.level == 0:
                inline = tokens[i + 1]
                title = " ".join(inline.content.split()) if inline.type == "inline" else ""
                level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
                headings.append(Heading(starts[m[0]], starts[m[1]], level, title))

    code.sort()
    table_atoms.sort()
    rows.sort()
    tables.sort(key=lambda t: t.start)
    atoms: dict[str, tuple[Span, ...]] = {kind: () for kind in ATOM_KINDS}
    atoms["code"] = tuple(code)
    atoms["table"] = tuple(table_atoms)
    atoms["row"] = tuple(rows)
    atoms["num"] = tuple(nums)
    atoms["cite"] = tuple(cites)
    return Analysis(
        mode="markdown",
        atoms=atoms,
        paragraphs=_units(text, units, starts, n_lines),
        sentences=tuple(sentences),
        fences=atoms["code"],
        tables=tuple(tables),
        headings=tuple(headings),
    )


def _units(text: str, units: list[list[int]], starts: list[int], n_lines: int) -> tuple[Span, ...]:
    """Paragraph units as whole-line spans without the final newline.

    Top-level block maps, blank lines trimmed from both ends (a list item's map carries
    the blank lines after it), plus each run of non-blank lines that no block token
    covers (link reference definitions), so every non-blank line lies in one unit.
    """
    out: list[Span] = []
    last = n_lines - 1
    n_text = len(text)
    covered = 0  # the first line no unit covers yet
    for m0, m1 in units:  # in document order: top-level blocks never nest
        if m0 < covered:
            m0 = covered
        if m1 <= m0:
            continue
        if covered < m0:
            gap = text[starts[covered] : starts[m0]]
            if gap and not gap.isspace():
                _gap_units(text, covered, m0, starts, last, out)
        covered = m1
        while m1 > m0:  # trailing blank lines (list items and unclosed fences have them)
            k = m1 - 1
            ls = starts[k]
            if ls < n_text and text[ls] not in _BLANK_START:
                break  # fast path: the line starts with a visible character
            line = text[ls : (starts[k + 1] - 1 if k < last else n_text)]
            if line and not line.isspace():
                break
            m1 = k
        if m0 < m1:
            k = m1 - 1
            out.append((starts[m0], starts[k + 1] - 1 if k < last else n_text))
    if covered < n_lines:
        gap = text[starts[covered] :]
        if gap and not gap.isspace():
            _gap_units(text, covered, n_lines, starts, last, out)
    return tuple(out)


def _gap_units(text: str, l0: int, l1: int, starts: list[int], last: int, out: list[Span]) -> None:
    """Append each run of non-blank lines in lines ``[l0, l1)`` as a unit."""
    n_text = len(text)
    run = -1
    for k in range(l0, l1):
        end = starts[k + 1] - 1 if k < last else n_text
        line = text[starts[k] : end]
        if line and not line.isspace():
            if run < 0:
                run = k
        elif run >= 0:
            out.append((starts[run], starts[k] - 1))
            run = -1
    if run >= 0:
        k = l1 - 1
        out.append((starts[run], starts[k + 1] - 1 if k < last else n_text))


def _line_map(src: str, c: str, m0: int, m1: int, starts: list[int], n_lines: int) -> list[int]:
    """Source line index of each content line when they are not one to one.

    Happens only when markdown-it's trim removed a whole line made of exotic
    whitespace (e.g. U+2003) at the start or end of a paragraph.
    """
    clines = c.split("\n")
    out: list[int] = []
    k = m0
    for cl in clines:
        probe = cl.strip(_TRIM)  # (tab expansion may have added leading spaces)
        while k < m1 - 1:
            end = starts[k + 1] - 1 if k + 1 < n_lines else len(src)
            if src[starts[k] : end].rstrip(_TRIM).endswith(probe):
                break
            k += 1
        out.append(k)
        if k < m1 - 1:
            k += 1
    return out


def _prose(text, src, tok, starts, n_lines, n_text, refs, sentences, nums, cites_out) -> None:
    """Split one paragraph's inline content into sentences; record num and cite atoms.

    Paragraph content is the paragraph's lines, each stripped of its container prefix
    (``> ``, list indentation) and indentation, joined with ``\\n`` and trimmed. So each
    content line is a suffix of its source line (the last one up to its trailing
    whitespace), and a content position maps to the source by its distance from the end
    of its line.
    """
    c = tok.content
    m0, m1 = tok.map
    n = len(c)
    nl = c.count("\n") + 1
    if nl == m1 - m0:
        line_of = None
        last_src = m1 - 1
    else:  # a line of exotic whitespace was trimmed away (rare)
        line_of = _line_map(src, c, m0, m1, starts, n_lines)
        last_src = line_of[-1]
    # the source line of the last content line ends before its trailing whitespace
    le_last = starts[last_src + 1] - 1 if last_src + 1 < n_lines else n_text
    if le_last > starts[last_src] and src[le_last - 1] in _TRIM_SET:
        le_last = starts[last_src] + len(src[starts[last_src] : le_last].rstrip(_TRIM))

    if "[" in c or "<" in c or "`" in c or "\\" in c or "://" in c or "ww." in c or "WW." in c:
        md_links = False
        for ch in tok.children or ():
            if ch.type == "link_open":
                md_links = True
                break
        bm, cite_pos, hidden = _inline_links(c, refs, md_links)
        vis = _mask(c, hidden) if hidden else c
    else:
        bm = vis = c
        cite_pos = None
    digit = _DIGIT_ASCII if vis.isascii() else _DIGIT
    if digit.search(vis) is None:
        digit = None

    bounds = _split_sentences(c, bm)
    nb = len(bounds)
    p0 = le_last - n
    if line_of is None and p0 >= 0 and src.startswith(c, p0) and not (c[0].isspace() or c[-1].isspace()):
        # The content is a verbatim slice of the source (a top-level paragraph, or any
        # one-line paragraph): a content position is a source position shifted by p0.
        spans = [(p0 + bounds[x], p0 + bounds[x + 1]) for x in range(0, nb, 2)]
    else:
        spans = [
            _map_span(c, n, bounds[x], bounds[x + 1], m0, line_of, last_src, le_last, starts, text, n_text)
            for x in range(0, nb, 2)
        ]
    check_num = digit is not None
    x = 0
    for span in spans:
        a = bounds[x]
        b = bounds[x + 1]
        x += 2
        if span is None:
            continue
        sentences.append(span)
        if check_num and digit.search(vis, a, b) is not None and _WORDS.match(c, a, b) is not None:
            nums.append(span)
        if cite_pos:
            y = bisect_left(cite_pos, a)
            if y < len(cite_pos) and cite_pos[y] < b:
                cites_out.append(span)


def _map_span(c, n, a, b, m0, line_of, last_src, le_last, starts, text, n_text):
    """Source span of content span ``[a, b)`` of a paragraph, or ``None`` if empty.

    Each end is placed on its content line's source line, at the same distance from the
    line's end (the last line ends before its trailing whitespace).
    """
    j = c.count("\n", 0, a)
    e = c.find("\n", a)
    if e < 0:
        e = n
    k = m0 + j if line_of is None else line_of[j]
    sa = (le_last if k == last_src else starts[k + 1] - 1) - (e - a)
    if sa < starts[k]:
        sa = starts[k]  # content longer than its source line: a tab was expanded
    j = c.count("\n", 0, b - 1)
    e = c.find("\n", b - 1)
    if e < 0:
        e = n
    k = m0 + j if line_of is None else line_of[j]
    sb = (le_last if k == last_src else starts[k + 1] - 1) - (e - b)
    if sb > n_text:
        sb = n_text
    if sa >= sb:
        return None
    if text[sa].isspace() or text[sb - 1].isspace():  # only after tab expansion
        seg = text[sa:sb]
        sa += len(seg) - len(seg.lstrip())
        sb = sa + len(seg.strip())
        if sb <= sa:
            return None
    return (sa, sb)
