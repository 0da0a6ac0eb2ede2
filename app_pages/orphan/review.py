"""The Orphan Test's Review tab: one chunk at a time, exactly as the embedder receives it, three
yes/no questions and a note, saved to the review store on the click. Not a page.

One key per answer (the form is ``orphan.answer``): each question starts at *yes* and `1`, `2`,
`3` flip it (or `y` / `n` answer them in turn), `Enter` saves and opens the next unanswered chunk,
`←` and `→` move. Context and automatic hints appear only once a chunk is answered (go back to
it), so they cannot sway the answer. A typed reviewer name is remembered by the browser in a cookie.
"""

import html
import json
from urllib.parse import unquote

import streamlit as st

from app_pages.orphan.answer import WHOLE_PAGE, SaveTarget, answer_form, go, seed
from app_pages.orphan.results import EVERY
from app_pages.parts import shared
from app_pages.parts.access import current
from inspector.access import Action
from inspector.errors import ReviewStoreError
from inspector.review import HINT_CODES, Progress, context, reviewer_problem, summarize, suspects
from inspector.views import HeldRound, chunk_card_html, page_label
from inspector.views import markdown_escape as md

#: The cookie in which a browser remembers its reviewer's name.
REVIEWER_COOKIE = "chunk_inspector_reviewer"
#: The name this session reviews under, once given (the name box is then put away).
NAMED = "_orphan_named"
HINTS_STYLE = ("<style>.ci-orphan-hints{background:#fff8e1;border-left:3px solid #e0b400;border-radius:4px;"
               "padding:6px 12px;font-family:system-ui,sans-serif;font-size:14px}"
               ".ci-orphan-hints ul{margin:4px 0 0;padding-left:20px}</style>")


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


@st.fragment
def show_review(ctx, store, review_round, chunks) -> None:
    """The Review tab, a fragment: a key press reruns the tab alone (the sidebar, the round's box and
    the page's top are not sent again), unless a save changed what shows outside it."""
    if st.session_state.pop(WHOLE_PAGE, False):
        st.rerun()
    # Which chunk's note the previous run drew (None when it drew none): elsewhere the note is
    # seeded from the answer being given. The page puts back what its top took.
    last_shown = st.session_state.pop("_orphan_shown", None)
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
    draft = seed(here, saved, shown=last_shown)
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
        target = SaveTarget(store, held, review_round, tuple(chunks), item.chunk.id, here, progress.after_saving(pos))
        answer_form(target, saved, draft)
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
    if NAMED not in st.session_state and not st.session_state.get("_orphan_forget"):
        remembered = _remembered_name()
        if remembered:
            st.session_state[NAMED] = remembered
    named = st.session_state.get(NAMED)
    if named:
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.caption(f"Reviewing as **{md(named)}**; this browser remembers the name, so the answers stay "
                     "yours tomorrow.")
        right.button("Not you?", key="orphan_rename", on_click=_rename, help="Review under another name.")
        _remember_name(named)
        return named
    shared.keep("orphan_reviewer", "")
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
    nav[0].button("← Previous", key="orphan_prev", disabled=pos <= 1, on_click=go, args=(where, pos - 1),
                  width="stretch", shortcut="Left")
    nav[1].button("Next →", key="orphan_next", disabled=pos >= progress.total, on_click=go, args=(where, pos + 1),
                  width="stretch", shortcut="Right")
    nav[2].button("Next unanswered", key="orphan_next_open", disabled=not progress.open_positions, on_click=go,
                  args=(where, progress.next_open(pos)), width="stretch")


