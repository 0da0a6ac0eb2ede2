"""The Orphan Test's answer form: three Yes / No questions, the note, and the save that opens the
next unanswered chunk. Not a page.

The answer being given is a ``Draft`` kept in the session per chunk (``_orphan_ticks``), so a run
that cannot save it (the store down) loses nothing. A save replaces the stored answer this page
showed and only that one: an answer saved meanwhile in another tab is shown beside this one, with
a choice, never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from app_pages.orphan.rounds import hold
from inspector.errors import AnswerChanged, ReviewInputError, ReviewStoreError
from inspector.review import QUESTIONS, Draft, answer_marks, saved_message
from inspector.views import HeldRound
from inspector.views import markdown_escape as md

Here = tuple[str, str, int]
"""A chunk as one reviewer sees it: round id, reviewer, position."""

#: Set by a save whose outcome shows outside the Review tab's fragment (the sidebar's held round,
#: a message above the tabs): the tab then reruns the whole page.
WHOLE_PAGE = "_orphan_whole_page"


@dataclass(frozen=True)
class SaveTarget:
    """Where the answer on the screen is saved, and where the reviewer goes after."""

    store: object
    held: HeldRound
    review_round: object
    chunks: tuple
    chunk_id: str
    here: Here
    go_to: int
    """The position opened after saving (the next unanswered chunk; ``here``'s own when none)."""


def go(where: tuple[str, str], position: int) -> None:
    """Callback of the navigation buttons: the reviewer's position in the round."""
    st.session_state.setdefault("_orphan_at", {})[where] = position


def _draft(here: Here) -> Draft:
    return st.session_state.setdefault("_orphan_ticks", {}).setdefault(here, Draft())


def _flip(here: Here, key: str, value: bool) -> None:
    """Callback of a Yes or No button (and of keys 1, 2, 3)."""
    _draft(here).flip(key, value)


def _in_turn(here: Here, value: bool) -> None:
    """Callback of keys y and n."""
    _draft(here).answer_in_turn(value)


def _noted(here: Here) -> None:
    """Callback of the note."""
    _draft(here).note = st.session_state.get("orphan_note", "")


_SHOWN = object()  # save over the answer this page showed


def _save(target: SaveTarget, move: bool = True, replacing=_SHOWN) -> None:
    """Callback of *Save* (and of *Replace it with mine*): store the answer over the one this page
    showed (``replacing``: the stamp of the one to replace instead), and the round with its first
    answer; then hold the round on the page and, with ``move``, open ``target.go_to``."""
    here = target.here
    round_id, reviewer, position = here
    draft = _draft(here)
    if st.session_state.get("_orphan_shown") == here:  # the note as typed, committed or not
        draft.note = st.session_state.get("orphan_note", draft.note)
    bases = st.session_state.setdefault("_orphan_base", {})
    store = target.store
    try:
        # The round's chunks are recorded with its first answer, so progress and trends know its size.
        deleted = False
        if store.get_round(round_id) is None:
            deleted = any(stamp for (round_of, *_), stamp in bases.items() if round_of == round_id)
            store.save_round(target.review_round, [c.chunk.id for c in target.chunks])
        stored = store.save_answer(round_id, target.chunk_id, position, reviewer, note=draft.note, **draft.said,
                                   replacing=bases.get(here) if replacing is _SHOWN else replacing)
    except AnswerChanged as exc:
        st.session_state["_orphan_conflict"] = (here, exc.stored)
        return
    except (ReviewStoreError, ReviewInputError) as exc:
        st.session_state["_orphan_save_error"] = f"Answer for chunk {position} NOT saved: {exc}"
        st.session_state[WHOLE_PAGE] = True
        return
    if hold(target.held):  # answering starts the round: from now on it stays on the screen
        st.session_state[WHOLE_PAGE] = True
    bases[here] = stored.updated
    st.session_state.pop("_orphan_conflict", None)
    st.session_state["_orphan_ticks"].pop(here, None)  # the store holds it now
    moved = move and target.go_to != position
    if deleted:  # an admin deleted the round, with its answers, while this reviewer was on it
        st.session_state["_orphan_round_gone"] = (
            f"Round {round_id} was deleted while you reviewed it, with every answer given in it: it starts again "
            f"with this answer (chunk {position}), saved.")
        st.session_state[WHOLE_PAGE] = True
    st.session_state["_orphan_saved"] = saved_message(stored) + (
        f" Press \u2190 (or go back to chunk {position}) to see its context and hints." if moved else "")
    if moved:
        go((round_id, reviewer), target.go_to)


def _keep_stored(here: Here, stored) -> None:
    """Callback of *Keep the stored answer*: show it, and save over it from now on."""
    st.session_state.setdefault("_orphan_ticks", {}).pop(here, None)
    seed(here, stored, shown=None)
    st.session_state.pop("_orphan_conflict", None)


def seed(here: Here, saved, *, shown) -> Draft:
    """The answer being given on ``here``: one not saved yet, else the saved answer, else every
    question *yes*; a later save replaces the saved answer seen now, and only that one. The note
    widget gets its value unless the previous run drew it here (``shown``)."""
    drafts = st.session_state.setdefault("_orphan_ticks", {})
    bases = st.session_state.setdefault("_orphan_base", {})
    if here not in drafts or here not in bases:
        bases[here] = saved.updated if saved else None
    if here not in drafts:
        drafts[here] = Draft.of(saved)
    if shown != here:
        st.session_state["orphan_note"] = drafts[here].note
    return drafts[here]


def answer_form(target: SaveTarget, saved, draft: Draft) -> None:
    """The three questions as Yes / No buttons, y / n in turn, the note and the save button, with
    what is stored."""
    here = target.here
    st.markdown("**Is each statement true for this chunk?** Any *no* makes it an orphan.  \n"
                "Each starts at *yes*: press **1**, **2** or **3** to flip one (or **y** / **n** to answer them "
                "in turn), **Enter** to save and open the next unanswered chunk, **\u2190 \u2192** to move.")
    turn = draft.in_turn
    for number, q in enumerate(QUESTIONS, 1):
        with st.container(key=f"orphan_question_{q.key}"):  # the question, then its two buttons at full width
            st.markdown(f"**{number}. {q.title}** — {q.text}" + ("  \u2190 *y / n*" if q is turn else ""))
            yes, no = st.columns(2)
        answer = draft.said[q.key]
        yes.button("Yes", key=f"orphan_{q.key}_yes", type="primary" if answer else "secondary", on_click=_flip,
                   args=(here, q.key, True), shortcut=None if answer else str(number), width="stretch")
        no.button("No", key=f"orphan_{q.key}_no", type="secondary" if answer else "primary", on_click=_flip,
                  args=(here, q.key, False), shortcut=str(number) if answer else None, width="stretch")
    _turn_keys(here, draft)
    st.text_input("Note (optional)", key="orphan_note", max_chars=2000, on_change=_noted, args=(here,),
                  placeholder="What is missing, or why you hesitated")
    st.session_state["_orphan_shown"] = here
    answered = saved is not None and saved.complete
    moves = target.go_to != here[2]
    st.button(("Update" if answered else "Save") + (" and go to the next unanswered" if moves else ""),
              key="orphan_save", type="primary", on_click=_save, args=(target,), shortcut="Enter")
    flash = st.session_state.pop("_orphan_saved", None)
    if flash:
        st.success(md(flash))
    _conflict(target, draft)
    if not answered:
        st.caption(md(f"Not saved yet: Enter saves {draft.marks}. The chunk's context and automatic hints appear "
                      "once it is answered, so they cannot sway the answer."))
    elif draft.differs_from(saved):
        st.caption(md(f"Saved answer: {answer_marks(saved)}; this one ({draft.marks}) is not saved: Enter "
                      "updates it."))
    else:
        st.caption(md(f"Saved: {answer_marks(saved)} (Address · References · Completeness)."))


def _turn_keys(here: Here, draft: Draft) -> None:
    """``y`` and ``n``: answer the question in turn (marked in its title) and move to the next."""
    turn = draft.in_turn
    number = QUESTIONS.index(turn) + 1 if turn else None
    with st.container(key="orphan_in_turn", horizontal=True, vertical_alignment="center"):
        st.caption(f"In turn: question {number}, {turn.title}" if turn else "All three given in turn: Enter saves.")
        st.button(f"Yes to {number}" if turn else "Yes", key="orphan_turn_yes", on_click=_in_turn,
                  args=(here, True), shortcut="y", disabled=turn is None)
        st.button(f"No to {number}" if turn else "No", key="orphan_turn_no", on_click=_in_turn,
                  args=(here, False), shortcut="n", disabled=turn is None)


def _conflict(target: SaveTarget, draft: Draft) -> None:
    """When this tab's save met an answer saved elsewhere: both answers, and a choice."""
    found = st.session_state.get("_orphan_conflict")
    if not found or found[0] != target.here:
        return
    stored = found[1]
    theirs = answer_marks(stored) if stored is not None else "nothing (it was removed)"
    st.warning(md("Not saved: this answer was saved again in another tab or session since this page showed it. "
                  f"Stored: {theirs}. Yours: {draft.marks} (Address · References · Completeness)."))
    left, right = st.columns(2)
    left.button("Replace it with mine", key="orphan_replace", on_click=_save,
                args=(target, False, stored.updated if stored is not None else None))
    right.button("Keep the stored answer", key="orphan_keep", on_click=_keep_stored, args=(target.here, stored))
