"""``inspector.split.address``: the stamp's text, its fit under the budget, and the splitters'
invariants with ``+address`` (property tests first)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, analyze, get_length, split_document
from inspector.corpus.read import read_document
from inspector.errors import SpecError
from inspector.split.address import Address
from inspector.split.splitters import chunk_spans
from tests.support.strategies import FAST, markdown_document

TITLED = Document("guide.md", "x", title="Gateway guide", meta=(("Version", "2.3"), ("last_modified", "2026-03-01")))


def read(doc_id: str, text: str) -> Document:
    return read_document(doc_id, text.encode(), "markdown", doc_id)


@FAST
@given(text=markdown_document(), kind=st.sampled_from(["fixed", "paragraph", "sentence", "recursive", "structured",
                                                       "heading"]), budget=st.integers(40, 400))
def test_stamped_chunks_tile_the_text_and_pay_for_the_stamp(text, kind, budget):
    spec = SplitterSpec(kind, budget, address=True)
    document = Document("guide.md", text, title="Gateway guide", meta=TITLED.meta)
    result = split_document(document, spec)
    spans = result.spans
    if text:
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        assert all(x[1] == y[0] for x, y in zip(spans, spans[1:]))
    length = get_length("chars")
    for i, chunk in enumerate(result.chunks):
        assert chunk.prefix.startswith("Gateway guide") or length.count(chunk.prefix) > budget // 2 - 1
        if length.count(chunk.embedded_text(document)) > budget:
            assert i in result.oversized
    # The measuring path gives the same chunks as the document's split.
    found, prefixes, _ = chunk_spans(text, spec, analyze(text), length, Address.of(document))
    assert found == spans and (prefixes or [""] * len(spans)) == [c.prefix for c in result.chunks]


def test_a_stamp_from_front_matter_names_title_path_version_and_date():
    document = read("handbook/leave.md", "---\ntitle: Leave policy\nversion: 2026.1\nupdated: 2026-01-12\n"
                    "---\n# Leave policy\n\n## Carry-over\n\n" + "Up to 5 days carry over. " * 5 + "\n\n"
                    + "Unused days lapse in March. " * 5 + "\n")
    assert Address.of(document) == Address("Leave policy", "2026.1", "2026-01-12")
    chunk = split_document(document, "structured:800+address").chunks[0]
    assert chunk.prefix == "Leave policy · version 2026.1 · updated 2026-01-12\n"
    prefix = split_document(document, "paragraph:200+address").chunks[-1].prefix
    # The heading that only repeats the title is not said twice.
    assert prefix == "Leave policy > Carry-over · version 2026.1 · updated 2026-01-12\n"


def test_a_stamp_without_front_matter_uses_the_first_heading_and_says_no_version():
    document = read("handbook/equipment.md", "# Equipment budget\n\n## Laptops\n\n" + "Every two years. " * 8
                    + "\n\n" + "Returned when you leave. " * 6 + "\n")
    assert Address.of(document) == Address("Equipment budget")
    assert split_document(document, "paragraph:200+address").chunks[-1].prefix == "Equipment budget > Laptops\n"
    bare = read("notes/plain-notes.txt", "Every two years.\n")
    assert split_document(bare, "fixed:200+address").chunks[0].prefix == "plain-notes\n"


def test_the_template_lays_the_stamp_out_and_drops_parts_without_a_value():
    assert TITLED.meta and Address.of(TITLED) == Address("Gateway guide", "2.3", "2026-03-01")
    assert Address.of(TITLED).stamp(("Limits",), "{title} (v{version})[ – {path}]") == "Gateway guide (v2.3) – Limits"
    assert Address("Gateway guide").stamp((), "{title}[ v{version}][ > {path}]") == "Gateway guide"
    assert Address().stamp(("A", "B")) == "A > B"


def test_the_stamp_gives_way_outer_headings_first_then_version_then_everything():
    address = Address("Guide", "2.3", "2026-03-01")
    path = ("Part one", "Limits")
    short = lambda most: lambda stamp: len(stamp) <= most
    assert address.fitted(path, "{title}[ > {path}][ · version {version}]", short(100)) == \
        "Guide > Part one > Limits · version 2.3"
    assert address.fitted(path, "{title}[ > {path}][ · version {version}]", short(30)) == "Guide > Limits · version 2.3"
    assert address.fitted(path, "{title}[ > {path}][ · version {version}]", short(20)) == "Guide · version 2.3"
    assert address.fitted(path, "{title}[ > {path}][ · version {version}]", short(8)) == "Guide"
    assert address.fitted(path, "{title}[ > {path}]", short(3)) == ""


def test_a_stamp_uses_at_most_half_the_budget():
    document = Document("g.md", "# A very long title indeed for a tiny budget\n\nText here.\n",
                        title="A very long title indeed for a tiny budget")
    for chunk in split_document(document, "fixed:40+address").chunks:
        assert len(chunk.prefix) <= 20


@pytest.mark.parametrize(("text", "reason"), [
    ("structured:800;stamp=%7Btitle%7D", "needs the address flag"),
    ("structured:800+address;stamp=%7Bowner%7D", "names 'owner'"),
    ("structured:800+address;stamp=%5B%5Bx%5D%5D", "do not nest"),
    ("structured:800+address;stamp=%5B%7Btitle%7D", "open"),
    ("structured:800-address", "no -address"),
    ("ext-langchain:800+address", "built-in splitters"),
])
def test_bad_stamp_settings_are_refused_with_the_reason(text, reason):
    with pytest.raises(SpecError, match=reason):
        SplitterSpec.parse(text)


@given(template=st.lists(st.sampled_from(["{title}", "{path}", "{version}", "{updated}", " > ", " ", "v", ";",
                                          "[ · {version}]", "[ ({updated})]", "%", "é"]), min_size=1, max_size=6))
def test_a_stamped_spec_round_trips(template):
    spec = SplitterSpec("structured", 800, address=True, stamp="".join(template))
    assert SplitterSpec.parse(str(spec)) == spec
