"""``inspector.corpus.read``: one file's decoding, newlines, front matter, title and size limit."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.corpus import read as corpus_file
from inspector.corpus.load import (
    UnreadableFile,
    load_corpus,
)
from inspector.corpus.read import read_text
from inspector.limits import human_size
from tests.support.files import reasons, write


def test_markdown_newlines_and_bom(tmp_path):
    write(tmp_path, "crlf.md", b"one\r\ntwo\r\n")
    write(tmp_path, "cr.md", b"one\rtwo\r\rthree")
    write(tmp_path, "bom.md", b"\xef\xbb\xbf# Title\r\nx\n")
    corpus = load_corpus(tmp_path)
    assert corpus.by_id("crlf.md").text == "one\ntwo\n"
    assert corpus.by_id("cr.md").text == "one\ntwo\n\nthree"
    assert corpus.by_id("bom.md").text == "# Title\nx\n"
    assert corpus.by_id("bom.md").title == "Title"


def test_markdown_yaml_front_matter_closed_by_dots_and_meta(tmp_path):
    raw = (
        "---\n"
        "title: 'Quoted title'\n"
        "author: Ann   # a comment\n"
        "tags: [a, b]\n"
        "nested:\n"
        "  inner: skipped\n"
        "summary: |\n"
        "  block\n"
        "url: \"http://x/#frag\"\n"
        "...\n"
        "# Heading\n"
    )
    text, meta = read_text(raw.encode(), "markdown")
    assert text == "# Heading\n"
    assert meta == (("title", "Quoted title"), ("author", "Ann"), ("url", "http://x/#frag"))


def test_markdown_toml_front_matter(tmp_path):
    write(tmp_path, "t.md", '+++\ntitle = "Toml title"\ndraft = false\n[params]\nx = 1\n+++\nbody\n')
    doc = load_corpus(tmp_path).by_id("t.md")
    assert doc.text == "body\n"
    assert doc.meta == (("title", "Toml title"), ("draft", "false"))
    assert doc.title == "Toml title"


@pytest.mark.parametrize(
    "raw",
    [
        "intro\n---\ntitle: x\n---\nbody\n",  # not at the start: kept
        "\n---\ntitle: x\n---\n",  # blank line first: kept
        "---\ntitle: never closed\n",  # unclosed: kept
        "text\n+++\na = 1\n+++\n",
    ],
)
def test_front_matter_not_at_start_is_kept(raw):
    assert read_text(raw.encode(), "markdown") == (raw, ())


def test_title_ignores_headings_in_code_fences(tmp_path):
    write(tmp_path, "x.md", "```sh\n# not a title\n```\n## Sub\n# Real ##\n")
    write(tmp_path, "y.md", "~~~\n# not a title\n~~~\n## Only sub\n")
    corpus = load_corpus(tmp_path)
    assert [d.title for d in corpus] == ["Real", "Only sub"]


def test_size_messages():
    assert corpus_file.too_large(7_200_000, 5_000_000) == "larger than the 5 MB limit (7.2 MB)"
    assert human_size(999) == "999 bytes"


def test_oserror_while_reading_is_a_skip(tmp_path, monkeypatch):
    write(tmp_path, "ok.md", "ok\n")
    write(tmp_path, "locked.md", "locked\n")
    real = corpus_file.read_bytes

    def failing(path, limit):
        if path.endswith("locked.md"):
            raise PermissionError(13, "Permission denied", path)
        if path.endswith("ok.md"):
            return real(path, limit)
        raise AssertionError(path)

    monkeypatch.setattr(corpus_file, "read_bytes", failing)
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus] == ["ok.md"]
    assert reasons(corpus) == {"locked.md": "unreadable: permission denied"}

    def io_error(path, limit):
        raise OSError(5, "Input/output error", path)

    monkeypatch.setattr(corpus_file, "read_bytes", io_error)
    assert reasons(load_corpus(tmp_path))["ok.md"] == "unreadable: input/output error"


def test_seed_keeps_bom_so_front_matter_stays(tmp_path):
    write(tmp_path, "bom.md", b"\xef\xbb\xbf---\ntitle: x\n---\nbody\n")
    write(tmp_path, "plain.md", b"---\ntitle: x\n---\nbody\n")
    corpus = load_corpus(tmp_path, mode="seed")
    assert corpus.by_id("bom.md").text == "\ufeff---\ntitle: x\n---\nbody\n"
    assert corpus.by_id("plain.md").text == "body\n"
    assert corpus.by_id("plain.md").meta == (("title", "x"),)
    # The markdown mode drops the BOM and so does remove that front matter.
    assert load_corpus(tmp_path).by_id("bom.md").text == "body\n"


def test_read_text_raises_unreadable_file():
    with pytest.raises(UnreadableFile) as info:
        read_text(b"\xc3", "seed")
    assert info.value.reason == "not UTF-8 text (invalid byte 0xc3 at offset 0)"
    assert isinstance(info.value, ValueError)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["\r", "\n", "\r\n", "---", "+++", "\ufeff", "# "]),
            st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        ),
        max_size=60,
    ).map("".join)
)
def test_markdown_newlines_normalised_and_nothing_else_lost(body):
    raw = "x" + body  # a leading "x" rules out a BOM or front matter at the start
    text, _ = read_text(raw.encode("utf-8"), "markdown")
    assert "\r" not in text
    assert [c for c in text if c != "\n"] == [c for c in raw if c not in "\r\n"]
    assert text.count("\n") == len(re.findall(r"\r\n|\r|\n", raw))
