"""A held Orphan Test round names its fixed settings, and the sidebar settings it keeps draw it."""

from __future__ import annotations

from inspector.review.rounds import ReviewRound
from inspector.views import AppState, HeldRound
from tests.support.review import ROUND


def test_a_held_round_lists_its_settings_and_keeps_the_document_out_of_them():
    state = AppState(doc="a.md")
    held = HeldRound(ROUND, state, "the bundled sample corpus")
    settings = dict(held.settings())
    assert settings["Corpus"] == "the bundled sample corpus" and settings["Round"] == ROUND.id
    assert settings["Splitter"] == ROUND.spec and "Ranked by" not in settings
    assert held.viewing("b.md") == AppState(doc="b.md")
    assert held.corpus_source() == "sample"
    assert HeldRound(ROUND, AppState(corpus="/data/docs"), "/data/docs").corpus_source() == "folder"


def test_a_probe_round_says_what_ranked_its_chunks():
    probe = ReviewRound(ROUND.corpus, "fixed:400", size=7, seed=2, source="probe", k=3, retriever="bm25")
    settings = dict(HeldRound(probe, AppState(), "x").settings())
    assert settings["Chunks"] == "7 drawn with seed 2 from the chunks the probe retrieved"
    assert settings["Ranked by"] == "bm25, top 3"
