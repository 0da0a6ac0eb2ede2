"""What the app shows, computed without Streamlit, so every page stays widgets and layout.

``state`` is the app's settings and their URL form, ``launch`` what the app was started on
and may read, ``menu`` how the splitter menu names its choices; ``frames`` the tables,
``figures`` the plotly charts, ``charts`` Compare's Vega-Lite ones, ``comparison``
everything the Compare page draws from its measured rows, ``render`` the overlay HTML
(every byte of document text escaped),
``intervals`` a rate's interval and count as tables show them,
``imports`` what the Import page shows, ``asking`` the Ask page's answer drawn,
``fixes`` the Fixes page's table and context step, ``first_look`` the document a first look opens on,
``text`` escaping for Streamlit's markdown, ``window``
the parts a long document is drawn in, ``retrievers`` which retrievers a link may choose here,
``spend`` what a page's run would send to a paid endpoint, ``stores`` the user's vector stores
the server offers and reading one onto the corpus, ``kept_uploads`` uploads kept on the server
so a round's link opens for colleagues; ``readiness`` whether an ``llm`` chunker's cuts are
written for the corpus; ``held_round`` an Orphan Test round fixed on the screen while it is
reviewed; ``notebook`` draws one text and its chunks for a
notebook or a script (``inspector.show``).
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "state": ["AppState", "MAX_CAP", "MAX_COMPARE", "MAX_TABLE_ROWS", "PASTE", "SAMPLE", "UPLOAD", "UPLOAD_UNIT",
              "bounded_link", "checked_spec", "model_tokenizers", "parse_budgets",
              "sizes_defaults"],
    "launch": ["ENV_CORPUS", "ENV_ROOTS", "SAMPLE_CORPUS", "LaunchConfig", "corpus_folder_problem", "launch_config"],
    "held_round": ["HeldRound"],
    "kept_uploads": ["is_kept", "keep_uploads", "kept_root"],
    "menu": ["chunk_set_of", "chunk_set_title", "menu_choice", "menu_label", "menu_value"],
    "costs": ["COST_COLUMNS", "cost_frame", "prices_for"],
    "readiness": ["cuts_problem"],
    "first_look": ["Damage", "LaneChanges", "damage", "lane_changes", "scroll_to_html"],
    "frames": ["TABLE_A", "TABLE_B", "article_specs", "compare_frame", "compare_suggestions", "doc_view",
               "document_parts", "probe_verdict", "size_summary", "sizes_frame", "survival_verdict", "sweep_frame",
               "uploads_corpus"],
    "intervals": ["bound_columns", "bound_values", "interval_notes", "interval_text", "is_bound", "with_intervals"],
    "figures": ["golden_outcome_figure", "orphan_trend_figure", "size_histogram", "sweep_context_figure",
                "sweep_survival_figure"],
    "charts": ["probe_chart", "survival_chart"],
    "comparison": ["CompareTables", "ProbeTable", "compare_tables"],
    "asking": ["LANDING_ALERTS", "answer_document", "answer_document_said", "asked_cards_html",
               "asked_on_document_html", "landing_line"],
    "render": ["chunk_card_html", "cut_list_html", "drawn_lines", "lanes_html", "overlay_cuts", "overlay_html",
               "strip_html", "style_html"],
    "imports": ["coverage_rows", "folder_rows", "gap_rows", "golden_problem_rows", "language_rows",
                "golden_upload", "import_upload", "imported_spec", "miss_rows", "problem_rows", "recall_rows",
                "sample_export", "side_by_side", "span_rows"],
    "text": ["chunk_numbers", "first_words", "markdown_escape", "page_label"],
    "offload": ["CorpusHandle", "Offload", "corpus_handle"],
    "fixes": ["ContextStep", "context_step", "fixes_frame", "kind_frame", "main_columns",
              "rate_columns", "steps_verdict"],
    "retrievers": ["ENV_MODELS", "ENV_RERANKERS", "ENV_TRANSFORMERS", "checked_retriever", "rerankers",
                   "retriever_choices", "transformers",
                   "retriever_problem"],
    "spend": ["Estimate", "embedding_estimate", "rerank_estimate", "texts_estimate"],
    "window": ["WINDOW_CHARS", "WINDOW_CHUNKS", "cut_window", "window_of", "windows"],
    "notebook": ["Shown", "show"],
    "tuning": ["ASKED_COLUMNS", "TUNE_COLUMNS", "page_space", "tune_figure", "tune_frame"],
    "stores": ["INDEX_SET", "IndexRead", "IndexSearch", "index_of", "index_search", "read_index",
               "searched_probe_row"],
})
