"""The user's own questions asked of a split: what comes back, what it costs, what it breaks.

A question without evidence cannot be scored answered or cut; what can be measured is what the
retriever hands the model for it. For each question, the top ``k`` chunks (as a retriever ranks
them, or as the user's own system returned them), and:

- context: the o200k tokens of those chunks (prefix included);
- fragments: the share of retrieved chunks that hold part, not all, of an atom (a code block,
  table, row, figure or citing sentence) — a boundary of the chunk falls strictly inside it;
- questions served a fragment: the share of questions with at least one such chunk.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..chunks.importer import ImportResult, place_records
from ..lengths import get_length
from ..retrieval.questions import QuestionSet
from ..retrieval.ranking import Question, Retriever
from .survival import Interior


@dataclass(frozen=True, slots=True)
class AskResult:
    """What one chunking hands the model for the user's questions."""

    label: str
    """The chunking (a spec), or ``your system`` for the chunks the file says were retrieved."""

    retriever: str
    """What ranked them (``as given`` for the user's own system)."""

    k: int
    """Chunks taken per question (for the user's system: as many as it returned, up to this)."""

    picked: tuple[tuple[int, ...], ...]
    """Per question, the retrieved chunks (positions among ``spans``), best first."""

    spans: tuple[tuple[str, int, int], ...]
    """The chunks the positions name: ``(doc_id, start, end)``."""

    tokens: tuple[int, ...]
    """Per question, the context tokens of its chunks."""

    fragment: tuple[bool, ...]
    """Per chunk of ``spans``, whether it holds part, not all, of an atom."""

    @property
    def questions(self) -> int:
        return len(self.picked)

    @property
    def context_tokens(self) -> float:
        """Mean context tokens per question."""
        return sum(self.tokens) / len(self.tokens) if self.tokens else 0.0

    @property
    def fragment_rate(self) -> float:
        """Share of retrieved chunks (counted per question) holding a fragment of an atom."""
        pairs = [self.fragment[j] for top in self.picked for j in top]
        return sum(pairs) / len(pairs) if pairs else 0.0

    def served_whole(self) -> int:
        """Questions whose chunks hold no fragment of an atom."""
        return sum(not any(self.fragment[j] for j in top) for top in self.picked)

    @property
    def served_fragment(self) -> float:
        """Share of questions whose chunks include a fragment of an atom."""
        return sum(any(self.fragment[j] for j in top) for top in self.picked) / len(self.picked) if self.picked else 0.0

    def as_dict(self) -> dict:
        return {"label": self.label, "retriever": self.retriever, "k": self.k, "questions": self.questions,
                "ctx_tokens": self.context_tokens, "fragments": self.fragment_rate,
                "served_fragment": self.served_fragment, "intervals": self.intervals()}

    def intervals(self) -> dict:
        """The 95% intervals of ``as_dict``'s numbers: the mean context by a bootstrap over the
        questions, the share of fragments by one that resamples questions whole (a question's
        chunks are not independent), the questions served one by Wilson's."""
        from collections import Counter

        from ..confidence import clustered_rate, mean, rate

        per_question = Counter((sum(self.fragment[j] for j in top), len(top)) for top in self.picked)
        fragments = clustered_rate(per_question.items()).as_dict(clusters="questions")
        served = len(self.picked) - self.served_whole()
        return {"ctx_tokens": mean(self.tokens).as_dict(), "fragments": fragments,
                "served_fragment": rate(served, len(self.picked)).as_dict()}


def fragments(workspace, spans) -> list[bool]:
    """For each ``(doc_id, start, end)``, whether one of its boundaries is inside an atom."""
    interiors: dict[str, Interior] = {}
    documents = {d.id: d for d in workspace.documents}
    out = []
    for doc_id, start, end in spans:
        interior = interiors.get(doc_id)
        if interior is None:
            atoms = workspace.analysis(documents[doc_id]).atoms
            interior = interiors[doc_id] = Interior([span for kind in atoms for span in atoms[kind]])
        out.append(interior.inside(start) or interior.inside(end))
    return out


def ask(workspace, spec, questions: QuestionSet, *, retriever: Retriever | str | None = None,
        k: int = 5) -> AskResult:
    """The user's questions ranked against ``spec``'s chunks by ``retriever`` (default BM25)."""
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    pool = workspace.pool(spec)
    picked = retriever.rank([Question.of(text, pool.table) for text in questions.texts], pool, k)
    spans = tuple(zip((pool.doc_ids[d] for d in pool.doc_of.tolist()), pool.starts.tolist(), pool.ends.tolist()))
    sizes = get_length("o200k").count_many(pool.texts())
    return AskResult(str(spec), str(retriever.spec), k, tuple(tuple(top) for top in picked), spans,
                     tuple(sum(sizes[j] for j in top) for top in picked), tuple(fragments(workspace, spans)))


def ask_theirs(workspace, questions: QuestionSet, *, k: int = 5) -> tuple[AskResult, ImportResult]:
    """The chunks the question file says the user's system retrieved (its first ``k`` per
    question), placed on the corpus as exact spans; the placement says what could not be."""
    records, per_question = questions.retrieved_records()
    placed = place_records(records, list(workspace.documents), name=questions.name)
    where = {(o.line, o.chunk_id): (o.doc_id, o.start, o.end) for o in placed.origins}
    spans: list[tuple[str, int, int]] = []
    position: dict[tuple[str, int, int], int] = {}
    picked = []
    for mine in per_question:
        top = []
        for index in mine[:k]:
            found = where.get((records[index].line, records[index].chunk_id))
            if found is not None:
                if found not in position:
                    position[found] = len(spans)
                    spans.append(found)
                top.append(position[found])
        picked.append(tuple(top))
    documents = {d.id: d for d in workspace.documents}
    sizes = get_length("o200k").count_many([documents[d].text[a:b] for d, a, b in spans])
    result = AskResult("your system", "as given", k, tuple(picked), tuple(spans),
                       tuple(sum(sizes[j] for j in top) for top in picked), tuple(fragments(workspace, spans)))
    return result, placed


def unplaced(questions: QuestionSet, placed: ImportResult) -> list:
    """The retrieved chunks of ``questions`` that ``ask_theirs`` could not place (several
    records share a line of a question file, so ``ImportResult.unplaced`` cannot tell them apart)."""
    records, _ = questions.retrieved_records()
    kept = {(o.line, o.chunk_id) for o in placed.origins}
    return [r for r in records if (r.line, r.chunk_id) not in kept]
