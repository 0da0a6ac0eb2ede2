"""The Ask page under AppTest: a question typed at two splitters, each one's chunks and where
the answer lands, the question and quote kept in the link, bad input said in a message."""

from __future__ import annotations

import html

from tests.support.app import app, assert_clean, errors, plain

PAGE = "app_pages/ask.py"
HOLIDAYS = "How many public holidays does the Singapore office observe in 2026?"
SINGAPORE = "Singapore | 11 | next working day | Lunar New Year eve (half)"


def opened(params: dict):
    at = app(params)
    at.switch_page(PAGE).run()
    assert_clean(at)
    return at


def _cards(at) -> str:
    return "".join(h.proto.body for h in at.get("html"))


def test_a_linked_question_shows_the_row_cut_by_one_splitter_and_whole_in_the_other():
    at = opened({"spec": "structured:800", "ask": HOLIDAYS, "quote": SINGAPORE, "vs": "fixed:300"})
    assert at.text_input(key="ask_page_question").value == HOLIDAYS
    assert [plain(s.value) for s in at.success] == ["The quote is whole in chunk 1."]
    assert [plain(e.value) for e in at.error] == ["The quote is cut: chunk 1 holds only part of it."]
    cards = _cards(at)
    assert cards.count('class="ci-card"') == 10 and 'mark class="ci-quote"' in cards
    assert html.escape("Singapore | 11 | next working day") in cards
    assert at.query_params["ask"] == HOLIDAYS and at.query_params["quote"] == SINGAPORE


def test_typing_a_question_asks_it_and_puts_it_in_the_link():
    at = opened({"spec": "structured:800"})
    assert not _cards(at).count('class="ci-card"')
    at.text_input(key="ask_page_question").input("Which port does the admin API use?").run()
    at.number_input(key="ask_page_k").set_value(3).run()
    assert_clean(at)
    assert _cards(at).count('class="ci-card"') == 6 and at.query_params["ask"] == "Which port does the admin API use?"
    at.text_input(key="ask_page_question").input("").run()
    assert "ask" not in at.query_params


def test_a_question_or_quote_it_cannot_use_is_said_and_nothing_breaks():
    at = opened({"ask": "?!…"})
    assert errors(at) == ["This question cannot be asked: the question has no word to search for."]
    at = opened({"ask": HOLIDAYS, "quote": "words in no document zzz"})
    assert any("is in no document of the corpus" in plain(w.value) for w in at.warning)
    assert _cards(at).count('class="ci-card"') == 10, "the chunks are still shown"
    at = opened({"ask": "a" * 3000})
    assert "at most 2,000 characters" in errors(at)[0]


def test_the_document_page_asks_the_linked_question_of_both_lanes():
    at = app({"spec": "structured:800", "vs": "fixed:300", "ask": HOLIDAYS, "quote": SINGAPORE})
    assert_clean(at)
    assert at.text_input(key="doc_question").value == HOLIDAYS
    assert [plain(s.value) for s in at.success if "quote" in s.value] == ["The quote is whole in chunk 1."]
    assert "The quote is cut: chunk 1 holds only part of it." in [plain(e.value) for e in at.error]
