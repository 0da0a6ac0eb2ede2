"""The Orphan Test: chunks read cold by a team, answers kept, agreement measured.

``rounds`` draws a round of chunks (``ReviewRound``, ``draw``) and holds the three questions;
``reveal`` shows, after answering, what a chunk lacks and where it sat; ``store`` keeps rounds
and answers in SQLite (``database`` opens it safely, ``answers`` are the stored values, ``draft``
the answer being given before it is saved); ``agreement`` summarises orphan rates, disagreements,
Fleiss' kappa and the trend; ``report`` is a round's report to take to a meeting (Markdown and
JSON); ``model_review`` a chat model as one more reviewer, calibrated against the team.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "rounds": ["DEFAULT_SIZE", "MAX_SIZE", "QUESTIONS", "Question", "ReviewRound", "RoundChunk", "clean_reviewer",
               "draw", "reviewer_problem"],
    "reveal": ["ADDRESS_HINTS", "HINT_CODES", "Hint", "SuspectSummary", "context", "suspect_summary", "suspects"],
    "store": ["PostgresReviewStore", "ReviewStore", "open_review_store"],
    "database": ["store_path"],
    "answers": ["Answer", "Progress", "is_orphan", "saved_message"],
    "draft": ["Draft"],
    "agreement": ["AnswerChange", "AnswerHistory", "RoundSummary", "TrendPoint", "answer_history", "answer_marks",
                  "kappa_reading", "summarize", "summary_csv",
                  "to_json", "trend", "verdict_rows"],
    "report": ["RoundReport", "round_report"],
    "model_review": ["Calibration", "Estimate", "ModelAnswers", "ask_model", "calibrate", "estimate", "plan_review",
                     "sampled_chunks"],
})
