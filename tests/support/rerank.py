"""A rerank server on the loopback address speaking each service's shape (Cohere, Jina, vLLM, TEI,
Infinity old and new): a text's score is how many of the question's words it holds, less a
thousandth of its length, so shorter texts that hold the words go first."""

from __future__ import annotations

import re

from tests.support.loopback import LoopbackServer

PATHS = {"/v2/rerank": "cohere", "/v1/rerank": "jina", "/rerank": "tei"}


def score(question: str, text: str) -> float:
    words = set(re.findall(r"\w+", question.lower()))
    return len(words & set(re.findall(r"\w+", text.lower()))) - len(text) / 1000


class RerankServer(LoopbackServer):
    """``shape`` picks the answer: ``cohere`` (``results``/``relevance_score``), ``tei`` (a bare
    list of ``index``/``score``) or ``infinity-old`` (``data``). ``script`` holds answers to give
    first, ``requests`` every body received (with its path)."""

    def __init__(self, shape: str = "cohere", script=()) -> None:
        self.shape, self.script = shape, list(script)
        self.requests: list[tuple[str, dict, dict]] = []
        super().__init__(self._answer)
        self.root = self.url.removesuffix("/v1")

    def _answer(self, path: str, body: dict, headers: dict):
        self.requests.append((path, body, headers))
        if self.script:
            return self.script.pop(0)
        texts = body.get("texts") if "texts" in body else body.get("documents")
        scored = sorted(((score(body["query"], t), i) for i, t in enumerate(texts)), reverse=True)
        if self.shape == "tei":
            return 200, [{"index": i, "score": s} for s, i in scored], {}
        key = "data" if self.shape == "infinity-old" else "results"
        return 200, {key: [{"index": i, "relevance_score": s} for s, i in scored], "usage": {"total_tokens": 1}}, {}
