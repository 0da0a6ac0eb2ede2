"""The Orphan Test page under AppTest: a name is required, every answer reaches the SQLite store,
a reviewer resumes where they stopped, hints wait for the answer, results add reviewers up, and a
broken store is an error message, never an exception."""

from __future__ import annotations

import html
import json
import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Workspace, load_corpus
from inspector.review.agreement import fleiss_kappa
from inspector.review.database import STORE_NAME
from inspector.review.reveal import suspects
from inspector.review.rounds import ReviewRound, draw
from inspector.review.store import ReviewStore
from tests.support.files import swap_in
from tests.support.paths import ROOT

WORKSPACE = Workspace(load_corpus(ROOT / "sample_corpus"))


ROUND = ReviewRound.create(WORKSPACE, "structured:800", size=4, seed=11)


CHUNKS = draw(ROUND, WORKSPACE)


PAGE = "app_pages/orphan_test.py"


@pytest.fixture(autouse=True)
def data_folder(isolated_app) -> pathlib.Path:
    """Each test gets its own data folder (see ``conftest.isolated_app``)."""
    return isolated_app


def open_round(review_round: ReviewRound | None = ROUND) -> AppTest:
    """The page opened from a shared link (or plainly, without a round in the link)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = review_round.spec if review_round else "structured:800"
    at.run()
    if review_round is not None:
        at.query_params.update(review_round.to_query_params())
    return at.switch_page(PAGE).run()


def as_reviewer(name: str, review_round: ReviewRound = ROUND) -> AppTest:
    at = open_round(review_round)
    at.text_input(key="orphan_reviewer").input(name).run()
    assert_clean(at)
    return at


def answer(at: AppTest, address: bool, references: bool, completeness: bool, note: str = "") -> AppTest:
    """Press Yes or No on each question, then save (which opens the next unanswered chunk)."""
    for key, value in (("address", address), ("references", references), ("completeness", completeness)):
        at.button(key=f"orphan_{key}_{'yes' if value else 'no'}").click().run()
    if note:
        at.text_input(key="orphan_note").input(note)
    at.button(key="orphan_save").click().run()
    assert_clean(at)
    return at


def go_to(at: AppTest, position: int) -> AppTest:
    """Step with the arrows to chunk ``position``."""
    for _ in range(len(CHUNKS)):
        shown = int(shown_chunk(at).split()[1])
        if shown == position:
            return at
        at.button(key="orphan_prev" if shown > position else "orphan_next").click().run()
    raise AssertionError(f"chunk {position} was never shown")


def ticks(at: AppTest) -> list[bool]:
    """The answer on the screen: which of each question's Yes / No buttons is the chosen one."""
    chosen = [(at.button(key=f"orphan_{k}_yes").proto.type, at.button(key=f"orphan_{k}_no").proto.type)
              for k in ("address", "references", "completeness")]
    assert all(sorted(pair) == ["primary", "secondary"] for pair in chosen), chosen
    return [yes == "primary" for yes, _ in chosen]


def results(at: AppTest) -> AppTest:
    """The Results tab opened (only the open tab is drawn)."""
    at.session_state["orphan_tab"] = "Results"
    return at.run()


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def shown_chunk(at: AppTest) -> str:
    titles = [m.group(1) for h in at.html for m in [re.search(r'ci-card-title" data-label="">(Chunk [^<]*)<', h.value)]
              if m]
    assert len(titles) == 1, titles
    return titles[0]


def progress_text(at: AppTest) -> str:
    return plain(at.get("progress")[0].proto.text).replace("**", "").replace("`", "")


def hint_html(at: AppTest) -> list[str]:
    return [h.value for h in at.html if "ci-orphan-hints" in h.value]


def _document_and_analysis(doc_id: str):
    document = next(d for d in WORKSPACE.documents if d.id == doc_id)
    return document, WORKSPACE.analysis(document)


def test_a_name_is_required_before_any_chunk_is_shown():
    at = open_round()
    assert_clean(at)
    assert at.title[0].value == "Orphan Test"
    assert at.query_params["round"] == ROUND.id  # the round stays in the address, to share
    assert f"round={ROUND.id}" in at.code[0].value and "rspec=structured%3A800" in at.code[0].value
    assert any("enter your name" in plain(w.value) for w in at.warning)
    assert "orphan_address" not in [c.key for c in at.checkbox]
    at.text_input(key="orphan_reviewer").input("   ").run()
    assert any("enter your name" in plain(w.value) for w in at.warning)
    assert "orphan_save" not in [b.key for b in at.button]
    at.text_input(key="orphan_reviewer").input("Dana").run()
    assert_clean(at)
    assert not at.warning
    assert shown_chunk(at) == f"Chunk 1 of {len(CHUNKS)}"
    assert progress_text(at).startswith(f"Dana: 0 of {len(CHUNKS)} answered")


def test_the_link_sets_the_round_and_the_chunk_shown_is_exactly_what_the_embedder_sees():
    other = ReviewRound.create(WORKSPACE, "fixed:400/40", size=3, seed=5, source="probe", k=3)
    at = as_reviewer("Dana", other)
    fixed = plain(" ".join(m.value for m in at.sidebar.markdown)).replace("**", "")
    assert "Chunks: 3 drawn with seed 5 from the chunks the probe retrieved" in fixed
    assert "Ranked by: bm25, top 3" in fixed and "Splitter: fixed:400/40" in fixed
    assert at.query_params["round"] == other.id
    first = draw(other, WORKSPACE)[0]
    card = next(h.value for h in at.html if "Chunk 1 of 3" in h.value)
    assert html.escape(first.text[len(first.chunk.prefix):]) in card
    assert first.chunk.doc_id not in card  # cold: no document name unless the prefix carries it


def test_a_link_whose_splitter_differs_from_the_sidebar_says_so_and_bad_links_are_refused():
    other = ReviewRound.create(WORKSPACE, "fixed:400", size=3)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = "structured:800"
    at.run()
    at.query_params.update(other.to_query_params())
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert any("not the same chunks" in plain(w.value) for w in at.warning)
    at.text_input(key="orphan_reviewer").input("Dana").run()
    assert any("not the same chunks" in plain(w.value) for w in at.warning)  # until the sidebar matches
    assert at.query_params["rspec"] == "structured:800"  # the round shown is the sidebar's, and says so

    edited = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    edited.query_params.update({**ROUND.to_query_params(), "rseed": "12"})
    edited.switch_page(PAGE).run()
    assert_clean(edited)
    assert any("round id does not match" in plain(w.value) for w in edited.warning)
    assert edited.number_input(key="orphan_seed").value == 0


def test_answers_are_saved_on_the_click_and_a_reviewer_resumes_where_they_stopped(data_folder):
    at = as_reviewer("Dana")
    answer(at, True, False, True, note="which product?")
    assert any("Saved chunk 1" in plain(s.value) and "an orphan" in plain(s.value) for s in at.success)
    with ReviewStore(data_folder / STORE_NAME) as store:
        (saved,) = store.answers(ROUND.id, "Dana")
        assert store.get_round(ROUND.id).chunk_ids == tuple(c.chunk.id for c in CHUNKS)
    assert (saved.chunk_id, saved.position) == (CHUNKS[0].chunk.id, 1)
    assert (saved.address, saved.references, saved.completeness, saved.note) == (True, False, True, "which product?")
    assert progress_text(at).startswith(f"Dana: 1 of {len(CHUNKS)}")

    tomorrow = as_reviewer("Dana")  # a new session, as after a reload
    assert shown_chunk(tomorrow) == f"Chunk 2 of {len(CHUNKS)}"
    assert progress_text(tomorrow).startswith(f"Dana: 1 of {len(CHUNKS)}")
    tomorrow.button(key="orphan_prev").click().run()
    assert shown_chunk(tomorrow) == f"Chunk 1 of {len(CHUNKS)}"
    assert ticks(tomorrow) == [True, False, True]
    assert tomorrow.text_input(key="orphan_note").value == "which product?"
    answer(tomorrow, True, True, True)  # changing one's mind updates the same row
    with ReviewStore(data_folder / STORE_NAME) as store:
        assert [(a.position, a.references) for a in store.answers(ROUND.id, "Dana")] == [(1, True)]


def test_y_and_n_answer_the_questions_in_turn_and_stop_after_the_third(data_folder):
    at = as_reviewer("Dana")
    turn_yes, turn_no = at.button(key="orphan_turn_yes"), at.button(key="orphan_turn_no")
    assert (turn_yes.proto.shortcut, turn_no.proto.shortcut) == ("y", "n")
    assert turn_yes.label == "Yes to 1"
    titles = [m.value for m in at.markdown if re.match(r"\*\*[123]\. ", m.value)]
    assert [t.endswith("\u2190 *y / n*") for t in titles] == [True, False, False]  # the question in turn
    for key in ("orphan_turn_no", "orphan_turn_yes", "orphan_turn_no"):
        at.button(key=key).click().run()
    assert ticks(at) == [False, True, False]
    assert at.button(key="orphan_turn_yes").disabled and at.button(key="orphan_turn_no").disabled
    assert any("All three given in turn" in c.value for c in at.caption)
    at.button(key="orphan_completeness_yes").click().run()  # a number key still flips one
    at.button(key="orphan_save").click().run()
    assert_clean(at)
    with ReviewStore(data_folder / STORE_NAME) as store:
        (saved,) = store.answers(ROUND.id, "Dana")
    assert (saved.address, saved.references, saved.completeness) == (False, True, True)
    assert shown_chunk(at) == f"Chunk 2 of {len(CHUNKS)}"
    assert at.button(key="orphan_turn_yes").label == "Yes to 1"  # the next chunk starts its turn again


def test_hints_and_context_appear_only_after_the_answer():
    position = next(i for i, c in enumerate(CHUNKS, 1)
                    if suspects(c.chunk, *_document_and_analysis(c.chunk.doc_id)))
    hints = suspects(CHUNKS[position - 1].chunk, *_document_and_analysis(CHUNKS[position - 1].chunk.doc_id))
    at = as_reviewer("Dana")
    for _ in range(position - 1):
        at.button(key="orphan_next").click().run()
    assert shown_chunk(at) == f"Chunk {position} of {len(CHUNKS)}"
    assert not hint_html(at)
    assert "Reveal context and automatic hints" not in [e.label for e in at.expander]
    assert not any(html.escape(h.message) in h_.value for h in hints for h_ in at.html)
    answer(at, False, True, True)
    assert shown_chunk(at) != f"Chunk {position} of {len(CHUNKS)}", "saving opens the next unanswered chunk"
    assert "Reveal context and automatic hints" not in [e.label for e in at.expander]
    go_to(at, position)
    assert "Reveal context and automatic hints" in [e.label for e in at.expander]
    (shown,) = hint_html(at)
    assert all(html.escape(h.message) in shown for h in hints)
    assert any("Previous chunk" in h.value or "Next chunk" in h.value for h in at.html)


def test_results_count_orphans_per_reviewer_and_show_disagreements():
    dana = as_reviewer("Dana")
    answer(dana, True, True, True)
    answer(dana, False, True, True)  # saving opened chunk 2
    ravi = as_reviewer("Ravi")
    assert [plain(c.value) for c in ravi.caption if c.value.startswith("Also reviewing")] == \
        [f"Also reviewing: Dana 2/{ROUND.size}"], "where the rest of the team stands, beside one's own progress"
    answer(ravi, True, False, True)
    answer(ravi, False, True, False)
    results(ravi)

    tables = [t.value for t in ravi.table]
    per_reviewer = tables[0].set_index("Reviewer")
    assert per_reviewer.loc["Dana", "Orphans"] == "1 of 2" and per_reviewer.loc["Ravi", "Orphans"] == "2 of 2"
    assert per_reviewer.loc["Ravi", "No on References"] == "1 of 2"
    assert per_reviewer.loc["Dana", "No on Address"] == "1 of 2"
    disagree = tables[1]
    assert list(disagree["Chunk"]) == [1]  # chunk 2 is an orphan to both
    assert disagree.iloc[0]["Dana"] == "yes · yes · yes" and disagree.iloc[0]["Ravi"] == "yes · no · yes"
    metrics = {m.label: m.value for m in ravi.metric}
    assert metrics["Reviewers"] == "2" and metrics["Orphan chunks, by majority"] == "1 of 2"
    # Dana 1 of 2, Ravi 2 of 2: the pooled answers, in the unit the trend's bar is labelled in.
    # The units sit in the labels: a metric's value is cut at a column's width ("3 of 4 ans…").
    assert metrics["Orphan answers, all reviewers"] == "3 of 4"
    assert any(re.search(r"read at \d\d:\d\d:\d\d, and again every 5 seconds", plain(c.value)) for c in ravi.caption)
    (bar,) = json.loads(ravi.get("plotly_chart")[0].proto.spec)["data"]
    assert bar["text"] == ["3 of 4 answers"]
    # By hand: shares 3/4 orphan, 1/4 fine, chance 10/16; observed (0 + 1) / 2; kappa = -1/3.
    assert metrics["Agreement (Fleiss' κ)"] == f"{fleiss_kappa([[1, 1], [2, 0]]):.2f}" == "-0.33"
    assert {b.label for b in ravi.get("download_button")} >= {"Answers (CSV)", "Answers (JSON)",
                                                              "Round report (Markdown)"}


def test_results_show_a_reviewer_s_change_of_mind_and_count_a_second_click():
    dana = as_reviewer("Dana")
    answer(dana, True, True, True)
    answer(go_to(dana, 1), True, True, True)  # the same answer saved again
    answer(go_to(dana, 1), True, False, True)  # a change of mind
    results(dana)
    (changes,) = [e for e in dana.expander if e.label.startswith("Changed answers")]
    assert changes.label == "Changed answers (1)"
    (table,) = [t.value for t in changes.table]
    assert list(table["Was"]) == ["yes · yes · yes"] and list(table["Now"]) == ["yes · no · yes"]
    assert list(table["Chunk"]) == [1] and list(table["Reviewer"]) == ["Dana"]
    assert any("1 save repeated the answer already saved" in plain(c.value) for c in changes.caption)


def test_a_corrupt_store_is_an_error_with_a_retry_not_a_traceback(data_folder):
    data_folder.mkdir()
    swap_in(data_folder / STORE_NAME, b"this is not an SQLite database, it only pretends " * 100)
    at = open_round()
    assert_clean(at)
    assert any("not a review store" in plain(e.value) for e in at.error), [e.value for e in at.error]
    (data_folder / STORE_NAME).unlink()
    at.button(key="orphan_retry_open").click().run()
    assert_clean(at)
    assert not at.error


def test_a_failed_save_says_so_and_keeps_the_ticks(data_folder):
    at = as_reviewer("Dana")
    at.button(key="orphan_references_no").click().run()
    store_file = data_folder / STORE_NAME
    for leftover in data_folder.glob(STORE_NAME + "-*"):
        leftover.unlink()
    swap_in(store_file, b"garbage " * 1000)  # damaged between the click and the save
    at.button(key="orphan_save").click().run()
    assert_clean(at)
    assert any("NOT saved" in plain(e.value) for e in at.error), [e.value for e in at.error]
    store_file.unlink()
    at.button(key="orphan_retry_open").click().run()
    assert_clean(at)
    assert ticks(at) == [True, False, True]  # nothing the reviewer did was lost
    at.button(key="orphan_save").click().run()
    with ReviewStore(store_file) as store:
        assert [a.references for a in store.answers(ROUND.id, "Dana")] == [False]


@pytest.mark.parametrize("change", [{"rsize": "9" * 5000}, {"rseed": "7" * 4400}, {"rk": "5" * 30},
                                    {"rspec": "fixed:" + "8" * 4500}, {"rcorpus": "ab" * 3000}])
def test_a_link_with_numbers_too_long_to_read_is_refused_not_raised(change):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.query_params.update({**ROUND.to_query_params(), **change})
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert at.warning, "the refused link says why"



def test_two_tabs_of_one_reviewer_never_overwrite_each_other_silently(data_folder):
    first, second = as_reviewer("Dana"), as_reviewer("Dana")  # two tabs: two sessions, one reviewer
    answer(first, True, True, True)
    answer(second, False, True, True)  # made over the empty answer it was shown
    assert not any("Saved chunk" in plain(s.value) for s in second.success)
    (warning,) = [plain(w.value) for w in second.warning if "Not saved" in plain(w.value)]
    assert "Stored: yes · yes · yes" in warning and "Yours: no · yes · yes" in warning
    with ReviewStore(data_folder / STORE_NAME) as store:
        assert [a.address for a in store.answers(ROUND.id, "Dana")] == [True], "the first tab's answer stands"

    second.button(key="orphan_replace").click().run()
    assert_clean(second)
    assert any("the store now holds: Address no, References yes, Completeness yes" in plain(s.value)
               for s in second.success)
    with ReviewStore(data_folder / STORE_NAME) as store:
        assert [a.address for a in store.answers(ROUND.id, "Dana")] == [False]

    assert shown_chunk(second) == f"Chunk 1 of {len(CHUNKS)}", "a replaced answer stays on the screen"
    go_to(first, 1)  # the first tab now shows the stored no · yes · yes ...
    assert ticks(first) == [False, True, True]
    answer(second, False, False, True)  # ... which the second tab changes again
    answer(first, True, False, True)  # over the answer the first tab was shown
    assert any("Stored: no · no · yes" in plain(w.value) for w in first.warning)
    first.button(key="orphan_keep").click().run()
    assert_clean(first)
    assert ticks(first) == [False, False, True] and not any("Not saved" in plain(w.value) for w in first.warning)
    answer(first, False, False, False)  # saved over what it now shows: no conflict
    with ReviewStore(data_folder / STORE_NAME) as store:
        assert [(a.address, a.references, a.completeness) for a in store.answers(ROUND.id, "Dana")] == \
            [(False, False, False)]


def test_a_round_on_a_pasted_text_offers_no_link_a_colleague_could_not_open():
    at = open_round(None)
    at.radio(key="corpus_source").set_value("paste").run()
    at.text_area(key="corpus_text").set_value(
        "# Limits\n\nThe queue holds 4,096 messages.\n\nIt drops 2% of them under load.\n").run()
    assert_clean(at)
    assert not at.code, "no share link: the pasted text is in this browser session only"
    (said,) = [c.value for c in at.caption if "No link to share" in c.value]
    assert "the pasted text" in said and "Keep the documents on this server to share the round" in said
    assert "orphan_keep_uploads" in [b.key for b in at.button], "an open server lets everyone keep them"
    at.text_input(key="orphan_reviewer").input("Dana").run()
    answer(at, True, False, True)
    assert at.query_params["corpus"] == "paste"


def test_a_round_on_a_corpus_the_server_holds_still_offers_its_link():
    at = open_round()
    assert_clean(at)
    (link,) = [c.value for c in at.code]
    assert f"round={ROUND.id}" in link and not any("No link to share" in c.value for c in at.caption)


@pytest.mark.service
def test_answers_go_to_postgresql_when_the_server_names_it(postgres_empty, monkeypatch, data_folder):
    from inspector.review import PostgresReviewStore

    monkeypatch.setenv("CHUNK_INSPECTOR_DATABASE_URL", postgres_empty)
    at = as_reviewer("Dana")
    answer(at, True, False, True, note="which product?")
    assert any("Saved chunk 1" in plain(s.value) for s in at.success)
    assert not (data_folder / STORE_NAME).exists(), "nothing written to the SQLite file"
    with PostgresReviewStore(postgres_empty) as store:
        (saved,) = store.answers(ROUND.id, "Dana")
        assert store.get_round(ROUND.id).chunk_ids == tuple(c.chunk.id for c in CHUNKS)
    assert (saved.position, saved.address, saved.references, saved.note) == (1, True, False, "which product?")
    assert progress_text(as_reviewer("Dana")).startswith(f"Dana: 1 of {len(CHUNKS)}")  # a replica reads it back
