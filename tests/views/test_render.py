"""``inspector.views.render``: escaping, well-formed markup, exact red marks, golden files.

Regenerate the golden files after an intended change of the markup or the CSS with
``UPDATE_GOLDEN=1 python -m pytest tests/views/test_render.py`` and look at the diff before committing."""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Analysis, Chunk, Document, Workspace, analyze, get_length, load_corpus, split_document
from inspector.measure.survival import CutAtom, cut_atoms
from inspector.model import ATOM_KINDS
from inspector.views.frames import doc_view
from inspector.views.render import (
    chunk_card_html,
    cut_list,
    cut_list_html,
    lanes_html,
    overlay_cuts,
    overlay_html,
)
from inspector.views.text import chunk_numbers
from inspector.views.window import WINDOW_CHARS, WINDOW_CHUNKS, windows
from tests.support.hostile import fenced_log, wide_table
from tests.support.paths import GOLDEN as GOLDEN_DIR
from tests.support.paths import ROOT

GOLDEN = GOLDEN_DIR / "render"


HOSTILE = ROOT / "tests" / "data" / "hostile"


#: Every tag and attribute the renderer may emit; anything else means document text leaked.
TAGS = {"div", "span", "a", "style", "h4", "ol", "li", "b"}


ATTRS = {"class", "data-lane", "data-label", "data-cut", "title", "id", "href", "style"}


class Parsed(HTMLParser):
    """Parses a fragment and keeps what the tests look at.

    ``text`` is the text outside ``<style>`` and outside ``data-label`` elements (entities
    decoded); ``bands`` gives each character of it the innermost band class (ci-c0, ci-c1,
    ci-overlap, ci-gap); ``cut_pieces`` lists (cut number, start, end, title, id) for each red
    piece; ``cut_chains`` the nesting of cut numbers (outermost first) at each red piece;
    ``labels`` holds (offset in ``text``, label text).
    """

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.tags: list[tuple[str, list]] = []
        self.text_parts: list[str] = []
        self.at = 0
        self.bands: list[str] = []
        self.cut_pieces: list[tuple[int, int, int, str, str | None]] = []
        self.labels: list[tuple[int, str]] = []
        self.cut_chains: list[tuple[int, ...]] = []
        self._label_buffer: list[str] | None = None
        self.feed(markup)
        self.close()
        assert not self.stack, f"unclosed tags: {[t for t, _ in self.stack]}"
        self.text = "".join(self.text_parts)

    def _skipping(self) -> bool:
        return any(tag == "style" or "data-label" in attrs for tag, attrs in self.stack)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        info = dict(attrs)
        info["_start"] = self.at
        self.stack.append((tag, info))
        if "data-cut" in info:
            self.cut_chains.append(tuple(int(i["data-cut"]) for _, i in self.stack if "data-cut" in i))
        if "data-label" in info and self._label_buffer is None and "ci-label" in info.get("class", ""):
            self._label_buffer = []

    def handle_startendtag(self, tag, attrs):
        raise AssertionError(f"self-closing tag <{tag}/> emitted")

    def handle_endtag(self, tag):
        assert self.stack, f"</{tag}> closes nothing"
        top, info = self.stack.pop()
        assert top == tag, f"</{tag}> closes <{top}>"
        if "ci-label" in info.get("class", "") and self._label_buffer is not None:
            self.labels.append((self.at, "".join(self._label_buffer)))
            self._label_buffer = None
        if "data-cut" in info:
            self.cut_pieces.append((int(info["data-cut"]), info["_start"], self.at,
                                    info.get("title"), info.get("id")))

    def handle_data(self, data):
        if self._label_buffer is not None:
            self._label_buffer.append(data)
        if self._skipping():
            return
        band = next((cls for _, info in reversed(self.stack)
                     for cls in info.get("class", "").split()
                     if cls in ("ci-c0", "ci-c1", "ci-overlap", "ci-gap")), "")
        self.text_parts.append(data)
        self.bands.extend([band] * len(data))
        self.at += len(data)

    def handle_comment(self, data):
        raise AssertionError("comment emitted")

    def handle_decl(self, decl):
        raise AssertionError("declaration emitted")

    def handle_pi(self, data):
        raise AssertionError("processing instruction emitted")

    def unknown_decl(self, data):
        raise AssertionError("unknown declaration emitted")


def assert_safe(markup: str) -> Parsed:
    """Parses (checking nesting) and checks that only the renderer's own tags and attributes appear."""
    parsed = Parsed(markup)
    for tag, attrs in parsed.tags:
        assert tag in TAGS, f"unexpected tag <{tag}>"
        for name, value in attrs:
            assert name in ATTRS, f"unexpected attribute {name!r} on <{tag}>"
            assert not name.startswith("on")
            assert "javascript:" not in (value or "").lower()
            if name == "href":
                assert re.fullmatch(r"#ci-[a-z0-9_-]+-cut-\d+", value), value
            if name == "style":
                assert tag == "div"
                assert re.fullmatch(r"grid-template-columns:repeat\(\d+,minmax\(0,1fr\)\)", value), value
    return parsed


def chunks_from(spans, doc_id="t.md"):
    return [Chunk(doc_id, i, a, b) for i, (a, b) in enumerate(spans)]


def bare_analysis(atoms: dict[str, list[tuple[int, int]]]) -> Analysis:
    full = {kind: tuple(sorted(atoms.get(kind, ()))) for kind in ATOM_KINDS}
    return Analysis("markdown", full, (), ())


# Text full of markup-looking pieces, whitespace and non-ASCII.
PIECES = ["<", ">", "&", '"', "'", "<script>", "</span>", "&amp;", "&lt;", "\n", "\n\n", " ", "\t",
          "javascript:", 'onerror="x"', "é", "😀", "]]>", "<!--", "`"]


hostile_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=40).map("".join)


@st.composite
def text_and_spans(draw, max_spans=8):
    """A text plus chunk spans that may overlap, leave gaps, be empty or touch the ends."""
    text = draw(hostile_text)
    n = len(text)
    offset = st.integers(0, n)
    spans = []
    for _ in range(draw(st.integers(0, max_spans))):
        a, b = sorted((draw(offset), draw(offset)))
        spans.append((a, b))
    if draw(st.booleans()):
        spans.sort()
    return text, spans


@st.composite
def with_atoms(draw):
    text, spans = draw(text_and_spans())
    n = len(text)
    atoms: dict[str, list[tuple[int, int]]] = {}
    for _ in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, max(0, n - 1)))
        b = draw(st.integers(a + 1, n)) if n else 0
        if b > a:
            atoms.setdefault(draw(st.sampled_from(ATOM_KINDS)), []).append((a, b))
    return text, spans, atoms


def hostile_documents():
    corpus = load_corpus(HOSTILE)
    assert len(corpus.documents) >= 3 and not corpus.skipped
    return corpus.documents


GOLDEN_DOC = """# Storage tiers

Hot data lives on NVMe; we measured 3 replicas serving 12,000 reads per second at p99 of 4 ms.
See [the tuning guide](https://example.com/tuning) before changing <anything>.

| Tier | Medium | Latency |
|------|--------|---------|
| hot  | NVMe   | 0.2 ms  |
| warm | SSD    | 1.5 ms  |
| cold | S3     | 80 ms   |

Cold reads are batched & retried.

```python
def tier(age_days):
    return "hot" if age_days < 7 else "cold"
```

Warm data moves to cold storage after 30 days unless pinned by an operator.
"""


def _split(spec, mode="markdown"):
    doc = Document("guide/storage.md", GOLDEN_DOC, "Storage tiers")
    analysis = analyze(doc.text, mode)
    return doc, analysis, list(split_document(doc, spec, analysis).chunks)


def _golden_structured():
    doc, analysis, chunks = _split("structured:120")
    cuts = overlay_cuts(analysis, chunks)
    return overlay_html(doc, chunks, analysis) + cut_list_html(doc, cuts, style=False)


def _golden_fixed_overlap():
    doc, analysis, chunks = _split("fixed:100/20")
    return overlay_html(doc, chunks, analysis, lane="f") + cut_list_html(
        doc, overlay_cuts(analysis, chunks), lane="f", style=False)


def _golden_seed_gaps():
    doc, analysis, chunks = _split("paragraph:120", mode="seed")
    return overlay_html(doc, chunks, analysis, lane="s")


def _golden_lanes():
    doc, analysis, left = _split("structured:120")
    _, _, right = _split("fixed:100/20")
    return lanes_html(doc, analysis, [("structured 120", left, None), ("fixed 100/20 <overlap>", right, None)])


def _golden_card():
    doc, _, chunks = _split("structured:120")
    chunk = next(c for c in chunks if c.prefix)
    hints = ("prefix: repeated table header", f"{len(chunk.embedded_text(doc))} chars embedded")
    return chunk_card_html(chunk.text(doc), chunk.prefix, title=f"Chunk #{chunk.index + 1} · {doc.id}",
                           hint_lines=hints)


GOLDEN_CASES = {
    "overlay_structured_120": _golden_structured,
    "overlay_fixed_100_20": _golden_fixed_overlap,
    "overlay_seed_paragraph_gaps": _golden_seed_gaps,
    "lanes_side_by_side": _golden_lanes,
    "chunk_card": _golden_card,
}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(with_atoms(), st.one_of(st.none(), st.tuples(st.integers(0, 60), st.integers(0, 60))))
def test_overlay_text_bands_and_safety(case, window):
    text, spans, atoms = case
    chunks = chunks_from(spans)
    if window is not None:
        window = (min(window), max(window))
    markup = overlay_html(Document("t.md", text), chunks, bare_analysis(atoms), window=window)
    parsed = assert_safe(markup)
    first, shown = (0, len(text)) if window is None else (min(window[0], len(text)), min(window[1], len(text)))
    assert parsed.text == text[first:shown]  # nothing lost, nothing added
    assert ('class="ci-notice"' in markup) == ((first, shown) != (0, len(text)))
    for offset, band in enumerate(parsed.bands):
        pos = first + offset
        cover = sum(1 for a, b in spans if a <= pos < b)
        want = "ci-gap" if cover == 0 else "ci-overlap" if cover > 1 else None
        if want:
            assert band == want, (pos, band)
        else:
            (i,) = [i for i, (a, b) in enumerate(spans) if a <= pos < b]
            assert band == f"ci-c{i % 2}", (pos, band)
    # One label per chunk that starts inside the shown text, sitting exactly at its start.
    want_labels = sorted((a - first, f"#{i + 1} · {b - a} chars") for i, (a, b) in enumerate(spans)
                         if first <= a < shown or (first <= a == shown == len(text)))
    assert sorted(parsed.labels) == want_labels


@settings(max_examples=300, deadline=None)
@given(with_atoms())
def test_red_pieces_are_exactly_the_cut_atoms(case):
    text, spans, atoms = case
    chunks = chunks_from(spans)
    markup = overlay_html(text, chunks, bare_analysis(atoms), lane="b")
    parsed = assert_safe(markup)
    cuts = cut_atoms(bare_analysis(atoms).atoms, spans)
    assert cuts == overlay_cuts(bare_analysis(atoms), chunks)
    by_cut: dict[int, list] = {}
    for k, a, b, title, anchor in parsed.cut_pieces:
        by_cut.setdefault(k, []).append((a, b, title, anchor))
    assert sorted(by_cut) == list(range(len(cuts)))
    for k, cut in enumerate(cuts):
        pieces = sorted(by_cut[k])
        assert pieces[0][0] == cut.start and pieces[-1][1] == cut.end
        assert all(p[1] == q[0] for p, q in zip(pieces, pieces[1:])), "red pieces leave a hole"
        assert [p[3] for p in pieces] == [f"ci-b-cut-{k}"] + [None] * (len(pieces) - 1)
        numbers = chunk_numbers(cut.chunks)
        assert all(numbers in p[2] for p in pieces)
    red = {pos for _, a, b, _, _ in parsed.cut_pieces for pos in range(a, b)}
    assert red == {pos for c in cuts for pos in range(c.start, c.end)}
    # Enclosing atoms sit outside enclosed ones, so the innermost (smallest) tooltip wins.
    order = lambda k: (cuts[k].start, -cuts[k].end, k)  # noqa: E731
    for chain in parsed.cut_chains:
        assert list(chain) == sorted(chain, key=order), chain


def test_red_marks_on_a_table_split_by_hand():
    text = ("Intro line.\n\n"
            "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
            "We measured 3 replicas serving 12,000 reads per second across the whole fleet today.\n")
    analysis = analyze(text, "markdown")
    table = analysis.atoms["table"][0]
    row1, row2 = analysis.atoms["row"]
    num = analysis.atoms["num"][0]
    assert text[row2[0]:row2[1]].startswith("| 3 | 4 |")
    cut_at = row2[0] + 4  # inside "| 3 | 4 |"
    chunks = chunks_from([(0, cut_at), (cut_at, len(text))])
    parsed = assert_safe(overlay_html(text, chunks, analysis))
    spans = {}
    for _, a, b, title, _ in parsed.cut_pieces:
        lo, hi, old = spans.get(title, (a, b, None))
        spans[title] = (min(lo, a), max(hi, b), old)
    assert {title: (a, b) for title, (a, b, _) in spans.items()} == {
        "table split across chunks #1, #2": table,
        "table row split across chunks #1, #2": row2,
    }
    red = {pos for _, a, b, _, _ in parsed.cut_pieces for pos in range(a, b)}
    assert not red & set(range(*num)), "an intact figure sentence is painted red"
    assert red == set(range(*table))  # row 1 is red only as part of its cut table
    # The row's red nests inside the table's red: its pieces carry both tooltips, row innermost.
    inner = [p for p in parsed.cut_pieces if p[3].startswith("table row")]
    assert [(p[1], p[2]) for p in inner] == [(row2[0], cut_at), (cut_at, row2[1])]
    # An atom no chunk reaches says so.
    alone = assert_safe(overlay_html(text, chunks_from([(0, 5)]), analysis))
    assert any(p[3] == "figure sentence outside every chunk" for p in alone.cut_pieces)
    assert any(p[3] == "table only partly inside chunk #1" for p in
               assert_safe(overlay_html(text, chunks_from([(0, cut_at)]), analysis)).cut_pieces)


def test_labels_use_given_sizes_and_unit():
    text = "alpha beta gamma delta"
    chunks = chunks_from([(0, 11), (11, 22)])
    parsed = assert_safe(overlay_html(text, chunks, None, sizes=[3, 2], unit="o200k"))
    assert parsed.labels == [(0, "#1 · 3 tokens"), (11, "#2 · 2 tokens")]
    parsed = assert_safe(overlay_html(text, chunks, None, sizes=[11, 11], unit="chars"))
    assert [label for _, label in parsed.labels] == ["#1 · 11 chars", "#2 · 11 chars"]


def test_a_label_starting_inside_a_code_block_or_table_goes_to_the_margin_and_marks_its_start():
    text = "Intro line.\n\n```\n+---+   +---+\n| a |-->| b |\n+---+   +---+\n```\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"
    analysis = analyze(text, "markdown")
    in_code = text.index("| a |") + 4
    in_table = text.index("| 1 |")
    chunks = chunks_from([(0, in_code), (in_code, in_table), (in_table, len(text))])
    html = overlay_html(text, chunks, analysis)
    labels = re.findall(r'<span class="(ci-label[^"]*)" data-label="">#(\d)', html)
    assert labels == [("ci-label", "1"), ("ci-label ci-aside", "2"), ("ci-label ci-aside", "3")]
    assert html.count('class="ci-bound"') == 2
    assert html.index('class="ci-bound"') < html.index('class="ci-label ci-aside"'), "the mark comes first"
    assert assert_safe(html).labels[0] == (0, "#1 · " + f"{in_code} chars")
    assert 'class="ci-label ci-aside"' not in overlay_html(text, chunks, None), "no atoms known: every label inline"


def test_bad_arguments_raise_clear_errors():
    text = "abc"
    with pytest.raises(ValueError, match="outside the text"):
        overlay_html(text, chunks_from([(0, 4)]), None)
    with pytest.raises(ValueError, match="outside the text"):
        overlay_html(text, chunks_from([(2, 1)]), None)
    with pytest.raises(ValueError, match="2 sizes given for 1 chunks"):
        overlay_html(text, chunks_from([(0, 3)]), None, sizes=[1, 2])
    for lane in ("", 'a" onclick="x', "a b", "x" * 41):
        with pytest.raises(ValueError, match="lane name"):
            overlay_html(text, chunks_from([(0, 3)]), None, lane=lane)


def test_truncation_notice_counts_hidden_chunks():
    text = "x" * 50 + "y" * 50
    chunks = chunks_from([(0, 40), (40, 70), (70, 100)])
    markup = overlay_html(text, chunks, None, window=(0, 60))
    parsed = assert_safe(markup)
    assert parsed.text == text[:60]
    assert "Showing the first 60 of 100 characters; 1 more chunk not shown." in markup
    assert [label for _, label in parsed.labels] == ["#1 · 40 chars", "#2 · 30 chars"]


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_hostile_corpus_renders_only_as_text(mode):
    live = re.compile(r"<\s*/?\s*(script|iframe|img|svg|style\s*>\s*body|form|input|object|embed|base|meta)\b",
                      re.I)
    for doc in hostile_documents():
        analysis = analyze(doc.text, mode)
        lanes = []
        for spec in ("fixed:100/20", "structured:120", "paragraph:150"):
            chunks = list(split_document(doc, spec, analysis).chunks)
            markup = overlay_html(doc, chunks, analysis)
            assert not live.search(markup), (doc.id, spec, live.search(markup))
            parsed = assert_safe(markup)
            assert parsed.text == doc.text
            listing = cut_list_html(doc, overlay_cuts(analysis, chunks))
            assert not live.search(listing)
            assert_safe(listing)
            lanes.append((f"<b>{spec}</b>", chunks, None))
        both = lanes_html(doc, analysis, lanes)
        assert not live.search(both) and "&lt;b&gt;fixed:100/20&lt;/b&gt;" in both
        assert_safe(both)
        card = chunk_card_html(doc.text, "<script>alert(1)</script>\n", title="<img src=x onerror=alert(1)>")
        assert not live.search(card)
        assert_safe(card)
    scripts = next(d for d in hostile_documents() if d.id == "scripts.md")
    markup = overlay_html(scripts, [Chunk(scripts.id, 0, 0, len(scripts.text))], None)
    for escaped in ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;",
                    "&lt;iframe src=&quot;https://evil.example/frame&quot;", "(javascript:alert(1))",
                    "1 &amp;amp; 2"):
        assert escaped in markup, escaped


def test_cut_list_matches_overlay_anchors():
    text = "| h | i |\n|---|---|\n| <1> | 2 & 3 |\n| 4 | 5 |\n"
    analysis = analyze(text, "markdown")
    chunks = chunks_from([(0, 25), (25, len(text))])
    cuts = overlay_cuts(analysis, chunks)
    rows = cut_list(text, cuts, lane="c")
    assert [r["kind"] for r in rows] == ["table", "row"]
    assert rows[1]["excerpt"] == "| <1> | 2 & 3 |"  # plain text, unescaped
    assert rows[0]["excerpt"] == " ".join(text.split())[:80]
    assert rows[1]["chunks"] == (1, 2) and rows[1]["label"] == "table row"
    overlay = overlay_html(text, chunks, analysis, lane="c")
    for row in rows:
        assert f'id="{row["href"][1:]}"' in overlay
    listing = cut_list_html(text, cuts, lane="c")
    assert_safe(listing)
    assert "| &lt;1&gt; | 2 &amp; 3 |" in listing and 'href="#ci-c-cut-1"' in listing
    assert "… and 1 more" in cut_list_html(text, cuts, lane="c", limit=1)
    assert "No bisected atoms." in cut_list_html(text, [], lane="c")
    long = CutAtom("num", 0, 200, (0, 1))
    assert cut_list("word " * 40, [long])[0]["excerpt"] == ("word " * 16).strip() + "…"
    assert cut_list("abcd" * 30, [long])[0]["excerpt"] == ("abcd" * 20) + "…"


def test_lanes_keep_separate_anchors_and_full_text():
    text = "| h | i |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"
    analysis = analyze(text, "markdown")
    lanes = [("split A", chunks_from([(0, 25), (25, len(text))]), None),
             ("split B", chunks_from([(0, 30), (28, len(text))]), [7, 9])]
    markup = lanes_html(text, analysis, lanes, unit="cl100k")
    assert assert_safe(markup).text == text * 2  # each lane shows the whole text
    assert markup.count("<style>") == 1 and "repeat(2,minmax(0,1fr))" in markup
    assert markup.count('data-lane="a"') == 1 and markup.count('data-lane="b"') == 1
    assert 'id="ci-a-cut-0"' in markup and 'id="ci-b-cut-0"' in markup
    assert "#2 · 9 tokens" in markup and "#2 · 15 chars" in markup


def test_chunk_card_shows_exactly_what_is_embedded():
    prefix, text = "# Guide > <Setup>\n", 'Run "make" & wait.\n'
    markup = chunk_card_html(text, prefix, title="Chunk #4 of <doc>", hint_lines=("tokens: 12", "a < b"))
    parsed = assert_safe(markup)
    assert parsed.text == prefix + text
    assert ('<span class="ci-prefix" title="prefix added by the splitter">'
            '# Guide &gt; &lt;Setup&gt;\n</span>') in markup
    assert "Chunk #4 of &lt;doc&gt;" in markup and "<div>a &lt; b</div>" in markup
    assert assert_safe(chunk_card_html("")).text == "" and "(empty chunk)" in chunk_card_html("")
    assert "ci-prefix" not in chunk_card_html("body only", style=False)


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden(name):
    markup = GOLDEN_CASES[name]()
    assert_safe(markup)
    path = GOLDEN / f"{name}.html"
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((markup + "\n").encode("utf-8"))
    assert path.exists(), f"missing {path.name}: run UPDATE_GOLDEN=1 python -m pytest tests/test_render.py"
    assert path.read_bytes() == (markup + "\n").encode("utf-8"), (
        f"{path.name} differs; if the change is intended, regenerate with UPDATE_GOLDEN=1 and review the diff")


def test_golden_inputs_show_what_they_claim():
    # The golden cases are only worth their bytes if they exercise every feature.
    assert "ci-overlap" in _golden_fixed_overlap() and 'id="ci-f-cut-0"' in _golden_fixed_overlap()
    assert 'class="ci-gap"' in _golden_seed_gaps()
    assert 'id="ci-a-cut-0"' in _golden_structured() and "ci-cuts" in _golden_structured()
    assert "ci-prefix" in _golden_card()


@pytest.mark.parametrize(("make", "spec"), [(wide_table, "fixed:30"), (wide_table, "fixed:10"),
                                           (fenced_log, "fixed:200")])
def test_the_overlay_grows_linearly_with_the_text_and_the_chunks(make, spec):
    document = Document("hostile.md", make())
    workspace = Workspace([document])
    view = doc_view(workspace, document, spec, get_length("chars"))
    chunks = view.result.chunks
    markup = overlay_html(document, chunks, view.analysis, sizes=list(view.sizes))
    # Before, every piece of the table repeated a tooltip naming all 15,000 chunks: 935 MB.
    assert len(markup) <= 3 * len(document.text) + 450 * len(chunks) + 10_000
    titles = re.findall(r'title="([^"]*)"', markup)
    assert titles and max(map(len, titles)) <= 200
    parts = windows(len(document.text), [c.start for c in chunks])
    assert len(parts) > 1
    for part in parts[:2] + parts[-1:]:
        shown = overlay_html(document, chunks, view.analysis, sizes=list(view.sizes), window=part)
        assert len(shown) <= 3 * WINDOW_CHARS + 450 * WINDOW_CHUNKS + 10_000
        assert assert_safe(shown).text == document.text[part[0]:part[1]]


def test_the_strip_marks_each_chunk_start_and_links_each_cut_to_its_mark():
    from inspector.measure.survival import CutAtom
    from inspector.views.render import strip_html

    spans = [(0, 50), (50, 100)]
    cuts = [CutAtom("code", 40, 60, (0, 1)), CutAtom("row", 90, 95, (1,))]
    out = strip_html(100, [("a", spans, cuts), ("b", [(0, 100)], [])], style=False)
    assert out.count('class="ci-strip-lane"') == 2 and out.count('class="ci-strip-bound"') == 1
    assert 'href="#ci-a-cut-0" style="top:40.000%"' in out and 'href="#ci-a-cut-1" style="top:90.000%"' in out
    windowed = strip_html(100, [("a", spans, cuts)], window=(50, 100), style=False)
    assert 'href="#ci-a-cut-1" style="top:80.000%"' in windowed and "ci-a-cut-0" not in windowed, \
        "numbered as the overlay numbers them; only the drawn stretch"
    with pytest.raises(ValueError):
        strip_html(10, [('x" onclick="y', [], [])])


def test_the_strip_is_as_tall_as_a_short_text_so_its_marks_sit_beside_what_they_mark():
    from inspector.views.render import drawn_lines, strip_html

    short = "# Title\n\nA few words.\n"
    assert drawn_lines(short) == 3 and drawn_lines("x" * 250) == 3 and drawn_lines("x" * 250, line_chars=50) == 5
    assert drawn_lines("a\nb\nc\nd", window=(2, 5)) == 2
    tall = strip_html(len(short), [("a", [(0, 10)], [])], lines=drawn_lines(short), style=False)
    assert 'class="ci-strip" style="height:min(75vh,88px)"' in tall
    long = "line\n" * 5000
    assert "height:min(75vh,110522px)" in strip_html(len(long), [("a", [], [])], lines=drawn_lines(long), style=False)
    assert 'class="ci-strip" data-label=""' in strip_html(10, [("a", [], [])], style=False), "the scroll box's height"
