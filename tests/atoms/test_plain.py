"""The plain detector (mode ``plain``): a text without markup has paragraphs and sentences, and
its figure and citing sentences are found as markdown prose's are; nothing else is structure."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector import Document, Workspace, analyze
from inspector.atoms.analysis import Analysis
from tests.support.strategies import FAST, markdown_document

#: Words without a markdown mark: on such prose the two detectors must agree.
PROSE = ["Alpha", "beta", "gamma", "the", "queue", "holds", "4,096", "messages", "17%", "v4.2", "e.g.", "It",
         "drops", "see", "https://x.example/a1", "www.example.com", "émigré", "latency", "3", "times"]

STARTS = [w for w in PROSE if w.isalpha()]


@st.composite
def prose(draw) -> str:
    paragraphs = []
    for _ in range(draw(st.integers(1, 6))):
        sentences = []
        for _ in range(draw(st.integers(1, 5))):
            # A sentence opening with "3." would be a list item in markdown: a word opens it.
            words = [draw(st.sampled_from(STARTS)), *draw(st.lists(st.sampled_from(PROSE), max_size=15))]
            text = " ".join(words)
            sentences.append(text[0].upper() + text[1:] + draw(st.sampled_from([".", "!", "?"])))
        paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs) + "\n"


@FAST
@given(text=prose())
def test_on_prose_without_marks_plain_finds_what_markdown_finds(text):
    plain, markdown = analyze(text, "plain"), analyze(text, "markdown")
    assert plain.mode == "plain" and plain.atoms == markdown.atoms
    assert plain.sentences == markdown.sentences and plain.paragraphs == markdown.paragraphs


@FAST
@given(text=markdown_document())
def test_markup_is_prose_in_a_plain_text(text):
    analysis = analyze(text, "plain")
    assert analysis.atoms["code"] == analysis.atoms["table"] == analysis.atoms["row"] == ()
    assert analysis.headings == () and analysis.tables == () and analysis.fences == ()
    for kind, spans in analysis.atoms.items():
        assert list(spans) == sorted(spans) and all(0 <= a < b <= len(text) for a, b in spans), kind
        assert all(text[a:b] == text[a:b].strip() for a, b in spans), "atoms are judged without edge whitespace"
    assert Analysis.from_plain(analysis.to_plain()) == analysis


def test_a_fence_a_heading_and_a_table_are_prose_with_their_figures():
    text = ("# Limits of the queue\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "```\nretry(3) before the queue gives up on the message and logs it\n```\n\n"
            "The queue holds 4,096 messages and drops 2% of them, as https://x.example/q says.\n")
    analysis = analyze(text, "plain")
    figures = [text[a:b] for a, b in analysis.atoms["num"]]
    assert figures[-1] == "The queue holds 4,096 messages and drops 2% of them, as https://x.example/q says."
    assert [text[a:b] for a, b in analysis.atoms["cite"]] == [figures[-1]]
    assert any(f.startswith("```\nretry(3)") for f in figures), "a fence is a paragraph of prose"
    assert "[docs](x)" not in text and analyze("See [docs](x) now.\n", "plain").atoms["cite"] == ()


def test_the_same_spec_in_two_modes_never_shares_a_chunk_id():
    document = Document("a.txt", "The queue holds 4,096 messages.\n\nIt drops 2% of them under load.\n")
    ids = {mode: {c.id for c in Workspace([document], mode).chunks("fixed:40")} for mode in ("markdown", "plain")}
    assert ids["markdown"] and not ids["markdown"] & ids["plain"]
