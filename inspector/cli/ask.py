"""``ask``: one question asked of one or more splitters, live, and where a quote lands."""

from __future__ import annotations

import json
import sys

from ..errors import ArgumentRefused, QuestionsError
from ..spec import parse_spec
from .config import AskOptions, RunConfig
from .inputs import retriever_for
from .opening import Run, load

#: Characters of a chunk's text shown on its line.
SHOWN = 72


def run_ask(run: Run[AskOptions]) -> int:
    from ..measure.asked import ask_question, find_quote

    config: RunConfig = run.config
    options: AskOptions = config.options
    specs = [parse_spec(s) for s in config.specs or ("structured:800",)]
    corpus, workspace = load(run)
    quote = None
    if options.quote is not None:
        try:
            quote = find_quote(workspace.documents, options.quote)
        except QuestionsError as exc:
            raise ArgumentRefused(str(exc)) from None
    retriever = retriever_for(config.retrieval, workspace)
    results = [ask_question(workspace, spec, options.question, retriever=retriever, k=options.k, quote=quote)
               for spec in specs]
    if config.json:
        out = {"question": options.question, "retriever": str(retriever.spec), "k": options.k,
               "quote": None if quote is None else {"doc": quote.doc, "start": quote.start, "end": quote.end},
               "results": [r.as_dict() for r in results]}
        sys.stdout.write(json.dumps(out, indent=2) + "\n")
        return 0
    texts = {d.id: d.text for d in workspace.documents}
    lines = [f"ask {_shown(options.question)} on {config.corpus.path} ({len(corpus)} documents, "
             f"{config.corpus.mode} atoms): top {options.k} by {retriever.spec}"]
    if quote is not None:
        lines.append(f"quote {_shown(texts[quote.doc][quote.start:quote.end])} in {quote.doc} "
                     f"[{quote.start}, {quote.end})")
    for result in results:
        lines += ["", result.spec + (f": the quote is {result.quote.sentence()}" if result.quote else "")]
        for chunk in result.chunks:
            score = "" if chunk.score is None else f"{chunk.score:8.3f}"
            lines.append(f"  {chunk.rank:>3} {score}  {chunk.doc} [{chunk.start}, {chunk.end})  "
                         f"{_shown(texts[chunk.doc][chunk.start:chunk.end])}")
        if not result.chunks:
            lines.append("  no chunk holds a word of the question")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _shown(text: str) -> str:
    """``text`` on one line, cut to ``SHOWN`` characters."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= SHOWN else flat[:SHOWN - 1] + "…")
