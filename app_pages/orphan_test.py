"""Orphan Test page: a team reads the same chunks cold and says whether each stands on its own.

A round is fixed by the sidebar's corpus and splitter plus the settings below (size, seed, where
chunks come from), so a link gives every reviewer the same chunks in the same order. Once opened
from its link or answered, the round is held: the sidebar shows its settings, fixed, until the
reviewer starts another round. Every answer goes to the review store on the key press; hints and
context appear only after answering.

The page lays out the round (``orphan.rounds``) and the two tabs, drawn by ``orphan.review`` (with
its answer form, ``orphan.answer``) and ``orphan.results``.
"""

import streamlit as st

from app_pages.orphan.answer import WHOLE_PAGE
from app_pages.orphan.model_reviewer import model_reviewer
from app_pages.orphan.results import delete_widgets, show_results
from app_pages.orphan.review import show_review
from app_pages.orphan.rounds import choose_round
from app_pages.parts import shared
from inspector.errors import ReviewStoreError
from inspector.review import open_review_store
from inspector.views import UPLOAD_UNIT
from inspector.views import markdown_escape as md

st.title("Orphan Test")
st.caption("An **orphan** is a chunk that cannot be understood on its own: retrieved alone, it misleads "
           "the model. Each reviewer reads the same chunks *cold* (exactly what the embedder receives, "
           "nothing around it) and answers three yes/no questions; one **no** makes the chunk an orphan. "
           "The Results tab then shows the orphan rate, where reviewers disagree, and their agreement.")
# Which chunk's note the previous run drew; a run that stopped early drew none, so the note is
# seeded again (Streamlit forgets the state of widgets a run does not draw). The Review tab takes
# it back: its own reruns do not pass here.
last_shown = st.session_state.pop("_orphan_shown", None)
st.session_state.pop(WHOLE_PAGE, None)  # this run draws the whole page already
ctx = shared.context()
if not shared.show_problems(ctx):
    st.stop()
if UPLOAD_UNIT.match(shared.state().unit):
    st.info("The Orphan Test needs a built-in unit (characters, o200k or cl100k) so that a shared link "
            "reproduces the round on any server; choose one in the sidebar.")
    st.stop()

review_round, chunks = choose_round(ctx)

gone = st.session_state.pop("_orphan_round_gone", None)
if gone:
    st.warning(md(gone))
lost = st.session_state.pop("_orphan_save_error", None)
if lost:  # shown above the tabs so it is seen even when the store cannot be opened now
    st.error(md(lost) + " Your answer is still on the chunk: save again to retry.")
try:
    store = open_review_store(ctx.launch.data_path)
except (ReviewStoreError, OSError) as exc:
    st.error(md(f"The review store cannot be opened, so no answer can be saved: {exc}"))
    st.button("Retry", key="orphan_retry_open", help="Try opening the review store again.")
    st.stop()

# Only the open tab is drawn: the results read every round of the corpus, which a reviewer's
# key press does not need to wait for.
review_tab, results_tab = st.tabs(["Review", "Results"], key="orphan_tab", on_change="rerun")
if review_tab.open:
    with review_tab:
        if last_shown is not None:
            st.session_state["_orphan_shown"] = last_shown
        show_review(ctx, store, review_round, chunks)
if results_tab.open:
    with results_tab:
        show_results(store, review_round, chunks)
        model_reviewer(ctx, store, review_round, chunks)
        delete_widgets(ctx, store, review_round)
