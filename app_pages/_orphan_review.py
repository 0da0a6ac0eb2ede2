"""The Orphan Test's Review tab: one chunk at a time, exactly as the embedder receives it, three
yes/no questions and a note, saved to the review store on the click. Not a page.

One key per answer: each question starts at *yes* and `1`, `2`, `3` flip it, `Enter` saves and
opens the next unanswered chunk, `←` and `→` move. Context and automatic hints appear only once a
chunk is answered (go back to it), so they cannot sway the answer. The answer being given is kept
in the session per chunk (``_orphan_ticks``), so a run that cannot save it (the store down) loses
nothing. A typed reviewer name is remembered by the browser in a cookie.
"""

import html
import json
from urllib.parse import unquote

import streamlit as st

from app_pages import _shared
from app_pages._access import current
from app_pages._orphan_results import EVERY
from app_pages._orphan_round import hold
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
from inspector.views import HeldRound, chunk_card_html, page_label
from inspector.views import markdown_escape as md

#: A chunk's answer before any key is pressed: each question starts at yes.
DEFAULT_ANSWER = {**{q.key: True for q in QUESTIONS}, "note": ""}
#: The cookie in which a browser remembers its reviewer's name.
REVIEWER_COOKIE = "chunk_inspector_reviewer"
#: The name this session reviews under, once given (the name box is then put away).
NAMED = "_orphan_named"
HINTS_STYLE = ("<style>.ci-orphan-hints{background:#fff8e1;border-left:3px solid #e0b400;border-radius:4px;"
               "padding:6px 12px;font-family:system-ui,sans-serif;font-size:14px}"
               ".ci-orphan-hints ul{margin:4px 0 0;padding-left:20px}</style>")


def _go(where: tuple[str, str], position: int) -> None:
    """Callback of the navigation buttons: the reviewer's position in the round."""
    st.session_state.setdefault("_orphan_at", {})[where] = position


def _draft(here: tuple[str, str, int]) -> dict:
    """The answer being given on chunk ``here``: the three questions and the note."""
    return st.session_state.setdefault("_orphan_ticks", {}).setdefault(here, dict(DEFAULT_ANSWER))


def _flip(here: tuple[str, str, int], key: str, value: bool) -> None:
    """Callback of a Yes or No button (and of keys 1, 2, 3)."""
    _draft(here)[key] = value


def _noted(here: tuple[str, str, int]) -> None:
    """Callback of the note."""
    _draft(here)["note"] = st.session_state.get("orphan_note", "")


_SHOWN = object()  # save over the answer this page showed


def _save(store, held, review_round, chunks, round_id: str, chunk_id: str, position: int, reviewer: str,
          go_to: int | None = None, replacing=_SHOWN) -> None:
    """Callback of *Save* (and of *Replace it with mine*): store the answer over the one this page
    showed (``replacing``: the stamp of the one to replace instead), and the round with its first
    answer; then hold the round on the page and go to ``go_to`` (None: stay)."""
    here = (round_id, reviewer, position)
    draft = _draft(here)
    if st.session_state.get("_orphan_shown") == here:  # the note as typed, committed or not
        draft["note"] = st.session_state.get("orphan_note", draft["note"])
    bases = st.session_state.setdefault("_orphan_base", {})
    try:
        # The round's chunks are recorded with its first answer, so progress and trends know its size.
        deleted = False
        if store.get_round(round_id) is None:
            deleted = any(stamp for (round_of, *_), stamp in bases.items() if round_of == round_id)
            store.save_round(review_round, [c.chunk.id for c in chunks])
        stored = store.save_answer(round_id, chunk_id, position, reviewer, note=draft["note"],
                                   **{q.key: draft[q.key] for q in QUESTIONS},
                                   replacing=bases.get(here) if replacing is _SHOWN else replacing)
    except AnswerChanged as exc:
        st.session_state["_orphan_conflict"] = (here, exc.stored)
        return
    except (ReviewStoreError, ReviewInputError) as exc:
        st.session_state["_orphan_save_error"] = f"Answer for chunk {position} NOT saved: {exc}"
        return
    hold(held)  # answering starts the round: from now on it stays on the screen
    bases[here] = stored.updated
    st.session_state.pop("_orphan_conflict", None)
    st.session_state["_orphan_ticks"].pop(here, None)  # the store holds it now
    moved = go_to is not None and go_to != position
    if deleted:  # an admin deleted the round, with its answers, while this reviewer was on it
        st.session_state["_orphan_round_gone"] = (
            f"Round {round_id} was deleted while you reviewed it, with every answer given in it: it starts again "
            f"with this answer (chunk {position}), saved.")
    st.session_state["_orphan_saved"] = saved_message(stored) + (
        f" Press \u2190 (or go back to chunk {position}) to see its context and hints." if moved else "")
    if moved:
        _go((round_id, reviewer), go_to)


def _keep_stored(here: tuple[str, str, int], stored) -> None:
    """Callback of *Keep the stored answer*: show it, and save over it from now on."""
    st.session_state.setdefault("_orphan_ticks", {}).pop(here, None)
    _seed(here, stored, shown=None)
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
    """The Review tab. ``last_shown`` is the chunk whose note the previous run drew (None when it
    drew none): elsewhere the note is seeded from the answer being given."""
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
    draft = _seed(here, saved, shown=last_shown)
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
    held = ctx.held or HeldRound(review_round, ctx.state, ctx.corpus_label, ctx.uploaded)
    with form:
        _answer_form(here, saved, draft, (store, held, review_round, chunks, review_round.id, item.chunk.id, pos,
                                          reviewer, progress.after_saving(pos)))
    if saved is not None and saved.complete:
        _reveal(ctx, item)


def _reviewer(ctx) -> str | None:
    """Who the answers are stored under: the signed-in person, else the name widget's trimmed
    name once it is one a review can be stored under; None (said why) when this visitor may not
    review. A typed name is remembered by this browser."""
    access = current(ctx)
    refusal = access.refusal(Action.REVIEW)
    if refusal:
        st.info(md(refusal))
        return None
    if access.identity.verified:
        st.caption(md(f"Reviewing as {access.identity.label}."))
        return access.identity.reviewer
    if NAMED not in st.session_state and _remembered_name() and not st.session_state.get("_orphan_forget"):
        st.session_state[NAMED] = _remembered_name()
    named = st.session_state.get(NAMED)
    if named:
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.caption(f"Reviewing as **{md(named)}**; this browser remembers the name, so the answers stay "
                     "yours tomorrow.")
        right.button("Not you?", key="orphan_rename", on_click=_rename, help="Review under another name.")
        _remember_name(named)
        return named
    _shared.keep("orphan_reviewer", "")
    name = st.text_input("Your name", key="orphan_reviewer", max_chars=80, on_change=_named, args=(access,),
                         placeholder="e.g. Dana", help="Answers are stored per reviewer; this browser remembers "
                         "the name, and the same name tomorrow continues where you stopped.")
    problem = _name_problem(name, access)
    if not problem:  # a name given before its box had a callback (or given back by *Not you?*)
        st.session_state[NAMED] = name.strip()
        return name.strip()
    st.warning(md(f"To start reviewing, {problem}."))
    return None


def _name_problem(name: str, access) -> str | None:
    problem = reviewer_problem(name)
    if not problem and access.signing_in and "@" in name:
        problem = "sign in to review under an e-mail address (a typed name cannot hold @)"
    return problem


def _named(access) -> None:
    """Callback of the name box: a name answers can be stored under is taken, and the box goes
    (so the keys that answer reach the page, not the box)."""
    name = st.session_state.get("orphan_reviewer", "")
    if not _name_problem(name, access):
        st.session_state[NAMED] = name.strip()


def _rename() -> None:
    """Callback of *Not you?*: the name box again, holding the name."""
    st.session_state["orphan_reviewer"] = st.session_state.pop(NAMED, "")
    st.session_state["_orphan_forget"] = True  # the browser's remembered name is not taken again


def _remembered_name() -> str:
    """The reviewer name this browser's cookie holds ("" when none, or one that is refused)."""
    try:
        name = unquote(st.context.cookies.get(REVIEWER_COOKIE, "") or "")
    except (AttributeError, RuntimeError):  # no browser behind this run
        return ""
    return "" if reviewer_problem(name) else name.strip()


def _remember_name(name: str) -> None:
    """Have the browser keep ``name`` for the next visit (once per name and session)."""
    if st.session_state.get("_orphan_cookie") == name or _remembered_name() == name:
        return
    st.session_state["_orphan_cookie"] = name
    # JSON escapes quotes and line separators; < > & are escaped too, so nothing can close the script.
    value = json.dumps(name).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    st.html(f"<script>document.cookie = '{REVIEWER_COOKIE}=' + encodeURIComponent({value}) + "
            f"'; path=/; max-age={365 * 24 * 3600}; SameSite=Strict';</script>", unsafe_allow_javascript=True)


def _seed(here: tuple[str, str, int], saved, *, shown) -> dict:
    """The answer being given on ``here``: one not saved yet, else the saved answer, else every
    question *yes*; a later save replaces the saved answer seen now, and only that one. The note
    widget gets its value unless the previous run drew it here (``shown``)."""
    drafts = st.session_state.setdefault("_orphan_ticks", {})
    bases = st.session_state.setdefault("_orphan_base", {})
    if here not in drafts or here not in bases:
        bases[here] = saved.updated if saved else None
    if here not in drafts:
        drafts[here] = dict(DEFAULT_ANSWER) if saved is None else {
            **{q.key: getattr(saved, q.key) is not False for q in QUESTIONS}, "note": saved.note}
    if shown != here:
        st.session_state["orphan_note"] = drafts[here]["note"]
    return drafts[here]


def _progress_bar(reviewer: str, review_round, progress: Progress) -> None:
    st.progress(progress.done / progress.total, text=f"**{md(reviewer)}**: {progress.done} of {progress.total} "
                                                     f"answered in round `{review_round.label}`")
    if progress.done == progress.total:
        st.success("You have answered every chunk of this round: thank you. See the Results tab; you "
                   "can still go back and change an answer.")
    else:
        st.caption(f"Not answered yet: {progress.open_ranges()}.")


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
                  width="stretch", shortcut="Left")
    nav[1].button("Next →", key="orphan_next", disabled=pos >= progress.total, on_click=_go, args=(where, pos + 1),
                  width="stretch", shortcut="Right")
    nav[2].button("Next unanswered", key="orphan_next_open", disabled=not progress.open_positions, on_click=_go,
                  args=(where, progress.next_open(pos)), width="stretch")


def _answer_form(here: tuple[str, str, int], saved, draft: dict, save_args: tuple) -> None:
    """The three questions as Yes / No buttons, the note and the save button, with what is stored."""
    st.markdown("**Is each statement true for this chunk?** Any *no* makes it an orphan.  \n"
                "Each starts at *yes*: press **1**, **2** or **3** to flip one, **Enter** to save and open "
                "the next unanswered chunk, **\u2190 \u2192** to move.")
    for number, q in enumerate(QUESTIONS, 1):
        with st.container(key=f"orphan_question_{q.key}"):  # the question, then its two buttons at full width
            st.markdown(f"**{number}. {q.title}** — {q.text}")
            yes, no = st.columns(2)
        answer = draft[q.key]
        yes.button("Yes", key=f"orphan_{q.key}_yes", type="primary" if answer else "secondary", on_click=_flip,
                   args=(here, q.key, True), shortcut=None if answer else str(number), width="stretch")
        no.button("No", key=f"orphan_{q.key}_no", type="secondary" if answer else "primary", on_click=_flip,
                  args=(here, q.key, False), shortcut=str(number) if answer else None, width="stretch")
    st.text_input("Note (optional)", key="orphan_note", max_chars=2000, on_change=_noted, args=(here,),
                  placeholder="What is missing, or why you hesitated")
    st.session_state["_orphan_shown"] = here
    answered = saved is not None and saved.complete
    *first, go_to = save_args
    moves = go_to != here[2]
    st.button(("Update" if answered else "Save") + (" and go to the next unanswered" if moves else ""),
              key="orphan_save", type="primary", on_click=_save, args=(*first, go_to if moves else None),
              shortcut="Enter")
    flash = st.session_state.pop("_orphan_saved", None)
    if flash:
        st.success(md(flash))
    _conflict(here, draft, tuple(first))
    marks = " · ".join("yes" if draft[q.key] else "no" for q in QUESTIONS)
    if not answered:
        st.caption(md(f"Not saved yet: Enter saves {marks}. The chunk's context and automatic hints appear once "
                      "it is answered, so they cannot sway the answer."))
    elif any(draft[q.key] != getattr(saved, q.key) for q in QUESTIONS) or draft["note"] != saved.note:
        st.caption(md(f"Saved answer: {answer_marks(saved)}; this one ({marks}) is not saved: Enter updates it."))
    else:
        st.caption(md(f"Saved: {answer_marks(saved)} (Address · References · Completeness)."))


def _conflict(here: tuple[str, str, int], draft: dict, save_args: tuple) -> None:
    """When this tab's save met an answer saved elsewhere: both answers, and a choice."""
    found = st.session_state.get("_orphan_conflict")
    if not found or found[0] != here:
        return
    stored = found[1]
    theirs = answer_marks(stored) if stored is not None else "nothing (it was removed)"
    st.warning(md("Not saved: this answer was saved again in another tab or session since this page showed it. "
                  f"Stored: {theirs}. Yours: {' · '.join('yes' if draft[q.key] else 'no' for q in QUESTIONS)} "
                  "(Address · References · Completeness)."))
    left, right = st.columns(2)
    left.button("Replace it with mine", key="orphan_replace", on_click=_save,
                args=(*save_args, None, stored.updated if stored is not None else None))
    right.button("Keep the stored answer", key="orphan_keep", on_click=_keep_stored, args=(here, stored))
