"""The markdown-aware atom detector: structure from markdown-it-py tokens.

``analyze_markdown`` parses a document once with markdown-it-py (CommonMark plus GFM
tables), turns every block token's line ``map`` into character offsets through a table
of line starts, and reads code blocks, tables, rows, headings and paragraph units
straight from the token stream. Prose (the inline content of paragraph tokens, in
lists and blockquotes too) is split into sentences by a few precompiled regexes that
run on each paragraph's content only, after inline code spans, backslash escapes,
links, autolinks and raw HTML tags have been masked, so a ``.`` inside a code span or a
link title never ends a sentence and a digit inside a URL never makes a figure sentence.
That prose half lives in ``prose`` (sentences, ``num`` and ``cite``) and
``inline`` (masking and link detection); this module walks the block tokens.

Where the seed detector (``seed``) guesses from line patterns, this one follows
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

from itertools import accumulate, compress
from operator import attrgetter

from markdown_it import MarkdownIt
from markdown_it.rules_block.table import table as gfm_table
from markdown_it.token import Token

from ..forking import collection_paused
from ..model import ATOM_KINDS, Span
from .analysis import Analysis, Heading, Table, visible
from .language import detect_language, prose_sample
from .prose import TRIM_SET, prose_sentences


def _paragraph_inlines(state) -> None:
    """markdown-it's core ``inline`` rule for paragraphs that may hold a link. Only a
    paragraph's inline tokens are read, and only whether one opens a link; a heading's or a
    table cell's text is read from its ``content``, so parsing their inlines would be wasted
    work, most of the parse on a large table. A link opens only at ``[`` or, as an autolink,
    at ``<`` (bare URLs are found by ``inline``): a paragraph with neither is left unparsed."""
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type == "inline":
            if token.children is None:
                token.children = []
            content = token.content
            if i and tokens[i - 1].type == "paragraph_open" and ("[" in content or "<" in content):
                state.md.inline.parse(content, state.md, state.env, token.children)


_CELL_TOKENS = frozenset({"th_open", "th_close", "td_open", "td_close", "inline"})


def _table_rows(state, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's GFM table rule, keeping the table's and its rows' tokens and dropping its
    cells': the rows are what is read, and a large table's cells made most of the parse (a
    3 MB table of 40 columns: a million tokens). Cell tokens open and close within their row,
    so the nesting levels of every other token stay the same."""
    if silent:
        return gfm_table(state, start_line, end_line, silent)
    push = state.push

    def push_rows(ttype: str, tag: str, nesting: int) -> Token:
        # The rule only writes to a cell's token, never reads it back: one scrap token serves.
        return _SCRAP if ttype in _CELL_TOKENS else push(ttype, tag, nesting)

    state.push = push_rows
    try:
        return gfm_table(state, start_line, end_line, silent)
    finally:
        del state.push


_SCRAP = Token("inline", "", 0)

#: The characters a line's text must start with for a block rule to take it (its marker):
#: each rule returns False at once on any other, as on a line with no text. The table rule looks
#: at the next line, the delimiter row.
MARKERS = {"table": "|-:", "fence": "`~", "blockquote": ">", "hr": "*-_", "list": "*-+0123456789",
           "reference": "[", "html_block": "<", "heading": "#"}


def _marked(rule, markers: str, ahead: int):
    def guarded(state, start_line: int, end_line: int, silent: bool) -> bool:
        line = start_line + ahead
        if line >= end_line:
            return False
        at = state.bMarks[line] + state.tShift[line]
        return at < state.eMarks[line] and state.src[at] in markers and rule(state, start_line, end_line, silent)

    return guarded


def _underlined(rule):
    def guarded(state, start_line: int, end_line: int, silent: bool) -> bool:
        src, begins, shifts, ends = state.src, state.bMarks, state.tShift, state.eMarks
        for line in range(start_line + 1, end_line):
            at = begins[line] + shifts[line]
            if at >= ends[line]:  # an empty line: the paragraph ended with no underline
                return False
            if src[at] in "=-":
                return rule(state, start_line, end_line, silent)
        return False

    return guarded


def guard_block_rules(parser: MarkdownIt) -> MarkdownIt:
    """``parser`` with each block rule of ``MARKERS`` tried only on a line (for a table, the line
    below) whose text starts with one of its markers, and the setext heading rule only on a
    paragraph with a line starting with ``=`` or ``-`` before its end: the same tokens.
    markdown-it tries every block rule at every line a block may start or end on, and most
    return False at the first character, after a call and a debug log each (a third of the
    parse on the bench corpus); the setext rule reads a whole paragraph, as the paragraph rule
    then does again, to find none (a tenth)."""
    for rule in list(parser.block.ruler.__rules__):
        if rule.name in MARKERS:
            guarded = _marked(rule.fn, MARKERS[rule.name], rule.name == "table")
        elif rule.name == "lheading":
            guarded = _underlined(rule.fn)
        else:
            continue
        # Replacing a rule resets the rules it may interrupt: they are given again.
        parser.block.ruler.at(rule.name, guarded, {"alt": list(rule.alt)})
    return parser


#: One parser for the whole process: building a ``MarkdownIt`` costs more than parsing a page.
PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")
PARSER.core.ruler.at("inline", _paragraph_inlines)
# Replacing a rule resets the rules it may interrupt: a table still interrupts these.
PARSER.block.ruler.at("table", _table_rows, {"alt": ["paragraph", "reference"]})
guard_block_rules(PARSER)

#: Block tokens the walk looks at; every other token is skipped after one set lookup.
_WANTED = frozenset(
    {
        "paragraph_open", "tr_open", "list_item_open", "fence", "code_block",
        "heading_open", "table_open", "table_close", "tbody_open", "tbody_close",
        "html_block", "hr", "blockquote_open",
    }
)
_BLANK_START = frozenset(" \t\n\v\f\r\x1c\x1d\x1e\x1f\x85") | TRIM_SET
_TYPE = attrgetter("type")


def _no_inlines(state) -> None:
    """The plain parser's ``inline`` rule: no markup is read inside a paragraph (a bare URL is
    still found by ``inline``, as in markdown)."""
    for token in state.tokens:
        if token.type == "inline" and token.children is None:
            token.children = []


#: Plain text has paragraphs (runs of non-blank lines) and nothing else: a ``#`` line, a pipe
#: row, an indented line or a backtick fence is prose like any other line.
PLAIN_PARSER = MarkdownIt("zero")
PLAIN_PARSER.core.ruler.at("inline", _no_inlines)


def analyze_plain(text: str) -> Analysis:
    """``analyze_markdown`` for a text without markup (mode ``plain``): paragraphs split on blank
    lines and their sentences, ``num`` and ``cite`` atoms found as in markdown prose (a bare URL
    is a link; ``[a](b)`` is not), and no code block, table, row or heading."""
    src = text.replace("\r", " ") if "\r" in text else text
    tokens = PLAIN_PARSER.parse(src, {})
    with collection_paused():
        return _read_tokens(text, src, tokens, {}, "plain")


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
    # markdown-it normalises CR and CRLF to LF, which would shift offsets; the text is
    # supposed to be normalised already, so a stray CR is parsed as a space instead.
    src = text.replace("\r", " ") if "\r" in text else text
    env: dict = {}
    tokens = PARSER.parse(src, env)
    # Reading the tokens makes no cycles, but the collector would walk the whole token list
    # again and again meanwhile (a third more time on a 2 MB text).
    with collection_paused():
        return _read_tokens(text, src, tokens, env.get("references") or {})


def _read_tokens(text: str, src: str, tokens: list, refs: dict, mode: str = "markdown") -> Analysis:
    """``analyze_markdown`` (or ``analyze_plain``) after the parse: everything read from the token stream."""
    n_text = len(text)
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
    # The language decides how prose splits into sentences, so it is guessed from the
    # paragraphs first.
    language = detect_language(prose_sample(
        tokens[i + 1].content for i, tok in enumerate(tokens) if tok.type == "paragraph_open" and tok.map))

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
                prose_sentences(text, src, inline, starts, n_lines, n_text, refs, sentences, nums, cites, language)
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
    # An atom is judged by its visible text: a chunk that trims the newline after a table (as
    # most splitters' defaults do) still holds it. The blocks stay whole lines for splitting.
    atoms: dict[str, tuple[Span, ...]] = {kind: () for kind in ATOM_KINDS}
    atoms["code"] = visible(text, code)
    atoms["table"] = visible(text, table_atoms)
    atoms["row"] = visible(text, rows)
    atoms["num"] = visible(text, nums)
    atoms["cite"] = visible(text, cites)
    return Analysis(
        mode=mode,
        atoms=atoms,
        paragraphs=_units(text, units, starts, n_lines),
        sentences=tuple(sentences),
        fences=tuple(code),
        tables=tuple(tables),
        headings=tuple(headings),
        language=language,
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
