"""The Orphan Test's round: the settings that fix which chunks a team reviews, read from a shared
link or the widgets, the round's chunks, and the link to share it. Not a page.

A round is fixed by the sidebar's corpus and splitter plus these settings (size, seed, where
chunks come from); its parameters go into the address (``ReviewRound.URL_KEYS``) beside the sidebar's.
Opened from its link or answered once, the round is held (``HeldRound``): the sidebar shows its
settings instead of widgets until *Start another round*, so no click moves an answer elsewhere.
"""

from urllib.parse import urlencode

import streamlit as st

from app_pages.orphan.questions import CHOSEN, MESSAGE, question_set_picker, show_message
from app_pages.parts import offload, shared
from app_pages.parts.access import audit, current
from app_pages.parts.retriever import ranking, retriever_picker, say_what_asking_sends, say_what_it_sends
from app_pages.parts.state import HELD, STATE, seed_widgets
from inspector.access import Action
from inspector.errors import ChunkSetError, QuestionsError, ReviewInputError
from inspector.review import DEFAULT_SIZE, MAX_SIZE, ReviewRound
from inspector.views import PASTE, UPLOAD, HeldRound, keep_uploads
from inspector.views import markdown_escape as md

SOURCES = {"sample": "A random sample of all chunks", "probe": "Chunks the probe retrieved",
           "questions": "Chunks retrieved for your questions"}


@st.cache_resource(max_entries=16, show_spinner="Drawing the round's chunks…")
def _round_chunks(round_id: str, _round: ReviewRound, _ctx):
    with ranking(_round.retriever if _round.source != "sample" else "bm25"):
        return offload.run(_ctx, "round", _round)


def _opened_with() -> dict[str, str]:
    """The round parameters in the address (the sidebar keeps keys it does not own)."""
    return {key: st.query_params.get(key) for key in ReviewRound.URL_KEYS if key in st.query_params}


def _apply_link() -> None:
    """A link's round sets the round widgets once (before they are drawn)."""
    try:
        linked = ReviewRound.from_query_params(_opened_with())
    except ReviewInputError as exc:
        if st.session_state.get("_orphan_bad_link") != str(exc):
            st.warning(md(f"The round in the link was ignored: {exc}."))
        st.session_state["_orphan_bad_link"] = str(exc)
        return
    if linked is None or linked.id == st.session_state.get("_orphan_published"):
        return  # no round in the address, or the one this page wrote there itself
    st.session_state["_orphan_link"] = linked
    for key, value in (("source", linked.source), ("size", linked.size), ("seed", linked.seed), ("k", linked.k)):
        st.session_state[f"orphan_{key}"] = value
    if linked.source != "sample":
        st.session_state["retriever"] = linked.retriever
    if linked.questions:
        st.session_state[CHOSEN] = linked.questions
    st.session_state["orphan_index"] = linked.index


def _index_picker(ctx) -> str:
    """Which of the server's stores is asked itself ("" for the retriever above); nothing without one."""
    names = [s.name for s in ctx.launch.stores]
    if not names:
        return ""
    if st.session_state.get("orphan_index") not in ("", *names):
        st.session_state["orphan_index"] = ""
    return st.selectbox("Ranked by", ["", *names], key="orphan_index",
                        format_func=lambda n: f"your index {n}, asked itself" if n else "the retriever above",
                        help="Your own store answers each question through its own search (the questions "
                             "embedded by the retriever above, which must be your pipeline's embedder); the "
                             "sidebar's splitter must be that store's chunks (Your index → Read its chunks).")


def _describe(ctx, r: ReviewRound, shown: int) -> str:
    where = {"sample": "every chunk",
             "probe": f"the chunks the probe ({md(r.retriever)}) ranked in its top {r.k} for some question",
             "questions": f"the chunks {md(r.retriever)} ranks in its top {r.k} for one of your questions "
                          f"(set {r.questions})"}[r.source]
    if r.index:
        where = (f"the chunks your index {md(r.index)} answers in its top {r.k} for one of your questions (set "
                 f"{r.questions}, embedded by {md(r.retriever)})")
    return (f"{shown} chunks drawn at random (seed {r.seed}) from {where} of {md(ctx.corpus_label)}, "
            f"split by `{r.spec}` ({md(shared.spec_title(r.spec, shared.chunk_sets(ctx)))}); round id `{r.id}`.")


def choose_round(ctx) -> tuple[ReviewRound, tuple]:
    """Draw the round's settings and share link; publish the round in the address and return it
    with its chunks (stops the page when it cannot be drawn or holds none). A held round is
    shown as fixed settings with one way out, *Start another round*."""
    if ctx.held is None:
        _apply_link()
    for key, value in (("orphan_source", "sample"), ("orphan_size", DEFAULT_SIZE), ("orphan_seed", 0), ("orphan_k", 5)):
        shared.keep(key, value)
    show_message()
    with st.container(border=True):
        described = st.empty()  # filled once the settings below are read
        review_round = ctx.held.round if ctx.held is not None else _round_widgets(ctx, described)
        chunks = _drawn(ctx, review_round)
        described.markdown(f"**This round:** {_describe(ctx, review_round, len(chunks))} Everyone who opens its link "
                           "reviews the same chunks in the same order.")
        linked = st.session_state.get("_orphan_link")
        if ctx.held is None and linked is not None and linked.id == review_round.id:
            if hold(HeldRound(review_round, ctx.state, ctx.corpus_label, ctx.uploaded)):  # opened from its link
                st.rerun()  # the sidebar, drawn before this, shows the round's settings fixed
        elif ctx.held is None and linked is not None and (linked.corpus, linked.mode, linked.spec) != (
                review_round.corpus, review_round.mode, review_round.spec):
            st.warning(md(f"The link you opened names a round split by {linked.spec} ({linked.mode} mode) over "
                          f"corpus {linked.corpus[:12]}…, but the sidebar is set to {review_round.spec} "
                          f"({review_round.mode}) over {ctx.corpus_label}: these are not the same chunks. "
                          "Open the link exactly as it was shared to review that round."))
        link = _share(ctx, review_round)
        if ctx.held is not None:
            st.caption(md(f"This round stays on the screen while you review: its corpus and splitter are fixed in "
                          f"the sidebar and every answer goes to round {review_round.id}."))
            st.button("Start another round", key="orphan_another", on_click=_start_another,
                      args=(ctx.held, link), help="Frees the sidebar and the round's settings. The answers given "
                      "in this round stay in it; its link opens it again.")
    params = review_round.to_query_params()
    for key in ReviewRound.URL_KEYS:
        if key not in params and key in st.query_params:
            del st.query_params[key]  # an optional key of the previous round
    st.query_params.update(params)  # the sidebar publishes only its own settings
    st.session_state["_orphan_published"] = review_round.id
    if not chunks:
        st.warning("This round holds no chunks: the corpus has none to review under these settings.")
        st.stop()
    return review_round, chunks


def hold(held: HeldRound) -> bool:
    """Fix ``held`` on the page (from the next run on) unless a round is held already; True when
    this call held it."""
    if HELD in st.session_state:
        return False
    st.session_state[HELD] = held
    return True


def _start_another(held: HeldRound, link: str) -> None:
    """Callback of *Start another round*: the round let go, the sidebar live again on its settings."""
    st.session_state.pop(HELD, None)
    st.session_state.pop("_orphan_link", None)  # the link's round is not held again
    st.session_state[STATE] = held.viewing(st.session_state[STATE].doc)
    seed_widgets(held.state)
    back = f" Its link opens it again: {link}" if link else ""
    st.session_state[MESSAGE] = ("success", f"You left round {held.round.id} ({held.round.label}). Every answer "
                                            f"given in it stays in that round.{back}")


def _round_widgets(ctx, described) -> ReviewRound:
    """The round the settings under *Change the round* define (the page stops when they cannot)."""
    with st.expander("Change the round: how many chunks, which seed, where they come from"):
        st.caption("The corpus and the splitter are the sidebar's. Changing anything here starts another round.")
        cols = st.columns([3, 1, 1, 1])
        source = cols[0].radio("Chunks come from", list(SOURCES), format_func=SOURCES.get, key="orphan_source",
                               persist_state="session", help="The probe's chunks are the ones a retriever "
                               "actually hands to the model for the corpus's questions.")
        size = cols[1].number_input("Chunks to review", 1, MAX_SIZE, step=5, key="orphan_size",
                                    persist_state="session")
        seed = cols[2].number_input("Seed", 0, 2**31 - 1, step=1, key="orphan_seed", persist_state="session",
                                    help="Another seed draws other chunks.")
        k = cols[3].number_input("Probe top k", 1, 100, step=1, key="orphan_k", persist_state="session",
                                 disabled=source == "sample",
                                 help="Chunks per probe question that count as retrieved.")
        retriever = retriever_picker() if source != "sample" else "bm25"
        questions = question_set_picker() if source == "questions" else ""
        index = _index_picker(ctx) if source == "questions" else ""
    if source == "questions" and not questions:
        described.info("Upload your questions or a golden set (under *Change the round*) to draw the round "
                       "from what the retriever returns for them.")
        st.stop()
    try:
        return ReviewRound.create(ctx.workspace, str(ctx.spec), size=int(size), seed=int(seed), source=source,
                                  k=int(k), retriever=retriever, questions=questions, index=index)
    except ReviewInputError as exc:
        described.error(md(f"This round cannot be drawn: {exc}."))
        st.stop()


def _drawn(ctx, review_round: ReviewRound) -> tuple:
    """The round's chunks, what drawing them sends said first (the page stops when they cannot be drawn)."""
    try:
        if review_round.index:  # only the questions are embedded: the store holds its chunks' vectors
            asked = ctx.workspace.question_store.get(review_round.questions)
            say_what_asking_sends(review_round.retriever, ctx, [q.text for q in asked.items])
        elif review_round.source != "sample":
            say_what_it_sends(review_round.retriever, ctx, [review_round.spec])
        return _round_chunks(review_round.id, review_round, ctx)
    except (ReviewInputError, ChunkSetError, QuestionsError) as exc:
        st.error(md(f"This round cannot be drawn: {exc}"))
        st.stop()


def _share(ctx, review_round: ReviewRound) -> str:
    """Show the round's link to share (or why there is none); the link, or ""."""
    state = ctx.state
    if state.corpus in (UPLOAD, PASTE):
        # The text lives in this browser session: a colleague's link would open no corpus at all.
        keeps = current(ctx).allows(Action.KEEP_UPLOADS)
        st.caption(f"No link to share: {md(ctx.corpus_label)} stays in this browser session, so a colleague "
                   "opening a link would have no text to review. "
                   + ("Keep the documents on this server to share the round: every visitor may open them."
                      if keeps else
                      "To review it as a team, an admin can keep the documents on this server, or put them in "
                      "a folder the server may open (`chunk-inspector app FOLDER`).")
                   + " Answers given here are saved all the same.")
        kept_error = st.session_state.pop("_orphan_keep_error", None)
        if kept_error:
            st.error(md(kept_error))
        if keeps and ctx.uploaded and ctx.held is None:
            st.button("Keep these documents on this server", key="orphan_keep_uploads", on_click=_keep,
                      args=(ctx,), help="Writes them to the data folder's uploads, opens them as the corpus "
                                        "and gives the round a link colleagues can open.")
        return ""
    settings = {key: value for key, value in state.to_query_params().items() if key != "doc"}
    query = urlencode({**settings, **review_round.to_query_params()}, doseq=True)
    link = f"{st.context.url or ''}?{query}"
    st.caption("Share this round: send this link to every reviewer.")
    st.code(link, language=None, wrap_lines=True)
    return link


def _keep(ctx) -> None:
    """Callback: the uploads written to the server and opened from there as the corpus."""
    try:
        folder = keep_uploads(ctx.uploaded, ctx.launch.data_path)
    except (OSError, ValueError) as exc:
        st.session_state["_orphan_keep_error"] = f"The documents were not kept: {exc}"
        return
    audit(ctx, "keep uploads", folder=str(folder), documents=len(ctx.uploaded),
          bytes=sum(len(blob) for _, blob in ctx.uploaded))
    st.session_state["corpus_source"] = "folder"
    st.session_state["corpus_path"] = str(folder)
