"""``inspector.kinds``: a splitter kind is one module and one registry line. A toy kind
registered from ``tests/support/toy_kind.py`` splits, prints and parses its spec, and works in
``report``, the app's splitter menu and the drop-ins with nothing else changed."""

from __future__ import annotations

import json

import pytest

from inspector import Document, SplitterSpec, analyze, split_document
from inspector.cli import main
from inspector.errors import SpecError
from inspector.kinds import KINDS, kind_names, offered_kinds, register, unregister
from tests.support.chunks import check_span_invariants
from tests.support.paths import SAMPLE
from tests.support.toy_kind import KIND, LinesOptions

SPEC = "lines:300;lines=2"


@pytest.fixture
def lines_kind():
    register(KIND)
    yield KIND
    unregister(KIND.name)


def test_the_registry_lists_the_kinds_once_in_their_order():
    assert kind_names() == ("fixed", "paragraph", "sentence", "recursive", "structured", "heading", "semantic",
                            "cluster", "llm", "chroma-recursive", "chroma-fixed", "chroma-cluster", "chroma-kamradt")
    assert "llm" not in offered_kinds() and all(KINDS[name].name == name for name in kind_names())


def test_a_name_taken_or_reserved_is_refused(lines_kind):
    with pytest.raises(ValueError, match="already registered"):
        register(KIND)
    for name in ("imported", "ext-mine"):
        with pytest.raises(ValueError, match="not a kind"):
            register(type(KIND)(name, "", split=KIND.split))


def test_an_unregistered_kind_is_an_unknown_splitter():
    with pytest.raises(SpecError, match="unknown splitter 'lines'"):
        SplitterSpec.parse(SPEC)


def test_a_registered_kind_reads_prints_and_splits(lines_kind, sample_markdown):
    spec = SplitterSpec.parse(SPEC)
    assert spec.options == LinesOptions(2) and str(spec) == SPEC and spec.label == "lines 300"
    assert str(SplitterSpec.parse("lines:300/50+path")) == "lines:300/50+path"
    with pytest.raises(SpecError, match="from 1 to 100"):
        SplitterSpec.parse("lines:300;lines=0")
    with pytest.raises(SpecError, match="lines belongs to the lines chunker, not 'fixed'"):
        SplitterSpec.parse("fixed:300;lines=2")
    text = "one\ntwo\nthree\nfour\nfive\n"
    result = split_document(Document("d.md", text), "lines:12;lines=2")
    assert [text[c.start:c.end] for c in result.chunks] == ["one\ntwo\n", "three\nfour\n", "five\n"]
    for mode in ("markdown", "seed"):
        for document in sample_markdown.documents[:8]:
            check_span_invariants(document.text, spec, split_document(document, spec, analyze(document.text, mode),
                                                                       mode=mode))


def test_report_measures_a_registered_kind(lines_kind, capsys):
    assert main(["report", str(SAMPLE), "--spec", SPEC, "--spec", "structured:300", "--json", "--quiet"]) == 0
    rows = json.loads(capsys.readouterr().out)["compare"]
    assert [row["spec"] for row in rows] == [SPEC, "structured:300"]
    assert rows[0]["chunks"] > 0


def test_the_drop_ins_split_with_a_registered_kind(lines_kind, sample_markdown):
    from llama_index.core import Document as LlamaDocument

    from inspector.integrations.langchain import ChunkInspectorSplitter
    from inspector.integrations.llamaindex import ChunkInspectorNodeParser

    langchain, llamaindex = ChunkInspectorSplitter.from_spec(SPEC), ChunkInspectorNodeParser.from_spec(SPEC)
    for document in sample_markdown.documents[:8]:
        ours = split_document(document, SPEC, sample_markdown.analysis(document)).chunks
        assert langchain.split_text(document.text) == [c.embedded_text(document) for c in ours]
        nodes = llamaindex.get_nodes_from_documents([LlamaDocument(text=document.text)])
        assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [c.span for c in ours]


def test_the_app_s_menu_offers_a_registered_kind_and_draws_its_controls(lines_kind):
    from tests.support.app import app, assert_clean

    at = app({"spec": SPEC})
    assert_clean(at)
    assert "lines" in at.selectbox(key="kind").options and at.selectbox(key="kind").value == "lines"
    assert at.number_input(key="option_lines").value == 2
    at.number_input(key="option_lines").set_value(3).run()
    assert_clean(at)
    assert at.query_params["spec"] == "lines:300;lines=3"

