"""The Orphan Test's round held on the screen and answered by key: once opened from its link or
answered, the sidebar shows the round's settings instead of widgets, every answer goes to that
round whatever else the reviewer does, and one way out says where the answers stay."""

from __future__ import annotations

import html

import pytest
from streamlit.testing.v1 import AppTest

from inspector.review.database import STORE_NAME
from inspector.review.store import ReviewStore
from tests.app.test_orphan_test import (
    CHUNKS,
    PAGE,
    ROUND,
    WORKSPACE,
    answer,
    as_reviewer,
    assert_clean,
    go_to,
    plain,
    shown_chunk,
    ticks,
)
from tests.support.paths import ROOT

ROUND_WIDGETS = ("kind", "unit", "budget", "overlap", "heading_prefix", "table_header", "address", "corpus_source",
                 "mode")


@pytest.fixture(autouse=True)
def data_folder(isolated_app):
    """Each test gets its own data folder."""
    return isolated_app


def sidebar_keys(at: AppTest) -> set[str]:
    return {w.key for kind in ("selectbox", "number_input", "checkbox", "radio", "text_input")
            for w in getattr(at.sidebar, kind)}


def fixed_settings(at: AppTest) -> str:
    return plain(" ".join(m.value for m in at.sidebar.markdown)).replace("**", "")


def stored_rounds(data_folder) -> dict[str, int]:
    with ReviewStore(data_folder / STORE_NAME) as store:
        return {r.id: len(store.answers(r.id)) for r in store.rounds()}


def test_a_round_opened_from_its_link_stays_whatever_the_sidebar_did_elsewhere(isolated_app):
    at = as_reviewer("Dana")
    assert not sidebar_keys(at) & set(ROUND_WIDGETS), "the round's settings are shown, not offered"
    assert f"Round: {ROUND.id}" in fixed_settings(at) and "Splitter: structured:800" in fixed_settings(at)
    answer(at, True, False, True)

    at.switch_page("app_pages/document.py").run()  # elsewhere the sidebar is live, as before
    assert_clean(at)
    assert set(ROUND_WIDGETS) <= sidebar_keys(at)
    at.number_input(key="budget").set_value(400).run()
    at.checkbox(key="address").check().run()
    assert at.query_params["spec"] != ROUND.spec

    at.switch_page(PAGE).run()
    assert_clean(at)
    assert f"Round: {ROUND.id}" in fixed_settings(at)
    assert shown_chunk(at) == f"Chunk 2 of {len(CHUNKS)}"
    answer(at, False, True, True)
    assert at.query_params["round"] == ROUND.id and at.query_params["spec"] == ROUND.spec
    assert stored_rounds(isolated_app) == {ROUND.id: 2}, "both answers in the round of the link"

    at.switch_page("app_pages/document.py").run()
    assert at.number_input(key="budget").value == 400, "the sidebar elsewhere kept what was set there"


def test_a_round_is_held_from_its_first_answer_until_another_is_started(isolated_app):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = ROUND.spec
    at.run()
    at.switch_page(PAGE).run()
    at.text_input(key="orphan_reviewer").input("Dana").run()
    at.number_input(key="orphan_size").set_value(ROUND.size).run()
    at.number_input(key="orphan_seed").set_value(ROUND.seed).run()
    assert set(ROUND_WIDGETS) <= sidebar_keys(at), "no round is held before an answer"
    assert at.query_params["round"] == ROUND.id
    answer(at, True, True, True)
    assert not sidebar_keys(at) & set(ROUND_WIDGETS)
    assert "orphan_size" not in [n.key for n in at.number_input], "nor the round's own settings"

    at.button(key="orphan_another").click().run()
    assert_clean(at)
    (left,) = [plain(s.value) for s in at.success if "You left round" in plain(s.value)]
    assert ROUND.id in left and "stays in that round" in left and f"round={ROUND.id}" in left
    assert set(ROUND_WIDGETS) <= sidebar_keys(at)
    assert at.number_input(key="budget").value == 800 and at.selectbox(key="kind").value == "structured"
    at.number_input(key="orphan_seed").set_value(ROUND.seed + 1).run()
    assert at.query_params["round"] != ROUND.id
    answer(at, True, True, True)
    assert stored_rounds(isolated_app) == {ROUND.id: 1, at.query_params["round"]: 1}


def test_one_key_per_answer_and_the_unanswered_listed(isolated_app):
    at = as_reviewer("Dana")
    buttons = {b.key: b.proto for b in at.button}
    assert (buttons["orphan_save"].shortcut, buttons["orphan_prev"].shortcut, buttons["orphan_next"].shortcut) == \
        ("enter", "left", "right")
    assert ticks(at) == [True, True, True], "each question starts at yes"
    assert [buttons[f"orphan_{k}_no"].shortcut for k in ("address", "references", "completeness")] == ["1", "2", "3"]
    at.button(key="orphan_references_no").click().run()  # what key 2 presses
    assert ticks(at) == [True, False, True]
    flip = {b.key: b.proto.shortcut for b in at.button}
    assert flip["orphan_references_yes"] == "2" and not flip["orphan_references_no"], "2 flips it back"
    assert any("Enter saves yes · no · yes" in plain(c.value) for c in at.caption)
    at.button(key="orphan_save").click().run()
    assert shown_chunk(at) == f"Chunk 2 of {len(CHUNKS)}"
    go_to(at, 4)
    answer(at, True, True, True)
    assert shown_chunk(at) == f"Chunk 2 of {len(CHUNKS)}", "after the last chunk, the first one still open"
    assert any(plain(c.value) == "Not answered yet: 2–3." for c in at.caption)
    answer(at, True, True, True)
    answer(at, False, False, False)
    assert shown_chunk(at) == f"Chunk 3 of {len(CHUNKS)}", "every chunk answered: the last saved stays"
    assert any("answered every chunk" in plain(s.value) for s in at.success)
    with ReviewStore(isolated_app / STORE_NAME) as store:
        assert [(a.position, a.references) for a in store.answers(ROUND.id, "Dana")] == \
            [(1, False), (2, True), (3, False), (4, True)]


def test_a_name_with_markup_is_shown_as_text_and_kept_by_the_browser_as_a_string():
    name = '</script><img src=x onerror=alert(1)> "Zoë"'
    at = as_reviewer(name)
    assert "orphan_reviewer" not in [t.key for t in at.text_input], "the box goes once a name is given"
    assert any(f"Reviewing as {name};" in plain(c.value).replace("**", "") for c in at.caption)
    (script,) = [h.value for h in at.html if "document.cookie" in h.value]
    assert "</script><img" not in script and "\\u003c/script\\u003e\\u003cimg" in script
    assert html.escape(name) not in script, "a string in a script, not HTML"
    at.button(key="orphan_rename").click().run()
    assert at.text_input(key="orphan_reviewer").value == name
    long = as_reviewer_refused("x" * 10_000)  # the box holds 80 characters: nothing longer comes through
    assert any("To start reviewing" in plain(w.value) for w in long.warning)


def as_reviewer_refused(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = ROUND.spec
    at.run()
    at.query_params.update(ROUND.to_query_params())
    at.switch_page(PAGE).run()
    at.text_input(key="orphan_reviewer").input(name).run()
    assert_clean(at)
    assert "orphan_save" not in [b.key for b in at.button]
    return at


def test_a_round_deleted_while_it_is_reviewed_says_so_and_starts_again_with_the_answer(isolated_app):
    at = as_reviewer("Dana")
    answer(at, True, True, True)
    with ReviewStore(isolated_app / STORE_NAME) as store:
        store.delete_round(ROUND.id)
    answer(at, False, True, True)
    (said,) = [plain(w.value) for w in at.warning if "was deleted" in plain(w.value)]
    assert f"Round {ROUND.id} was deleted while you reviewed it" in said and "chunk 2" in said
    with ReviewStore(isolated_app / STORE_NAME) as store:
        assert [(a.position, a.address) for a in store.answers(ROUND.id)] == [(2, False)]
    assert f"Round: {ROUND.id}" in fixed_settings(at), "still the round on the screen"


def test_an_admin_asks_a_chat_model_to_review_and_sees_it_against_the_team(isolated_app, monkeypatch):
    from tests.app.test_orphan_test import results
    from tests.support.chat import ChatServer, judge

    with ChatServer() as server:
        monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_URL", server.url)
        monkeypatch.setenv("CHUNK_INSPECTOR_CONTEXT_MODEL", "judge-1")
        for name in ("Dana", "Ravi"):
            at = as_reviewer(name)
            for chunk in CHUNKS:  # both answer as the model's rule does, but Ravi says no on every address
                said = {k: v == "yes" for k, v in judge(chunk.text).items()}
                answer(at, said["address"] and name == "Dana", said["references"], said["completeness"])
        results(at)
        assert_clean(at)
        (panel,) = [e for e in at.expander if e.label == "A chat model as one more reviewer"]
        assert any(f"{len(CHUNKS)} chunks, 0 already answered by judge-1: {len(CHUNKS)} prompts to send"
                   in plain(m.value) for m in panel.markdown)
        assert server.prompts == [], "nothing is sent before the click"
        at.button(key="orphan_ask_model").click().run()
        assert_clean(at)
        assert len(server.prompts) == len(CHUNKS)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["Reviewer"] == "model: judge-1"
        at.run()
        assert "orphan_ask_model" not in [b.key for b in at.button], "every answer kept: nothing left to ask"
        assert len(server.prompts) == len(CHUNKS), "nothing asked twice"

        # With the agreement known, more chunks of the corpus: the orphan rate as the model answers it.
        from inspector.review.model_review import sampled_chunks

        sample = sampled_chunks(ROUND, WORKSPACE, 10)
        at.number_input(key="orphan_model_sample").set_value(10).run()
        assert_clean(at)
        (panel,) = [e for e in at.expander if e.label == "A chat model as one more reviewer"]
        assert any(f"{len(CHUNKS) + 10} chunks, {len(CHUNKS)} already answered by judge-1: 10 prompts to send"
                   in plain(m.value) for m in panel.markdown)
        at.button(key="orphan_ask_model").click().run()
        assert_clean(at)
        assert len(server.prompts) == len(CHUNKS) + 10
        orphans = sum("no" in judge(c.text).values() for c in sample)
        said = " ".join(m.value for m in at.markdown)
        assert (f"10 more chunks drawn by the round's definition with seed {ROUND.seed + 1}: **{orphans} of 10** "
                "answered are orphans") in said
