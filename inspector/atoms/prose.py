"""Prose sentences of markdown paragraphs, and which of them are figure or citing sentences.

``markdown`` hands each paragraph's inline token here. Its content is split into
sentences on the paragraph's content only, after ``inline`` has masked code spans, escapes,
links and tags, so no boundary falls inside them; each sentence is then mapped back from
content positions to offsets in the document (content lines are suffixes of their source
lines, stripped of ``>`` markers and list indentation). A sentence of ``MIN_FIGURE_WORDS``
words (``language.word_count``) with a digit in its visible text is a ``num`` atom, one with
a link a ``cite`` atom.

English, German, Chinese, Japanese and Korean prose is split by a few precompiled regexes
tuned on technical writing (German adds its abbreviations and ordinals, Chinese and Japanese
end sentences at ``。！？`` with or without a space); every other language by sentencex
(Wikimedia's segmenter: rules and abbreviations for about 300 languages, a compiled core).
Measured before choosing: on the sample corpus's English, sentencex and the regexes disagree
on 11 of 5,183 paragraphs and the regexes are right on 9 ("No.", "3.x.", "approx." and "CL."
end or do not end sentences as written); on the German, Chinese and Japanese pages sentencex
splits "2. Klasse", and merges "MB/s. Bei" and "。4.2" (a full stop before a digit); pysbd
gets those three right (not "ms. Wer" and "Min. später") but runs at 0.1 to 0.3 MB/s; ICU's
break iterator (PyICU) needs the system's ICU headers to install and splits after "Dr." and
"Mio."; Blingfire runs at 2 MB/s, merges "data. E.g. the" and fails on some paragraphs.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from .inline import inline_links, mask
from .language import word_count

try:  # the exact whitespace set markdown-it trims paragraph content with
    from markdown_it.common.utils import MD_TRIM_CHARS as _TRIM
except ImportError:  # pragma: no cover - older markdown-it-py
    _TRIM = " \t\n\r\f\v"
TRIM_SET = frozenset(_TRIM)

#: A figure sentence has at least this many words (``language.word_count``: whitespace-separated
#: words, two Han or kana characters counting as one).
MIN_FIGURE_WORDS = 10
#: Languages split by this module's own rules; every other one by sentencex.
OWN_RULES = frozenset({"en", "de", "zh", "ja", "ko", "und"})

#: Lower-cased words after which a ``.`` does not end a sentence. Technical prose ends many
#: sentences with "4 ms." or "No." and "30 sec.", so those are left out on purpose.
ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "e.g.", "i.e.", "etc.", "vs.", "cf.", "al.", "approx.", "ca.", "resp.",
        "dr.", "mr.", "mrs.", "prof.", "st.", "jr.", "sr.",
        "fig.", "figs.", "eq.", "vol.", "pp.",
    }
)
#: German's, on top of those ("z. B.", "d. h." and "i. d. R." are single letters, below).
GERMAN_ABBREVIATIONS: frozenset[str] = frozenset(
    {
        "abb.", "abs.", "art.", "bd.", "bspw.", "bzw.", "evtl.", "gem.", "ggf.", "inkl.", "jh.",
        "kap.", "mio.", "mrd.", "nr.", "sog.", "std.", "tab.", "tel.", "usw.", "vgl.", "zzgl.",
        "min.",
    }
)

_CLOSING = "\"'\u201d\u2019)\\]*_"
# Chinese and Japanese closing quotes and brackets: 」』）】〉》〕〗〙〛.
_CJK_CLOSING = "\u300d\u300f\uff09\u3011\u3009\u300b\u3015\u3017\u3019\u301b"


def _boundary(abbreviations: frozenset[str], more: str = "") -> re.Pattern:
    """End punctuation, optional closing quotes/brackets/emphasis, then the whitespace gap,
    then (lookahead) an ASCII sentence starter or any non-ASCII character, which
    ``split_sentences`` checks (a capital, a digit, an opening quote, a letter without case).

    A "." ends no sentence after an abbreviation or after initials (``U.S.``, ``e.g.``): one
    fixed-width negative lookbehind each, tried only where ``[.!?]`` matched, so the check
    runs inside the regex engine.
    """
    not_abbreviation = "".join(
        r"(?<!\b(?i:%s)\.)" % re.escape(a[:-1]) for a in sorted(abbreviations)
    ) + r"(?<!\b[A-Za-z]\.[A-Za-z]\.)" + more
    return re.compile(
        rf"[.!?](?=[{_CLOSING}]*\s)" + not_abbreviation
        + rf"[{_CLOSING}]*(\s+)(?=[A-Z0-9\"'(\[`*_]|[^\x00-\x7f])"
    )


_BOUNDARY = _boundary(ABBREVIATIONS)
# German writes ordinals and dates with a full stop ("2. Klasse", "am 20. Januar"): after a
# number of one to three digits that is not part of a version ("4.2."), a "." ends nothing;
# nor after a single letter that begins a word ("z. B.", "d. h.", "S. 12"; not "MB/s.").
_BOUNDARY_DE = _boundary(
    ABBREVIATIONS | GERMAN_ABBREVIATIONS,
    r"(?<!(?<![\w.])\d\.)(?<!(?<![\w.])\d\d\.)(?<!(?<![\w.])\d\d\d\.)(?<!(?<![^\s(])[^\W\d_]\.)",
)
_RULES = {"de": _BOUNDARY_DE}
# Chinese and Japanese full stops (and their half- and full-width relatives) end a sentence
# with or without a space after them, closing quotes and brackets included.
_FULL_STOPS = "\u3002\uff01\uff1f\uff61\u203c\u2047\u2048\u2049"
_FULL_STOP = re.compile(f"[{_FULL_STOPS}]+[{_CJK_CLOSING}{_CLOSING}]*(\\s*)")
_STARTERS = frozenset("\"'\u201c\u2018([`*_")
_DIGIT = re.compile(r"\d")
_DIGIT_ASCII = re.compile(r"[0-9]")  # twice as fast; used when the text is ASCII
# At least MIN_FIGURE_WORDS whitespace-separated words from the match position.
_WORDS = re.compile(r"(?:\S+\s+){%d}\S" % (MIN_FIGURE_WORDS - 1))


def split_sentences(c: str, bm: str, language: str = "en") -> list[int]:
    """Sentence bounds of stripped paragraph content ``c``, flat ``[a0, b0, a1, b1, ...]``.

    Boundaries are looked for in ``bm``, the content with inline code, escapes, links
    and tags masked, so none falls inside them.
    """
    if language not in OWN_RULES:
        return _segmented(c, bm, language)
    out: list[int] = [0]
    append = out.append
    for m in _RULES.get(language, _BOUNDARY).finditer(bm):
        we = m.end()
        nxt = bm[we]
        # Past ASCII, a sentence starts with a capital, a digit, an opening quote or a letter
        # of a script without case (Han, Arabic, Devanagari, ...).
        if nxt > "\x7f" and not (nxt.isdigit() or nxt in _STARTERS or (nxt.isalpha() and not nxt.islower())):
            continue
        append(m.start(1))
        append(we)
    append(len(c))
    if not bm.isascii() and any(stop in bm for stop in _FULL_STOPS):
        return _with_full_stops(bm, out)
    return out


def _with_full_stops(bm: str, bounds: list[int]) -> list[int]:
    """``bounds`` with a boundary after every Chinese or Japanese full stop that is not one."""
    gaps = [(bounds[x], bounds[x + 1]) for x in range(1, len(bounds) - 1, 2)]
    gaps += [(m.start(1), m.end()) for m in _FULL_STOP.finditer(bm) if m.end() < len(bm)]
    out = [0]
    for end, start in sorted(set(gaps)):
        if end > out[-1] and start < len(bm):  # a gap inside another one is none
            out += (end, start)
    out.append(len(bm))
    return out


# Closing quotes, brackets and emphasis markers: sentencex leaves them to the next sentence
# ("**Done.** Next" gives "**Done." and "** Next"); they belong to the one they close.
_CLOSERS = re.compile(f"[{_CLOSING}{_CJK_CLOSING}]+(?=\\s|$)")
_SPACE = re.compile(r"\s+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _segmented(c: str, bm: str, language: str) -> list[int]:
    """``split_sentences`` by sentencex, each sentence trimmed of the whitespace around it."""
    from sentencex import get_sentence_boundaries

    # sentencex takes UTF-8, which has no lone surrogates: each becomes one "?" (offsets stay).
    plain = _SURROGATE.sub("?", bm) if _SURROGATE.search(bm) else bm
    cuts = [0]
    for sentence in get_sentence_boundaries(language, plain)[:-1]:
        cut = sentence["end_index"]
        gap = _SPACE.match(bm, cut)
        closers = _CLOSERS.match(bm, gap.end() if gap else cut)
        if closers is not None:
            cut = closers.end()
        if cut > cuts[-1]:
            cuts.append(cut)
    cuts.append(len(c))
    out: list[int] = []
    for a, b in zip(cuts, cuts[1:]):
        part = c[a:b]
        lead = len(part) - len(part.lstrip())
        rest = len(part.rstrip())
        if rest > lead:
            out += (a + lead, a + rest)
    out = out or [0, len(c)]
    if any(stop in bm for stop in _FULL_STOPS):
        return _with_full_stops(bm, out)
    return out


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


def prose_sentences(text, src, tok, starts, n_lines, n_text, refs, sentences, nums, cites_out,
                    language: str = "en") -> None:
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
    if le_last > starts[last_src] and src[le_last - 1] in TRIM_SET:
        le_last = starts[last_src] + len(src[starts[last_src] : le_last].rstrip(_TRIM))

    if "[" in c or "<" in c or "`" in c or "\\" in c or "://" in c or "ww." in c or "WW." in c:
        md_links = False
        for ch in tok.children or ():
            if ch.type == "link_open":
                md_links = True
                break
        bm, cite_pos, hidden = inline_links(c, refs, md_links)
        vis = mask(c, hidden) if hidden else c
    else:
        bm = vis = c
        cite_pos = None
    ascii_text = vis.isascii()
    digit = _DIGIT_ASCII if ascii_text else _DIGIT
    if digit.search(vis) is None:
        digit = None

    bounds = split_sentences(c, bm, language)
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
        if check_num and digit.search(vis, a, b) is not None and (
                _WORDS.match(c, a, b) is not None if ascii_text else word_count(c, a, b) >= MIN_FIGURE_WORDS):
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
