"""``chunk-inspector review ROUND [CORPUS]``: a round's report, as the Results tab downloads it.

The answers come from the data folder's review store (``--data``, else ``$CHUNK_INSPECTOR_DATA``
or the server's PostgreSQL), opened read-only; with the corpus the round was drawn on, the
disagreements carry their chunks' text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import ReviewInputError
from .config import ReviewOptions, RunConfig
from .opening import Run


def run_review(run: Run) -> int:
    config: RunConfig = run.config
    options: ReviewOptions = config.options
    from ..review.database import STORE_NAME
    from ..review.report import round_report
    from ..review.store import ReviewStore, open_review_store

    if options.data:
        path = Path(options.data) / STORE_NAME
        if not path.is_file():
            raise ReviewInputError(f"{options.data} holds no review store ({STORE_NAME})")
        store = ReviewStore(path, readonly=True)
    else:
        store = open_review_store()
    stored = store.get_round(options.round_id)
    if stored is None:
        known = ", ".join(r.id for r in store.rounds()[:10]) or "none"
        raise ReviewInputError(f"no round {options.round_id[:40]!r} in the review store (it has: {known})")
    texts = {}
    if config.corpus.path:
        try:
            texts = _texts(stored, config)
        except ReviewInputError as exc:
            if stored.round.source != "questions":
                raise
            sys.stderr.write(f"note: the chunks' texts are left out: {exc}\n")
    report = round_report(stored, store.answers(stored.id), texts=texts, base_url=options.base_url)
    sys.stdout.write(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n" if config.json
                     else report.markdown())
    return 0


def _texts(stored, config: RunConfig) -> dict[str, str]:
    """The round's chunks' texts, drawn again on the corpus given (which must be the round's)."""
    from ..corpus.load import load_corpus
    from ..measure.workspace import Workspace
    from ..review.rounds import draw

    definition = stored.round
    corpus = load_corpus(config.corpus.path, mode=definition.mode)
    if corpus.fingerprint != definition.corpus:
        raise ReviewInputError(f"{config.corpus.path} is not the corpus round {definition.id} was drawn on "
                               f"(its fingerprint is {corpus.fingerprint[:16]}, the round's {definition.corpus[:16]})")
    return {c.chunk.id: c.text for c in draw(definition, Workspace(corpus, definition.mode))}
