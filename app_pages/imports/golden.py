"""The Import page's golden-question section: a golden set chosen, located in the corpus, and the
recall of the imported chunks and of the sidebar's splitter at several context budgets. Not a page.
"""

import pandas as pd
import streamlit as st

from app_pages.imports.caches import content_digest, golden_set, recall, searched_recall
from app_pages.imports.files import GOLDEN_REFUSED, GOLDEN_SOURCE, golden_upload_changed, use_bundled_golden
from app_pages.imports.report import percent_columns
from app_pages.parts.access import upload_closed
from app_pages.parts.chunk_sets import chunk_sets
from app_pages.parts.retriever import say_what_asking_sends
from app_pages.parts.tables import data_table, table
from inspector.chunks import chunk_set_from_import
from inspector.errors import EmbeddingServiceError, MissingExtra, RetrieverError, SpendRefused, StoreError
from inspector.limits import MAX_GOLDEN_BYTES
from inspector.retrieval import parse_retriever
from inspector.views import (
    folder_rows,
    golden_outcome_figure,
    golden_problem_rows,
    index_of,
    language_rows,
    miss_rows,
    recall_rows,
    span_rows,
)
from inspector.views import markdown_escape as md


def _searched(ctx, state, golden, digest: str, retriever: str) -> list:
    """Your index asked itself, when the sidebar's splitter is a served store's chunks and the
    retriever names the embedder to ask it with (said first, as any paid request)."""
    spec = state.spec()
    index = index_of(spec, chunk_sets(ctx), ctx.launch.stores)
    if not index:
        return []
    if parse_retriever(retriever).dense is None:
        st.caption(md(f"Your index {index} is asked itself with your embedder: choose a dense retriever above."))
        return []
    say_what_asking_sends(retriever, ctx, [item.question for item in golden.items])
    try:
        return [searched_recall(digest, ctx.corpus.fingerprint, state.mode, str(spec), index, retriever, golden, ctx)]
    except (StoreError, MissingExtra, RetrieverError, EmbeddingServiceError, SpendRefused) as exc:
        st.error(md(f"Your index {index} could not be asked: {exc}"))
        return []


def show_golden(ctx, state, result, retriever: str = "bm25") -> None:
    """The golden set's widgets and, once one is located, recall by outcome, budget and folder,
    for the sidebar's splitter and ``result``'s imported chunks (None without an import), ranked
    by ``retriever``."""
    spec_name = str(state.spec())
    workspace, fingerprint = ctx.workspace, ctx.corpus.fingerprint
    st.caption("A golden set is JSON Lines (one `{\"question\": ..., \"evidence\": ...}` per line, evidence a quote "
               "or a list of quotes, optionally `doc_id` and `folder`), Chroma's `questions_df.csv` as published, "
               "or a CSV with `question` and `evidence` columns. "
               f"*recall@B*: the question's chunks as {md(retriever)} ranks them, taken in order until B o200k "
               "tokens of context, hold every quote whole (*any*: at least one). A miss is a **cut** when no "
               "chunk holds a quote whole, a **rank-miss** when one does but ranks too low, **uncovered** when "
               "no chunk touches it. The span metrics are defined in docs/metrics.md.")
    left, right = st.columns([3, 2], gap="large")
    closed = upload_closed(ctx, left)
    left.file_uploader("Golden set (JSONL or CSV)", type=["jsonl", "ndjson", "json", "csv"], key="golden_upload",
                       disabled=bool(closed),
                       on_change=golden_upload_changed, max_upload_size=MAX_GOLDEN_BYTES // 1_000_000,
                       help=f"Up to {MAX_GOLDEN_BYTES // 1_000_000} MB.")
    with right:
        st.markdown("**For the bundled sample corpus:**")
        st.button("Use the bundled golden set", key="golden_bundled", on_click=use_bundled_golden,
                  help="38 questions about the sample corpus (sample_corpus/golden-questions.jsonl).")
        st.button("Use the paraphrase set", key="golden_paraphrase", on_click=use_bundled_golden,
                  args=("golden-paraphrase.csv",),
                  help="25 questions in Chroma's format that share no long word with their evidence "
                       "(sample_corpus/golden-paraphrase.csv): where BM25 falls short of dense retrieval.")
    if st.session_state.get(GOLDEN_REFUSED):
        st.error(md(st.session_state[GOLDEN_REFUSED]))
    golden_source = st.session_state.get(GOLDEN_SOURCE)
    if golden_source is not None:
        gname, gdata = golden_source
        gdigest = content_digest(gdata)
        golden, refusal = golden_set(gdigest, gname, fingerprint, gdata, ctx.corpus)
        if refusal:
            st.error(md(f"{gname} cannot be used: {refusal}"))
        else:
            if golden.problems:
                st.warning(md(f"{len(golden.problems)} line(s) of {gname} were left out or matched loosely:"))
                table(golden_problem_rows(golden), key="golden_problems", name="lines")
            if not golden.items:
                st.error(md(f"No question of {gname} could be located in {ctx.corpus_label}."))
            else:
                results = []
                if result is not None and result.imported:
                    chunk_set = chunk_set_from_import(result, workspace)
                    workspace.add_chunk_set(chunk_set)
                    results.append(recall(gdigest, fingerprint, state.mode, str(chunk_set.spec), result.spec,
                                          retriever, golden, ctx, chunk_set))
                # Labelled as the user wrote it (no tokenizer path).
                results.append(recall(gdigest, fingerprint, state.mode, spec_name, spec_name, retriever, golden, ctx))
                results += _searched(ctx, state, golden, gdigest, retriever)
                st.caption(md(f"{len(golden.items)} questions ({golden.quotes} quotes) from {gname}, ranked by "
                              f"{retriever}; budgets in o200k tokens."))
                outcomes = pd.DataFrame(recall_rows(results))
                data_table(outcomes, column_config=percent_columns(["recall"]), key="golden_recall")
                st.plotly_chart(golden_outcome_figure(outcomes), key="golden_chart")
                st.subheader("Span recall, precision and IoU")
                st.caption("Characters of the evidence the retrieved chunks hold, over the evidence (recall) and "
                           "over what they bring into the prompt (precision); precision-Ω is the best precision "
                           "any retriever could reach on this split.")
                data_table(pd.DataFrame(span_rows(results)), key="golden_spans",
                           column_config=percent_columns(["span recall", "span precision", "span IoU",
                                                          "precision-Ω"]))
                st.subheader("Per folder")
                folders = folder_rows(results)
                data_table(folders, key="golden_folders",
                           column_config=percent_columns([c for c in folders[0] if c.startswith("recall@")]))
                languages = language_rows(results)
                if languages:
                    st.subheader("Per language")
                    st.caption("Each question counted in the language of the document its evidence is in.")
                    data_table(languages, key="golden_languages",
                               column_config=percent_columns([c for c in languages[0] if c.startswith("recall@")]))
                misses = miss_rows(results)
                with st.expander(f"Questions missed by some chunking ({len(misses)})"):
                    table(misses, key="golden_misses", name="questions")
    else:
        st.caption("Upload a golden set, or use the bundled one, to see recall.")
