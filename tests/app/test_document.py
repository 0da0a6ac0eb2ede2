"""The Document page under AppTest: the overlay's red count follows the splitter, the picker, the
second lane, and untrusted names shown as plain text. (HTML itself: the browser suite.)"""

from __future__ import annotations

from inspector import Document, Workspace, get_length
from inspector.views.frames import doc_view
from inspector.views.launch import ENV_ROOTS
from inspector.views.text import markdown_escape
from inspector.views.window import windows
from tests.support.app import (
    FIRST,
    OPENED,
    SAMPLE,
    app,
    assert_clean,
    drawing,
    errors,
    expected_cuts,
    metrics,
    plain,
    warnings,
    write_corpus,
)
from tests.support.hostile import wide_table


def test_a_first_look_opens_on_the_document_the_splitter_cuts_most():
    at = app()
    assert_clean(at)
    assert at.title[0].value == "Document"
    shown = metrics(at)
    cuts = {d.id: expected_cuts("structured:800", d) for d in SAMPLE.documents}
    assert shown["Cut atoms"] == str(max(cuts.values())) == str(cuts[OPENED.id]) != "0"
    assert OPENED.id == next(d for d, n in cuts.items() if n == max(cuts.values())), "the first of a tie"
    assert shown["Chunks"] == str(len(doc_view(Workspace(SAMPLE), OPENED, "structured:800", get_length("chars"))
                                      .result.chunks))
    assert at.query_params == {"spec": "structured:800", "doc": OPENED.id}
    overlay = drawing(at)
    assert overlay.startswith('<div class="ci-overlay"') and 'class="ci-cut' in overlay


def test_a_link_naming_its_document_opens_on_it_and_one_no_longer_there_says_so():
    at = app({"doc": FIRST.id})
    assert_clean(at)
    assert at.query_params["doc"] == FIRST.id and "# 2025 in review" in drawing(at)
    at = app({"doc": "gone/away.md"})
    assert_clean(at)
    assert any("'gone/away.md' is not in" in plain(w.value) for w in at.sidebar.warning)
    assert at.query_params["doc"] == FIRST.id


def test_a_corpus_no_splitter_cuts_opens_on_its_first_document_and_says_so(tmp_path, monkeypatch):
    folder = write_corpus(tmp_path / "plain", {"b.md": b"# B\n\nJust words here.\n", "a.md": b"# A\n\nMore words.\n"})
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"corpus": str(folder)})
    assert_clean(at)
    assert any("No atom of" in c.value and "is cut by" in c.value for c in at.sidebar.caption)
    assert at.query_params["doc"] == "a.md"


def test_changing_splitter_and_budget_changes_the_red_count_and_the_url():
    at = app()
    assert at.checkbox(key="table_header").value is True  # structured repeats headers by default
    at.selectbox(key="kind").set_value("fixed")
    at.number_input(key="budget").set_value(400)
    at.run()
    assert_clean(at)
    assert metrics(at)["Cut atoms"] == str(expected_cuts("fixed:400")) != str(expected_cuts("structured:800"))
    assert at.checkbox(key="table_header").value is False  # a new kind starts from its own defaults
    assert at.query_params["spec"] == "fixed:400"
    at.number_input(key="overlap").set_value(100).run()
    assert at.query_params["spec"] == "fixed:400/100"
    assert metrics(at)["Cut atoms"] == str(expected_cuts("fixed:400/100"))


def test_document_search_filters_the_picker():
    at = app()
    at.text_input(key="doc_filter").input("parental leave").run()
    assert at.selectbox(key="doc").options == ["Parental leave · handbook/parental-leave.md"]
    assert at.query_params["doc"] == "handbook/parental-leave.md"
    assert metrics(at)["Chunks"]


def test_titles_names_and_link_values_are_shown_as_plain_text(tmp_path, monkeypatch):
    title = "![t](https://evil.example/t.png) [click](javascript:alert(1)) <b>$x$</b>"
    name = "[y](https:evil.example).md"
    folder = write_corpus(tmp_path / "corpus", {name: f"# {title}\n\nText.".encode()})
    monkeypatch.setenv(ENV_ROOTS, str(tmp_path))
    at = app({"corpus": str(folder), "doc": "[z](https://evil.example)"})
    assert_clean(at)
    assert at.subheader[0].value == markdown_escape(title)
    assert at.caption[1].value.startswith(markdown_escape(name) + " · ")
    warning = next(w.value for w in at.warning if "is not in" in w.value)
    assert "[z](" not in warning and markdown_escape("'[z](https://evil.example)'") in warning


def test_side_by_side_draws_two_lanes_and_checks_the_second_spec():
    at = app()
    at.toggle(key="side_by_side").set_value(True).run()
    assert_clean(at)
    assert drawing(at).startswith('<div class="ci-lanes"')
    assert at.query_params["vs"] == "fixed:800"
    at.text_input(key="lane_b").input("fixed:100/200").run()
    assert any("second splitter cannot run" in e for e in errors(at))
    assert "vs" not in at.query_params
    at.text_input(key="lane_b").input("paragraph:300").run()
    assert not errors(at) and at.query_params["vs"] == "paragraph:300"
    at.switch_page("app_pages/sizes.py").run()
    at.switch_page("app_pages/document.py").run()
    assert at.toggle(key="side_by_side").value is True  # page widgets come back after a page switch
    assert at.text_input(key="lane_b").value == "paragraph:300"


def test_the_second_lane_opens_with_a_splitter_other_than_the_first():
    at = app({"spec": "fixed:400"})
    at.toggle(key="side_by_side").set_value(True).run()
    assert_clean(at)
    assert at.query_params["vs"] == "structured:400" != at.query_params["spec"]


def test_a_huge_table_cut_thousands_of_times_is_drawn_one_part_at_a_time(tmp_path, monkeypatch):
    text = wide_table()
    folder = write_corpus(tmp_path / "corpus", {"wide.md": text.encode()})
    monkeypatch.setenv(ENV_ROOTS, str(folder))
    at = app({"corpus": str(folder), "doc": "wide.md", "spec": "fixed:30"})
    assert_clean(at)
    assert metrics(at)["Chunks"] == "15010"
    parts = windows(len(text), [c.start for c in doc_view(Workspace([Document("wide.md", text)]),
                                                          Document("wide.md", text), "fixed:30",
                                                          get_length("chars")).result.chunks])
    assert at.number_input(key="doc_part").max == len(parts) > 1
    first = drawing(at)
    assert len(first) < 2_000_000 and f"Showing the first {parts[0][1]:,} of {len(text):,} characters" in first
    at.number_input(key="doc_part").set_value(3).run()
    assert_clean(at)
    assert f"Showing characters {parts[2][0] + 1:,}–{parts[2][1]:,}" in drawing(at)
    at.number_input(key="doc_cut").set_value(1).run()  # the first cut atom: the table, in part 1
    assert at.number_input(key="doc_part").value == 1


def test_an_alert_names_a_few_oversized_chunks_and_counts_the_rest(tmp_path, monkeypatch):
    lines = [("x" * 120 if i % 2 else "y") for i in range(400)]
    folder = write_corpus(tmp_path / "corpus", {"log.md": ("```\n" + "\n".join(lines) + "\n```\n").encode()})
    monkeypatch.setenv(ENV_ROOTS, str(folder))
    at = app({"corpus": str(folder), "doc": "log.md", "spec": "structured:50"})
    assert_clean(at)
    (alert,) = [w for w in warnings(at) if "exceed the budget" in w]
    assert alert.startswith("200 chunk(s) exceed the budget of 50 characters")
    assert alert.endswith(" and 192 more.") and len(alert) < 300


def test_the_document_caption_names_its_language():
    at = app({"doc": "international/ja/on-call.md"})
    assert_clean(at)
    assert " · language ja · " in at.caption[1].value
    assert " · language en · " in app().caption[1].value


def test_in_seed_mode_the_header_box_shows_what_the_articles_structured_splitter_does():
    """Seed mode's structured splitter repeats no table header unasked: the box starts unticked,
    and ticking it names the header in the link (where the default mode needs no saying)."""
    at = app({"spec": "structured:800", "mode": "seed", "doc": FIRST.id})
    assert_clean(at)
    assert at.checkbox(key="table_header").value is False
    at.checkbox(key="table_header").check().run()
    assert at.query_params["spec"] == "structured:800+header"
    assert metrics(at)["Chunks"] == str(len(doc_view(Workspace(SAMPLE, "seed"), FIRST, "structured:800+header",
                                                     get_length("chars")).result.chunks))
    at.checkbox(key="table_header").uncheck().run()
    assert at.query_params["spec"] == "structured:800"


def test_side_by_side_shows_both_lanes_tiles_and_what_b_fixes_and_breaks():
    at = app({"spec": "fixed:400", "vs": "structured:800", "doc": FIRST.id})
    assert_clean(at)
    shown = metrics(at)
    workspace = Workspace(SAMPLE)
    a = doc_view(workspace, FIRST, "fixed:400", get_length("chars"))
    b = doc_view(workspace, FIRST, "structured:800", get_length("chars"))
    assert shown["Cut atoms"] == str(len(a.cuts)) and shown["Cut atoms · b"] == str(len(b.cuts))
    assert shown["Chunks · b"] == str(len(b.result.chunks))
    keys = lambda cuts: {(c.kind, c.start, c.end) for c in cuts}
    fixed, broken = keys(a.cuts) - keys(b.cuts), keys(b.cuts) - keys(a.cuts)
    labels = [e.label for e in at.expander]
    assert f"Cut by a, whole in b ({len(fixed):,})" in labels and f"Whole in a, cut by b ({len(broken):,})" in labels
    assert fixed, "structured:800 keeps whole some atom fixed:400 cuts"
    listed = next(h.value for h in at.html if 'href="#ci-a-' in h.value and h.value.count("<li>") == len(fixed))
    assert listed.count("<li>") == len(fixed)


def test_the_strip_beside_the_text_links_every_cut_of_each_lane():
    at = app({"spec": "fixed:400", "vs": "structured:800", "doc": FIRST.id})
    assert_clean(at)
    strip = next(h.value for h in at.html if 'class="ci-strip"' in h.value)
    workspace = Workspace(SAMPLE)
    a = doc_view(workspace, FIRST, "fixed:400", get_length("chars"))
    b = doc_view(workspace, FIRST, "structured:800", get_length("chars"))
    assert strip.count('href="#ci-a-cut-') == len(a.cuts) and strip.count('href="#ci-b-cut-') == len(b.cuts)
    assert strip.count('class="ci-strip-bound"') == len(a.result.chunks) - 1 + len(b.result.chunks) - 1
    overlay = drawing(at)
    assert all(f'id="ci-a-cut-{k}"' in overlay for k in range(len(a.cuts))), "each link has its mark"
