"""What a command is given besides its corpus: golden sets and question files (their problems
on stderr), and the retriever that ranks chunks for them."""

from __future__ import annotations

import sys
from collections import Counter

from ..errors import ArgumentRefused
from .options import Retrieval

#: Problems of a golden set or question file printed line by line; the rest are counted by kind.
PROBLEMS_SHOWN = 10


def golden_set(path: str, workspace):
    """The golden set located in the workspace's corpus (its first problems on stderr, the rest
    counted); ``ArgumentRefused`` when no question of it is found there, said first: a set written
    for another corpus fails on every line, and those lines would bury the reason."""
    golden = workspace.load_golden(path)
    if not golden.items:
        kinds = Counter(p.kind for p in golden.problems)
        found = ", ".join(f"{n:,} {kind}" for kind, n in kinds.most_common())
        raise ArgumentRefused(f"no question of {golden.name} could be located in the corpus"
                              + (f" ({found}): is it the golden set of another corpus?" if found else ""))
    _said(golden.name, [(p.line, f"{p.kind}: {p.message}", p.kind) for p in golden.problems])
    return golden


def _said(name: str, problems: list[tuple[int, str, str]]) -> None:
    """The first ``PROBLEMS_SHOWN`` problems of a file, one line each, then the others counted by kind."""
    for line, message, _ in problems[:PROBLEMS_SHOWN]:
        sys.stderr.write(f"{name}:{line}: {message}\n")
    rest = Counter(kind for _, _, kind in problems[PROBLEMS_SHOWN:])
    if rest:
        sys.stderr.write(f"{name}: ... and {sum(rest.values()):,} more problems ("
                         + ", ".join(f"{n:,} {kind}" for kind, n in rest.most_common()) + ")\n")


def question_set(path: str):
    """The user's questions (lines left out on stderr); ``ArgumentRefused`` when none can be read."""
    from ..retrieval.questions import load_questions

    questions = load_questions(path)
    if not questions.items:
        first = f"; the first: {questions.problems[0].message}" if questions.problems else ""
        raise ArgumentRefused(f"no question could be read from {questions.name}"
                              + (f" ({len(questions.problems):,} lines refused{first})" if first else ""))
    _said(questions.name, [(p.line, p.message, "left out") for p in questions.problems])
    return questions


def retriever_for(retrieval: Retrieval, workspace):
    """The run's retriever, ranking where the engine ranks (which was opened with the run's
    services: vectors kept in the data folder, the retrieval's servers); a server refused now, not
    after the corpus is measured; a cache it cannot use is said."""
    from ..retrieval.remote import base_url_of

    spec = retrieval.retriever
    if retrieval.embeddings_url is not None or spec.embedder == "openai":
        base_url_of(retrieval.embeddings_url)
    if spec.reranker:
        from ..retrieval.rerank import rerank_url

        rerank_url(spec.rerank_service, retrieval.rerank_url)
    retriever = workspace.retriever(spec)
    if retriever.runtime:
        sys.stderr.write(f"note: {spec} runs on {retriever.runtime}\n")
    if retriever.warning:
        sys.stderr.write(f"note: {retriever.warning}\n")
    return retriever
