"""Inline markdown a sentence splitter must not read as prose: code spans, escapes, links, tags.

A ``.`` inside a code span or a link title must never end a sentence, and a digit inside a
URL must never make a figure sentence, yet a sentence holding a link is a ``cite`` atom. So
before prose is split (``prose``), each paragraph's inline source is masked here:
code spans and backslash escapes first, then autolinks and raw HTML tags, inline links,
reference links whose label is defined (markdown-it's ``env["references"]``), then bare
URLs. Masking keeps every offset, so positions found in the masked string are positions in
the paragraph.
"""

from __future__ import annotations

import re

from markdown_it.common.utils import normalizeReference

# Masking: a masked character is replaced by this one. It is not whitespace, not a
# digit, not punctuation and not a bracket, so nothing the link and sentence regexes
# look for matches on it.
_M = "\x01"

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


def mask(s: str, ranges: list[tuple[int, int]]) -> str:
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
    return mask(c, ranges) if ranges else c


def inline_links(
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
            sm_links = mask(sm, whole)
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
        sm_rest = mask(sm, whole) if found else sm_links
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

    bm = mask(sm, interiors) if interiors else sm
    if len(cites) > 1:
        cites.sort()
    return bm, cites, hidden
