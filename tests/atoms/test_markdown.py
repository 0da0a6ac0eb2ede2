"""The markdown-aware detector ``inspector.atoms.markdown``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import inspector.atoms.markdown as markdown_module
from inspector.atoms.analysis import Analysis, Heading, Table
from inspector.atoms.markdown import analyze_markdown
from inspector.model import ATOM_KINDS
from tests.support.strategies import markdown_document


def texts(text: str, spans) -> list[str]:
    return [text[a:b] for a, b in spans]


def atoms(text: str, kind: str) -> list[str]:
    return texts(text, analyze_markdown(text).atoms[kind])


def sentences(text: str) -> list[str]:
    return texts(text, analyze_markdown(text).sentences)


TEN = "one two three four five six seven eight nine ten"


_WORDS = st.sampled_from(
    ["alpha", "Beta", "gamma.", "Delta!", "e.g.", "42", "3.14", "v2", "x", "Harborline", "`c. D`",
     "[l](http://a.b/1)", "[r]", "![i](p.png)", "https://x.y/9", "<https://z.w>", "**b.**", '"q."', "(p.)"]
)


_LINE = st.one_of(
    st.lists(_WORDS, min_size=1, max_size=14).map(" ".join),
    st.sampled_from(
        ["```", "~~~", "````", "    code 1", "| a | b |", "|---|:-:|", "| 1 | 2 |", "a | b", "--|--",
         "# Head 1", "## Two", "Setext", "===", "---", "> quote. Two", "> | q | 1 |", "> |---|---|", "- item. More",
         "1. first 2", "  nested. Line", "", "", "[r]: http://r.s", "<div>", "</div>", "\t\ttabbed. Text", "\u2003"]
    ),
)


_DOCS = st.lists(_LINE, max_size=30).map("\n".join) | st.lists(_LINE, max_size=30).map(lambda ls: "\n".join(ls) + "\n")


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_returns_markdown_analysis_with_every_kind() -> None:
    a = analyze_markdown("# T\n\nHello.\n")
    assert isinstance(a, Analysis)
    assert a.mode == "markdown"
    assert set(a.atoms) == set(ATOM_KINDS)


def test_empty_text() -> None:
    a = analyze_markdown("")
    assert all(v == () for v in a.atoms.values())
    assert a.paragraphs == () and a.sentences == () and a.headings == ()


def test_backtick_and_tilde_fences() -> None:
    text = "Intro.\n\n```python\nx = 1\n```\n\n~~~\ny = 2\n~~~\nTail.\n"
    a = analyze_markdown(text)
    assert texts(text, a.fences) == ["```python\nx = 1\n```\n", "~~~\ny = 2\n~~~\n"]
    # The atom is the block's visible text: a chunk that trims the newline after it holds it.
    assert texts(text, a.atoms["code"]) == ["```python\nx = 1\n```", "~~~\ny = 2\n~~~"]


def test_four_backtick_fence_with_three_backticks_inside_is_one_atom() -> None:
    text = "````markdown\n```\ninner\n```\n````\nAfter the fence.\n"
    assert atoms(text, "code") == ["````markdown\n```\ninner\n```\n````"]
    assert sentences(text) == ["After the fence."]


def test_five_tilde_fence_needs_five_tildes_to_close() -> None:
    text = "~~~~~\n~~~\nstill code\n~~~~~\nProse.\n"
    assert atoms(text, "code") == ["~~~~~\n~~~\nstill code\n~~~~~"]


def test_longer_closing_fence_closes() -> None:
    text = "```\ncode\n`````\nProse.\n"
    assert atoms(text, "code") == ["```\ncode\n`````"]


def test_unclosed_fence_runs_to_end_of_document() -> None:
    text = "Before.\n\n```sh\nrun 1\n\nrun 2\n"
    a = analyze_markdown(text)
    assert a.fences == ((text.index("```"), len(text)),)
    assert a.atoms["code"] == ((text.index("```"), len(text) - 1),)
    assert texts(text, a.sentences) == ["Before."]


def test_unclosed_fence_in_blockquote_ends_with_the_blockquote() -> None:
    text = "> ```\n> code\n\nOutside the quote.\n"
    assert atoms(text, "code") == ["> ```\n> code"]
    assert sentences(text) == ["Outside the quote."]


def test_fence_without_trailing_newline() -> None:
    text = "```\ncode\n```"
    assert analyze_markdown(text).atoms["code"] == ((0, len(text)),)


def test_indented_code_block() -> None:
    text = "Para.\n\n    code line 1\n    code line 2\n\nMore prose.\n"
    assert atoms(text, "code") == ["code line 1\n    code line 2"]
    assert texts(text, analyze_markdown(text).fences) == ["    code line 1\n    code line 2\n"]
    assert sentences(text) == ["Para.", "More prose."]


def test_fence_inside_list_item() -> None:
    text = "- item:\n\n  ```\n  code\n  ```\n- next\n"
    assert atoms(text, "code") == ["```\n  code\n  ```"]


def test_table_inside_fence_is_code_only() -> None:
    text = "~~~\n| a | b |\n|---|---|\n| 1 | 2 |\n~~~\n"
    a = analyze_markdown(text)
    assert texts(text, a.atoms["code"]) == [text.strip()] and texts(text, a.fences) == [text]
    assert a.atoms["table"] == () and a.atoms["row"] == () and a.tables == ()


def test_table_header_and_row_spans_are_exact() -> None:
    text = "Intro.\n\n| Role | Count |\n|------|------:|\n| Broker | 3 |\n| Client | 12 |\n\nAfter.\n"
    a = analyze_markdown(text)
    (table,) = a.tables
    assert isinstance(table, Table)
    assert text[table.start : table.end] == (
        "| Role | Count |\n|------|------:|\n| Broker | 3 |\n| Client | 12 |\n"
    )
    assert text[table.header[0] : table.header[1]] == "| Role | Count |\n|------|------:|\n"
    assert texts(text, table.rows) == ["| Broker | 3 |\n", "| Client | 12 |\n"]
    assert a.atoms["table"] == ((table.start, table.end - 1),)
    assert texts(text, a.atoms["row"]) == ["| Broker | 3 |", "| Client | 12 |"]


def test_table_without_outer_pipes() -> None:
    text = "Name | Value\n--- | ---\nalpha | 1\nbeta | 2\n"
    a = analyze_markdown(text)
    assert texts(text, a.atoms["table"]) == [text.rstrip("\n")]
    assert texts(text, a.atoms["row"]) == ["alpha | 1", "beta | 2"]


def test_table_with_alignment_colons() -> None:
    text = "| L | C | R |\n|:--|:-:|--:|\n| a | b | c |\n"
    a = analyze_markdown(text)
    (table,) = a.tables
    assert text[table.header[0] : table.header[1]] == "| L | C | R |\n|:--|:-:|--:|\n"
    assert atoms(text, "row") == ["| a | b | c |"]


def test_table_in_blockquote() -> None:
    text = "> | a | b |\n> |---|---|\n> | 1 | 2 |\n> | 3 | 4 |\n\nAfter.\n"
    a = analyze_markdown(text)
    assert texts(text, a.atoms["table"]) == ["> | a | b |\n> |---|---|\n> | 1 | 2 |\n> | 3 | 4 |"]
    assert texts(text, a.atoms["row"]) == ["> | 1 | 2 |", "> | 3 | 4 |"]
    assert texts(text, a.tables[0].rows) == ["> | 1 | 2 |\n", "> | 3 | 4 |\n"]


def test_table_at_end_without_newline() -> None:
    text = "| a |\n|---|\n| 1 |"
    a = analyze_markdown(text)
    assert a.atoms["table"] == ((0, len(text)),)
    assert texts(text, a.atoms["row"]) == ["| 1 |"]
    assert texts(text, a.tables[0].rows) == ["| 1 |"]


def test_pipes_without_delimiter_row_are_not_a_table() -> None:
    text = "| a | b |\n| 1 | 2 |\n"
    a = analyze_markdown(text)
    assert a.atoms["table"] == () and a.atoms["row"] == ()


def test_header_only_table_has_no_rows() -> None:
    text = "| a | b |\n|---|---|\n\nText.\n"
    a = analyze_markdown(text)
    assert texts(text, a.atoms["table"]) == ["| a | b |\n|---|---|"]
    assert a.atoms["row"] == () and a.tables[0].rows == ()


def test_figure_sentence_needs_ten_words_and_a_digit() -> None:
    text = f"We measured {TEN} and got 42 results.\n"
    assert atoms(text, "num") == [text.strip()]


def test_nine_words_with_digit_is_not_num() -> None:
    text = "We measured one two three four five got 42.\n"  # 9 words
    assert len(text.split()) == 9
    assert atoms(text, "num") == []


def test_digit_only_in_link_destination_is_not_num() -> None:
    text = f"See the {TEN} details in [the report](https://x.dev/2025/report-42).\n"
    a = analyze_markdown(text)
    assert a.atoms["num"] == ()
    assert texts(text, a.atoms["cite"]) == [text.strip()]


def test_digit_only_in_bare_url_or_autolink_is_not_num() -> None:
    text = f"Read {TEN} at https://x.dev/v2/page.\n\nRead {TEN} at <https://x.dev/v3>.\n"
    assert atoms(text, "num") == []
    assert len(atoms(text, "cite")) == 2


def test_digit_only_in_reference_label_is_not_num() -> None:
    text = f"Read {TEN} in [the notes][rel42] please.\n\n[rel42]: https://x.dev/r\n"
    assert atoms(text, "num") == []
    assert len(atoms(text, "cite")) == 1


def test_digit_in_link_text_is_num() -> None:
    text = f"Read {TEN} in [release 4.2](https://x.dev/r) please.\n"
    assert atoms(text, "num") == [text.strip()]


def test_digit_in_inline_code_is_visible() -> None:
    text = f"Set the option to `acks=1` for {TEN} brokers.\n"
    assert atoms(text, "num") == [text.strip()]


def test_heading_with_digits_is_not_num() -> None:
    text = f"## Results for {TEN} brokers in 2025\n\nNo figures here at all.\n"
    assert atoms(text, "num") == []


def test_code_with_digits_is_not_num() -> None:
    text = f"```\nprint({TEN.replace(' ', ', ')}, 1, 2, 3)\n```\n\n    indented {TEN} 123\n"
    assert atoms(text, "num") == []
    assert sentences(text) == []


def test_table_with_digits_is_not_num() -> None:
    text = f"| {TEN} | 1 |\n|---|---|\n| {TEN} | 2 |\n"
    assert atoms(text, "num") == []


def test_num_in_list_item_and_blockquote() -> None:
    text = f"- In 2025 we ran {TEN} times.\n\n> In 2024 we ran {TEN} times.\n"
    assert atoms(text, "num") == [f"In 2025 we ran {TEN} times.", f"In 2024 we ran {TEN} times."]


@pytest.mark.parametrize(
    "link",
    [
        "[the docs](https://x.dev/docs)",
        '[the docs](https://x.dev/docs "The title")',
        "[the docs](<https://x.dev/a b>)",
        "[the docs][docs]",
        "[docs][]",
        "[docs]",
        "[The  DOCS][Docs]",
        "<https://x.dev/docs>",
        "<mailto:team@x.dev>",
        "<team@x.dev>",
        "https://x.dev/docs",
        "www.x.dev/docs",
        '<a href="https://x.dev">the docs</a>',
    ],
)
def test_cite_link_forms(link: str) -> None:
    text = f"First sentence here. Read {link} now. Last sentence here.\n\n[docs]: https://x.dev/docs\n"
    assert atoms(text, "cite") == [f"Read {link} now."]


def test_shortcut_reference_without_definition_is_not_cite() -> None:
    text = "Read [docs] now. Also [docs][nowhere] and [x][] here.\n"
    assert atoms(text, "cite") == []
    assert sentences(text) == ["Read [docs] now.", "Also [docs][nowhere] and [x][] here."]


def test_reference_label_normalisation_matches_markdown_it() -> None:
    text = "Read [the guide][Install   Guide] now.\n\n[install guide]: https://x.dev/i\n"
    assert atoms(text, "cite") == ["Read [the guide][Install   Guide] now."]


def test_image_is_not_cite() -> None:
    text = "Look at ![a chart](https://x.dev/chart.png) here. And ![ref img][docs] too.\n\n[docs]: /d.png\n"
    assert atoms(text, "cite") == []


def test_image_inside_link_is_cite() -> None:
    text = "Click [![badge](https://x.dev/b.svg)](https://x.dev) now.\n"
    assert atoms(text, "cite") == ["Click [![badge](https://x.dev/b.svg)](https://x.dev) now."]


def test_link_inside_inline_code_is_not_cite() -> None:
    text = "Write `[text](https://x.dev)` to link. Or ``see <https://x.dev>`` too.\n"
    assert atoms(text, "cite") == []


def test_escaped_brackets_are_not_a_link() -> None:
    text = "Write \\[text](https://x.dev) to link.\n"  # not a link, but a bare URL
    assert atoms(text, "cite") == ["Write \\[text](https://x.dev) to link."]
    text2 = "Write \\[text](/local/path) to link.\n"
    assert atoms(text2, "cite") == []


def test_link_in_heading_or_table_is_not_cite() -> None:
    text = "## See [docs](https://x.dev)\n\n| [a](https://x.dev) |\n|---|\n| https://y.dev |\n"
    assert atoms(text, "cite") == []


def test_cite_in_list_and_blockquote() -> None:
    text = "- See [a](https://a.dev).\n\n> Quote <https://b.dev> here.\n"
    assert atoms(text, "cite") == ["See [a](https://a.dev).", "Quote <https://b.dev> here."]


def test_abbreviation_is_not_a_boundary() -> None:
    text = "Use a broker, e.g. Harborline in production. Then stop.\n"
    assert sentences(text) == ["Use a broker, e.g. Harborline in production.", "Then stop."]


@pytest.mark.parametrize("abbr", ["i.e.", "etc.", "vs.", "Dr.", "Mr.", "Mrs.", "Fig.", "approx.", "U.S."])
def test_other_abbreviations(abbr: str) -> None:
    text = f"Compare {abbr} Harborline here. Next one.\n"
    assert sentences(text) == [f"Compare {abbr} Harborline here.", "Next one."]


@pytest.mark.parametrize("ending", ["4 ms.", "No.", "30 sec."])
def test_units_and_answers_end_sentences(ending: str) -> None:
    # Technical prose ends sentences this way far more often than it abbreviates.
    text = f"The p99 latency was {ending} Then it recovered.\n"
    assert sentences(text) == [f"The p99 latency was {ending}", "Then it recovered."]


def test_boundaries_need_a_sentence_start() -> None:
    text = 'One. two. Three! "Four?" (Five.) [Six](/s). `Seven`. 8 items. *Nine*. _Ten_ end'
    assert sentences(text) == [
        "One. two.", "Three!", '"Four?"', "(Five.)", "[Six](/s).", "`Seven`.", "8 items.", "*Nine*.", "_Ten_ end",
    ]


def test_closing_quote_and_emphasis_stay_with_the_sentence() -> None:
    text = 'He said "stop." Then **it stopped.** After that.\n'
    assert sentences(text) == ['He said "stop."', "Then **it stopped.**", "After that."]


def test_no_split_inside_inline_code_or_link() -> None:
    text = 'Run `a. B` now. See [x](/p "A. B") there. End.\n'
    assert sentences(text) == ["Run `a. B` now.", 'See [x](/p "A. B") there.', "End."]


def test_sentences_span_lines_in_containers() -> None:
    text = "> First line of a\n> quoted sentence. Second\n> one.\n"
    a = analyze_markdown(text)
    assert texts(text, a.sentences) == ["First line of a\n> quoted sentence.", "Second\n> one."]


def test_sentence_spans_trimmed_and_skip_markers() -> None:
    text = "-   Item   text here.   \n1. Second item.\n\n>   Quoted.\n"
    assert sentences(text) == ["Item   text here.", "Second item.", "Quoted."]


def test_prose_excludes_html_blocks_and_reference_definitions() -> None:
    text = "<div>\nHTML text. More.\n</div>\n\nProse.\n\n[ref]: https://x.dev\n"
    assert sentences(text) == ["Prose."]


def test_atx_and_setext_headings() -> None:
    text = "# Top\n\nIntro.\n\nPorts and firewalls\n-------------------\n\n### Deep ###\n"
    a = analyze_markdown(text)
    assert [(h.level, h.title) for h in a.headings] == [(1, "Top"), (2, "Ports and firewalls"), (3, "Deep")]
    setext = a.headings[1]
    assert text[setext.start : setext.end] == "Ports and firewalls\n-------------------\n"
    assert isinstance(setext, Heading)
    assert sentences(text) == ["Intro."]


def test_heading_path() -> None:
    text = "# A\n\n## B\n\ntext b\n\n### C\n\ntext c\n\n## D\n\ntext d\n"
    a = analyze_markdown(text)
    assert a.heading_path(text.index("text c")) == ("A", "B", "C")
    assert a.heading_path(text.index("text d")) == ("A", "D")
    assert a.heading_path(0) == ("A",)


def test_hash_line_in_fence_is_not_heading() -> None:
    text = "```\n# not a heading\n```\n"
    assert analyze_markdown(text).headings == ()


def test_paragraph_units() -> None:
    text = (
        "# Title\n\nFirst para\nline two.\n\n- item one\n\n  continued\n- item two\n\n"
        "```\ncode\n```\n\n> quote\n\n---\n\n[ref]: /x\n"
    )
    a = analyze_markdown(text)
    assert texts(text, a.paragraphs) == [
        "# Title",
        "First para\nline two.",
        "- item one\n\n  continued",
        "- item two",
        "```\ncode\n```",
        "> quote",
        "---",
        "[ref]: /x",
    ]


def _visible(text: str, span: tuple[int, int]) -> tuple[int, int]:
    a, b = span
    inner = text[a:b]
    if not inner.strip():
        return span
    start = a + len(inner) - len(inner.lstrip())
    return start, start + len(inner.strip())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCS)
def test_properties(text: str) -> None:
    a = analyze_markdown(text)
    n = len(text)
    for kind in ATOM_KINDS:
        spans = a.atoms[kind]
        assert list(spans) == sorted(spans), kind
        for s, e in spans:
            assert 0 <= s < e <= n, (kind, s, e)
    for group in (a.paragraphs, a.sentences):
        assert list(group) == sorted(group)
        for s, e in group:
            assert 0 <= s < e <= n
        for x, y in zip(group, group[1:]):
            assert x[1] <= y[0]  # non-overlapping
    for s, e in a.sentences:
        assert text[s:e] == text[s:e].strip()
    # Atoms are their blocks' visible text: the same blocks, without edge whitespace.
    assert a.atoms["code"] == tuple(_visible(text, span) for span in a.fences)
    tables = a.atoms["table"]
    assert tables == tuple(_visible(text, (t.start, t.end)) for t in a.tables)
    for kind in ATOM_KINDS:
        for s, e in a.atoms[kind]:
            assert text[s:e] == text[s:e].strip() or not text[s:e].strip()
    for row in a.atoms["row"]:
        assert any(t[0] <= row[0] and row[1] <= t[1] for t in tables)
    for t in a.tables:
        assert t.start == t.header[0] < t.header[1] <= t.end
        for r in t.rows:
            assert t.header[1] <= r[0] < r[1] <= t.end
    blocks = a.atoms["code"] + tables
    for code in a.atoms["code"]:
        assert not any(_overlaps(code, t) for t in tables)
    for kind in ("num", "cite"):
        for sent in a.atoms[kind]:
            assert sent in a.sentences
            assert not any(_overlaps(sent, b) for b in blocks)
    for s, e in a.sentences:
        assert not any(_overlaps((s, e), b) for b in blocks)
    for h in a.headings:
        assert 0 <= h.start < h.end <= n and 1 <= h.level <= 6
        assert not any(_overlaps((h.start, h.end), s) for s in a.sentences)
    # every non-blank line lies in exactly one paragraph unit
    pos = 0
    for line in text.split("\n"):
        if line.strip():
            inside = [p for p in a.paragraphs if p[0] <= pos and pos + len(line) <= p[1]]
            assert len(inside) == 1, (line, a.paragraphs)
        pos += len(line) + 1


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?`[]()<>|-#>*_\n\t:/1\u2003\r\x00\x1c\x85")), max_size=200))
def test_arbitrary_text_never_crashes(text: str) -> None:
    a = analyze_markdown(text)
    for kind in ATOM_KINDS:
        for s, e in a.atoms[kind]:
            assert 0 <= s < e <= len(text)
    for s, e in a.sentences:
        assert 0 <= s < e <= len(text)
        assert text[s:e] == text[s:e].strip()


def test_offsets_survive_tabs_and_trimmed_unicode_space_lines() -> None:
    # markdown-it expands the tab and trims the trailing U+2003 line from the content
    text = "- item. Next\n\tTabbed. X\n\u2003\n"
    assert sentences(text) == ["item.", "Next\n\tTabbed.", "X"]
    text = "   trailing.   \n\u2003"
    assert sentences(text) == ["trailing."]


def test_code_span_closes_only_on_equal_backtick_run() -> None:
    inside = "Use ``a ` [x](https://x.dev) b`` here.\n"
    assert atoms(inside, "cite") == []
    unmatched = "Use `` open [x](https://x.dev) here.\n"
    assert atoms(unmatched, "cite") == ["Use `` open [x](https://x.dev) here."]


def test_reading_markdown_tokens_pauses_the_collector(monkeypatch):
    """The collector waits while the tokens are read, not while markdown-it parses."""
    import gc

    import inspector.atoms.markdown as atoms_markdown

    seen = []
    real_parse, real_prose = atoms_markdown.PARSER.parse, atoms_markdown.prose_sentences

    class Parser:
        def parse(self, src, env):
            seen.append(("parse", gc.isenabled()))
            return real_parse(src, env)

    def prose(*args):
        seen.append(("prose", gc.isenabled()))
        return real_prose(*args)

    monkeypatch.setattr(atoms_markdown, "PARSER", Parser())
    monkeypatch.setattr(atoms_markdown, "prose_sentences", prose)
    analysis = atoms_markdown.analyze_markdown("# Title\n\nOne sentence with 42 words in it, or so they say.\n")
    assert analysis.sentences and seen[0] == ("parse", True)
    assert ("prose", False) in seen and ("prose", True) not in seen
    assert gc.isenabled()


TABLE_CASES = [
    "Intro line\n| a | b |\n|---|---|\n| 1 | 2 |\n",  # a table interrupting a paragraph
    "- item\n\n  | a | b |\n  |---|:-:|\n  | 1 | 2 |\n",  # in a list item
    "> | a | b |\n> |---|---|\n> | x \\| y | [l](https://x.example/1) |\n",  # in a blockquote
    "| a |\n|---|\n|\n| only |\n\ntext after, with 12 words to make it a long enough sentence here.\n",
    "[ref]: https://x.example\n| a | b |\n|---|---|\n| [ref] | 3 |\n",  # after a reference definition
]


@pytest.mark.parametrize("text", TABLE_CASES)
def test_dropping_table_cell_tokens_changes_no_analysis(text, monkeypatch):
    ours = analyze_markdown(text)
    monkeypatch.setattr(markdown_module, "PARSER", MarkdownIt("commonmark", {"html": True}).enable("table"))
    assert analyze_markdown(text) == ours


@settings(max_examples=200, deadline=None)
@given(text=markdown_document())
def test_the_parser_reads_what_markdown_it_reads(text):
    plain = MarkdownIt("commonmark", {"html": True}).enable("table")
    ours = analyze_markdown(text)
    original, markdown_module.PARSER = markdown_module.PARSER, plain
    try:
        assert analyze_markdown(text) == ours
    finally:
        markdown_module.PARSER = original


def test_only_paragraphs_that_may_hold_a_link_are_parsed_inline(monkeypatch):
    """A link opens at ``[`` or ``<`` alone: the other paragraphs' inlines are never parsed, and
    the analysis is the unmodified parser's."""
    text = ("Plain prose with *emphasis* and `code`, 42 words or so in all of it.\n\n"
            "A [link](https://example.com/a) in a sentence that is long enough here.\n\n"
            "An autolink <https://example.com/b> sits in this sentence as well, 7 times.\n\n"
            "| a | [b](https://x.dev) |\n|---|---|\n| 1 | 2 |\n")
    parsed = []
    real = markdown_module.PARSER.inline.parse
    monkeypatch.setattr(markdown_module.PARSER.inline, "parse",
                        lambda src, *rest: parsed.append(src) or real(src, *rest))
    ours = analyze_markdown(text)
    assert [p.split()[1] for p in parsed] == ["[link](https://example.com/a)", "autolink"]
    assert len(ours.atoms["cite"]) == 2
    monkeypatch.setattr(markdown_module, "PARSER", MarkdownIt("commonmark", {"html": True}).enable("table"))
    assert analyze_markdown(text) == ours


def _tokens(tokens) -> list[tuple]:
    return [(t.type, t.tag, t.nesting, t.map, t.content, t.markup, t.info, t.level, t.block, t.hidden,
             _tokens(t.children or ())) for t in tokens]


_MARKED = st.lists(st.sampled_from([*"|-:`~>*_+#<[]()!1. a\t", "\n", "\n\n", "   ", "    ", "1. ", "- ", "> ",
                                    "```", "~~~", "| a | b |\n|---|---|\n", "<div>", "[x]: /u\n", "# h", "***",
                                    "Text line", "\r\n", "=", "===\n", "---\n", "  -\n"]), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(markdown_document(), _MARKED))
@example(text="Title\n===\n")
@example(text="Title\nmore of it\n  ---\n")
@example(text="- item\n  text\n  ---\n")
@example(text="> quoted\n> ===\n")
@example(text="Text\n    ---\n===\n")
@example(text="Text\n\n---\n")
def test_block_rules_tried_only_on_their_markers_give_markdown_its_tokens(text):
    """Every token (nesting, line maps, content, children) is markdown-it's own, in lists,
    blockquotes, tables, fences and setext headings alike."""
    plain = MarkdownIt("commonmark", {"html": True}).enable("table")
    guarded = markdown_module.guard_block_rules(MarkdownIt("commonmark", {"html": True}).enable("table"))
    assert _tokens(guarded.parse(text)) == _tokens(plain.parse(text))


def test_a_guarded_rule_is_never_tried_on_a_line_without_its_marker():
    tried = []
    parser = MarkdownIt("commonmark", {"html": True}).enable("table")
    (heading,) = [rule for rule in parser.block.ruler.__rules__ if rule.name == "heading"]
    real = heading.fn  # ``at`` replaces the rule's function in place
    parser.block.ruler.at("heading", lambda state, line, *rest: tried.append(line) or real(state, line, *rest),
                          {"alt": list(heading.alt)})
    markdown_module.guard_block_rules(parser)
    parser.parse("# One\n\nplain text\nmore text\n\n## Two\n- item\n")
    assert tried == [0, 5]  # the two headings' lines, nothing else
