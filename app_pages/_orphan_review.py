"""The Orphan Test's Review tab: one chunk at a time, exactly as the embedder receives it, three
yes/no questions and a note, saved to the review store on the click. Not a page.

Context and automatic hints appear only after a chunk is answered, so they cannot sway the
answer. Ticks are copied aside on every change (``_remember``), so a run that cannot draw them
(the store down) loses nothing.
"""

import html

import streamlit as st

from app_pages import _shared
from app_pages._access import current
from app_pages._orphan_results import EVERY
from inspector.access import Action
from inspector.errors import AnswerChanged, ReviewInputError, ReviewStoreError
from inspector.review import (
    HINT_CODES,
    QUESTIONS,
    Progress,
    answer_marks,
    context,
    reviewer_problem,
    saved_message,
    summarize,
    suspects,
)
from inspector.views import chunk_card_html, page_label
from inspector.views import markdown_escape as md

QUESTION_KEYS = {q.key: f"orphan_{q.key}" for q in QUESTIONS}
HINTS_STYLE = ("<style>.ci-orphan-hints{background:#fff8e1;border-left:3px solid #e0b400;border-radius:4px;"
               "padding:6px 12px;font-family:system-ui,sans-serif;font-size:14px}"
               ".ci-orphan-hints ul{margin:4px 0 0;padding-left:20px}</style>")


def _go(where: tuple[str, str], position: int) -> None:
    """Callback of the navigation buttons: the reviewer's position in the round."""
    st.session_state.setdefault("_orphan_at", {})[where] = position


def _remember(here: tuple[str, str, int]) -> dict:
    """Copy the answer widgets aside: a run that cannot draw them (store down) must not lose them."""
    ticks = {q.key: bool(st.session_state.get(QUESTION_KEYS[q.key])) for q in QUESTIONS}
    st.session_state.setdefault("_orphan_ticks", {})[here] = {**ticks, "note": st.session_state.get("orphan_note", "")}
    return ticks


_SHOWN = object()  # save over the answer this page showed


def _save(store, review_round, chunks, round_id: str, chunk_id: str, position: int, reviewer: str,
          replacing=_SHOWN) -> None:
    """Callback of *Save answer* (and of *Replace it with mine*): store the ticks over the answer
    this page showed (``replacing``: the stamp of the one to replace instead), and the round,
    with its first answer."""
    here = (round_id, reviewer, position)
    ticks = _remember(here)
    bases = st.session_state.setdefault("_orphan_base", {})
    try:
        # The round's chunks are recorded with its first answer, so progress and trends know its size.
        if store.get_round(round_id) is None:
            store.save_round(review_round, [c.chunk.id for c in chunks])
        stored = store.save_answer(round_id, chunk_id, position, reviewer,
                                   note=st.session_state.get("orphan_note", ""), **ticks,
                                   replacing=bases.get(here) if replacing is _SHOWN else replacing)
    except AnswerChanged as exc:
        st.session_state["_orphan_conflict"] = (here, exc.stored)
        return
    except (ReviewStoreError, ReviewInputError) as exc:
        st.session_state["_orphan_save_error"] = f"Answer for chunk {position} NOT saved: {exc}"
        return
    bases[here] = stored.updated
    st.session_state.pop("_orphan_conflict", None)
    st.session_state["_orphan_saved"] = saved_message(stored)


def _keep_stored(here: tuple[str, str, int], stored) -> None:
    """Callback of *Keep the stored answer*: show it, and save over it from now on."""
    st.session_state.setdefault("_orphan_ticks", {}).pop(here, None)
    _seed(here, stored)
    st.session_state.pop("_orphan_conflict", None)


def _reveal(ctx, item) -> None:
    """The chunk's place in its document and the automatic hints (shown once it is answered)."""
    chunk = item.chunk
    document = ctx.corpus.by_id(chunk.doc_id)
    around = context(chunk, ctx.workspace)
    hints = suspects(chunk, document, ctx.workspace.analysis(document))
    with st.expander("Reveal context and automatic hints", expanded=True):
        path = " › ".join(around.heading_path) or "(no heading above it)"
        pages = f" · {page_label(around.pages)}" if around.pages else ""
        st.markdown(md(f"From {around.title} · {document.id}{pages} · section: {path}"))
        if hints:
            items = "".join(f"<li><b>{html.escape(HINT_CODES[h.code])}</b>: {html.escape(h.message)}</li>"
                            for h in hints)
            st.html(f'{HINTS_STYLE}<div class="ci-orphan-hints"><b>Automatic hints</b><ul>{items}</ul></div>')
        else:
            st.html(f'{HINTS_STYLE}<div class="ci-orphan-hints">No automatic hint for this chunk.</div>')
        left, right = st.columns(2)
        with left:
            st.html(chunk_card_html(around.previous or "", title="Previous chunk", style=False)
                    if around.previous is not None else '<div class="ci-card-none">First chunk of its document.</div>')
        with right:
            st.html(chunk_card_html(around.next or "", title="Next chunk", style=False)
                    if around.next is not None else '<div class="ci-card-none">Last chunk of its document.</div>')


def show_review(ctx, store, review_round, chunks, last_shown) -> None:
    """The Review tab. ``last_shown`` is where the previous run drew the answer widgets (None when
    it drew none): elsewhere they are seeded from the saved or remembered answer."""
    reviewer = _reviewer(ctx)
    if reviewer is None:
        return
    try:
        progress = Progress({a.position: a for a in store.answers(review_round.id, reviewer)}, len(chunks))
    except ReviewStoreError as exc:
        st.error(md(f"Your answers cannot be read: {exc}"))
        st.button("Retry", key="orphan_retry_read")
        return
    where = (review_round.id, reviewer)
    positions = st.session_state.setdefault("_orphan_at", {})
    positions.setdefault(where, progress.resume_at)  # first visit today: resume where the reviewer stopped
    pos = min(max(positions[where], 1), progress.total)
    here = (review_round.id, reviewer, pos)
    saved = progress.answers.get(pos)
    if last_shown != here:
        _seed(here, saved)
    _progress_bar(reviewer, review_round, progress)
    _team(store, review_round, reviewer, progress.total)
    _navigation(where, pos, progress)
    item = chunks[pos - 1]
    card, form = st.columns([3, 2], gap="medium")
    with card:
        st.caption("Exactly what the embedder receives. A highlighted start is the prefix the splitter "
                   "added (heading path, table header). No title, no neighbours: judge it as it is.")
        st.html(chunk_card_html(item.text[len(item.chunk.prefix):], item.chunk.prefix,
                                title=f"Chunk {pos} of {progress.total}"))
    with form:
        _answer_form(here, saved, (store, review_round, chunks, review_round.id, item.chunk.id, pos, reviewer))
    if saved is not None and saved.complete:
        _reveal(ctx, item)


def _reviewer(ctx) -> str | None:
    """Who the answers are stored under: the signed-in person, else the name widget's trimmed
    name once it is one a review can be stored under; None (said why) when this visitor may not
    review."""
    access = current(ctx)
    refusal = access.refusal(Action.REVIEW)
    if refusal:
        st.info(md(refusal))
        return None
    if access.identity.verified:
        st.caption(md(f"Reviewing as {access.identity.label}."))
        return access.identity.reviewer
    _shared.keep("orphan_reviewer", "")
    name = st.text_input("Your name", key="orphan_reviewer", persist_state="session", max_chars=80,
                         placeholder="e.g. Dana", help="Answers are stored per reviewer; use the same name "
                         "tomorrow to continue where you stopped.")
    problem = reviewer_problem(name)
    if not problem and access.signing_in and "@" in name:
        problem = "sign in to review under an e-mail address (a typed name cannot hold @)"
    if problem:
        st.warning(md(f"To start reviewing, {problem}."))
        return None
    return name.strip()


def _seed(here: tuple[str, str, int], saved) -> None:
    """Give the answer widgets the ticks last drawn here (saved or not), else the saved answer;
    a later save replaces the saved answer seen now, and only that one."""
    unsaved = st.session_state.setdefault("_orphan_ticks", {})
    bases = st.session_state.setdefault("_orphan_base", {})
    seed = unsaved.get(here)
    if seed is None or here not in bases:  # the ticks shown are the saved answer's
        bases[here] = saved.updated if saved else None
    if seed is None:
        seed = {**{q.key: bool(saved and getattr(saved, q.key)) for q in QUESTIONS},
                "note": saved.note if saved else ""}
    for q in QUESTIONS:
        st.session_state[QUESTION_KEYS[q.key]] = seed[q.key]
    st.session_state["orphan_note"] = seed["note"]


def _progress_bar(reviewer: str, review_round, progress: Progress) -> None:
    st.progress(progress.done / progress.total, text=f"**{md(reviewer)}**: {progress.done}/{progress.total} "
                                                     f"answered in round `{review_round.label}`")
    if progress.done == progress.total:
        st.success("You have answered every chunk of this round: thank you. See the Results tab; you "
                   "can still go back and change an answer.")


@st.fragment(run_every=EVERY)
def _team(store, review_round, reviewer: str, total: int) -> None:
    """Where the others stand in the round, read again every ``EVERY`` seconds."""
    try:
        others = [t for t in summarize(store.answers(review_round.id)).reviewers if t.reviewer != reviewer]
    except ReviewStoreError:
        return  # the Results tab says why the store cannot be read
    if others:
        st.caption("Also reviewing: " + " · ".join(f"{md(t.reviewer)} {t.judged}/{total}" for t in others))


def _navigation(where: tuple[str, str], pos: int, progress: Progress) -> None:
    nav = st.columns([1, 1, 1, 3])
    nav[0].button("← Previous", key="orphan_prev", disabled=pos <= 1, on_click=_go, args=(where, pos - 1),
                  width="stretch")
    nav[1].button("Next →", key="orphan_next", disabled=pos >= progress.total, on_click=_go, args=(where, pos + 1),
                  width="stretch")
    nav[2].button("Next unanswered", key="orphan_next_open", disabled=not progress.open_positions, on_click=_go,
                  args=(where, progress.next_open(pos)), width="stretch")


def _answer_form(here: tuple[str, str, int], saved, save_args: tuple) -> None:
    """The three questions, the note and the save button, with what is stored."""
    st.markdown("**Tick every statement that is true for this chunk.**  \n"
                "Ticked means *yes*; unticked means *no*. Any *no* makes it an orphan.")
    for q in QUESTIONS:
        st.checkbox(f"**{q.title}** — {q.text}", key=QUESTION_KEYS[q.key], on_change=_remember, args=(here,),
                    wrap=True)
    st.text_input("Note (optional)", key="orphan_note", max_chars=2000, on_change=_remember, args=(here,),
                  placeholder="What is missing, or why you hesitated")
    _remember(here)
    st.session_state["_orphan_shown"] = here
    answered = saved is not None and saved.complete
    st.button("Update answer" if answered else "Save answer", key="orphan_save", type="primary", on_click=_save,
              args=save_args)
    flash = st.session_state.pop("_orphan_saved", None)
    if flash:
        st.success(md(flash))
    _conflict(here, save_args)
    if not answered:
        st.caption("Not answered yet: nothing is recorded until you save. The chunk's context and "
                   "automatic hints appear after your answer, so they cannot sway it.")
    elif any(st.session_state[QUESTION_KEYS[q.key]] != getattr(saved, q.key) for q in QUESTIONS):
        st.caption(md(f"Saved answer: {answer_marks(saved)} (Address · References · Completeness). "
                      "Your ticks differ: click Update answer to change it."))


def _conflict(here: tuple[str, str, int], save_args: tuple) -> None:
    """When this tab's save met an answer saved elsewhere: both answers, and a choice."""
    found = st.session_state.get("_orphan_conflict")
    if not found or found[0] != here:
        return
    stored = found[1]
    mine = {q.key: bool(st.session_state.get(QUESTION_KEYS[q.key])) for q in QUESTIONS}
    theirs = answer_marks(stored) if stored is not None else "nothing (it was removed)"
    st.warning(md("Not saved: this answer was saved again in another tab or session since this page showed it. "
                  f"Stored: {theirs}. Yours: {' · '.join('yes' if mine[q.key] else 'no' for q in QUESTIONS)} "
                  "(Address · References · Completeness)."))
    left, right = st.columns(2)
    left.button("Replace it with mine", key="orphan_replace", on_click=_save,
                args=(*save_args, stored.updated if stored is not None else None))
    right.button("Keep the stored answer", key="orphan_keep", on_click=_keep_stored, args=(here, stored))

