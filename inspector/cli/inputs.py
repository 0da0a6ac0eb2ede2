"""What a command is given besides its corpus: golden sets and question files (their problems
on stderr), and the retriever that ranks chunks for them."""

from __future__ import annotations

import sys

from ..errors import ArgumentRefused
from .options import Retrieval


def golden_set(path: str, workspace):
    """The golden set located in the workspace's corpus (its problems on stderr); ``ArgumentRefused``
    when no question of it is found there."""
    golden = workspace.load_golden(path)
    for problem in golden.problems:
        sys.stderr.write(f"{golden.name}:{problem.line}: {problem.kind}: {problem.message}\n")
    if not golden.items:
        raise ArgumentRefused(f"no question of {golden.name} could be located in the corpus")
    return golden


def question_set(path: str):
    """The user's questions (lines left out on stderr); ``ArgumentRefused`` when none can be read."""
    from ..retrieval.questions import load_questions

    questions = load_questions(path)
    for problem in questions.problems:
        sys.stderr.write(f"{questions.name}:{problem.line}: {problem.message}\n")
    if not questions.items:
        raise ArgumentRefused(f"no question could be read from {questions.name}")
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
    if retriever.warning:
        sys.stderr.write(f"note: {retriever.warning}\n")
    return retriever
