"""The Orphan Test's rounds and the chunks a round shows.

A *round* is fixed by its definition (corpus fingerprint and mode, splitter spec, size, seed,
and where chunks come from: a plain sample or the chunks the probe retrieved, ranked by a
retriever), so
every reviewer gets the same chunks in the same order and the round's id is a hash of that
definition. A chunk is reviewed *cold*: exactly what the embedder sees, nothing around it.
After answering, ``inspector.review.reveal`` gives automatic hints and the neighbours
("retrieve small, read big"). Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import ClassVar

from ..corpus.load import Corpus
from ..errors import MissingExtra, QuestionsError, RetrieverError, ReviewInputError, SpecError, StoreError
from ..measure.asking import ask
from ..measure.engine import Engine
from ..measure.workspace import Workspace
from ..model import MODES, Chunk, Document
from ..retrieval.retriever_spec import parse_retriever
from ..spec import parse_spec


@dataclass(frozen=True, slots=True)
class Question:
    """One of the Orphan Test's three yes/no questions; a "no" makes the chunk an orphan."""

    key: str
    """Field name in answers and exports."""

    title: str
    """Short name shown above the question."""

    text: str
    """The question, as the reviewer reads it."""


ADDRESS = Question("address", "Address", "Can you tell the document, product and version?")
REFERENCES = Question("references", "References", "Does every it / this / the above resolve inside the chunk?")
COMPLETENESS = Question("completeness", "Completeness",
                        "Does every rule, number or table row carry its condition, subject and headers?")
QUESTIONS: tuple[Question, ...] = (ADDRESS, REFERENCES, COMPLETENESS)

SOURCES: tuple[str, ...] = ("sample", "probe", "questions")
DEFAULT_SIZE, MAX_SIZE = 20, 500
MAX_REVIEWER = 80
#: The most digits a link's size, seed or k may have (a seed below 2**63 has at most 19).
MAX_LINK_DIGITS = 19
_HEX = re.compile(r"^[0-9a-f]{8,64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def reviewer_problem(name: object) -> str | None:
    """Why ``name`` cannot be a reviewer name (after trimming), or None."""
    if not isinstance(name, str) or not name.strip():
        return "enter your name: answers are stored per reviewer"
    name = name.strip()
    if len(name) > MAX_REVIEWER:
        return f"a reviewer name is at most {MAX_REVIEWER} characters (this one has {len(name)})"
    if _CONTROL.search(name):
        return "a reviewer name cannot hold line breaks or control characters"
    return None


def clean_reviewer(name: object) -> str:
    """The trimmed reviewer name; ``ReviewInputError`` when it is refused."""
    problem = reviewer_problem(name)
    if problem:
        raise ReviewInputError(problem)
    return name.strip()  # type: ignore[union-attr]


def corpus_fingerprint(documents: Sequence[Document] | Corpus | Workspace) -> str:
    """``Corpus.fingerprint`` of any list of documents (a workspace keeps no ``Corpus``)."""
    if isinstance(documents, Corpus):
        return documents.fingerprint
    if isinstance(documents, Workspace):
        documents = documents.documents
    return Corpus(root="", documents=tuple(documents)).fingerprint


@dataclass(frozen=True, slots=True)
class ReviewRound:
    """Everything that fixes which chunks a round shows, and in which order."""

    corpus: str
    """Fingerprint of the corpus the chunks come from (``Corpus.fingerprint``)."""

    spec: str
    """The splitter spec's short string, made canonical (``structured:800+path``; imported
    chunks as ``imported:ID``, without a unit)."""

    mode: str = "markdown"
    """Atom detector and reading mode of the workspace: ``markdown`` or ``seed``."""

    size: int = DEFAULT_SIZE
    """How many chunks to show (fewer when the pool is smaller)."""

    seed: int = 0
    """Seed of the ``random.Random`` that draws the sample."""

    source: str = "sample"
    """``sample``: any chunk of the corpus; ``probe``: only chunks in some probe query's top ``k``."""

    k: int = 5
    """How many chunks per probe query count as retrieved (used by ``probe`` rounds)."""

    retriever: str = "bm25"
    """What ranks the chunks of ``probe`` and ``questions`` rounds (a ``RetrieverSpec`` string)."""

    questions: str = ""
    """With ``source="questions"``: the id of the user's question set (kept by the server)."""

    index: str = ""
    """With ``source="questions"``: the name of a store the server offers, asked itself: its own
    search ranks its chunks for each question, embedded by ``retriever``'s embedder."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise ReviewInputError(problem)
        spec = parse_spec(self.spec)
        # Imported chunks are the same in any unit: the round names the chunk set alone; a built-in
        # splitter is named by its shortest spec in the round's mode.
        canonical = f"imported:{spec.chunk_set}" if spec.is_imported else str(spec.in_mode(self.mode))
        object.__setattr__(self, "spec", canonical)
        object.__setattr__(self, "retriever", str(parse_retriever(self.retriever)))

    def problem(self) -> str | None:
        """Why this definition cannot be a round, or None (``__post_init__`` raises it)."""
        if not isinstance(self.corpus, str) or not _HEX.match(self.corpus):
            return "the corpus fingerprint must be 8 to 64 lowercase hex digits"
        try:
            parse_spec(self.spec)
        except SpecError as exc:
            return f"bad splitter spec {self.spec[:80]!r}: {exc}"
        if self.mode not in MODES:
            return f"mode must be one of {', '.join(MODES)}, got {self.mode!r}"
        for name, value, low, high in (("size", self.size, 1, MAX_SIZE), ("seed", self.seed, 0, 2**63 - 1),
                                       ("k", self.k, 1, 100)):
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                return f"{name} must be a whole number from {low} to {high}, got {value!r}"
        if self.source not in SOURCES:
            return f"chunks come from one of {', '.join(SOURCES)}, got {self.source!r}"
        try:
            parse_retriever(self.retriever)
        except RetrieverError as exc:
            return f"bad retriever {str(self.retriever)[:80]!r}: {exc}"
        if (self.source == "questions") != bool(self.questions):
            return "a round drawn from questions names its question set, and only such a round does"
        if self.questions and not (isinstance(self.questions, str) and re.fullmatch(r"[0-9a-f]{16}", self.questions)):
            return "a question set id is 16 lowercase hex digits"
        if self.index:
            if not (isinstance(self.index, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}", self.index)):
                return "an index is named by letters, digits and _ . - (at most 40)"
            if self.source != "questions":
                return "only a round drawn from your questions asks your index"
            if parse_retriever(self.retriever).dense is None:
                return "asking your index needs the embedder your pipeline uses: a dense retriever"
        return None

    @classmethod
    def create(cls, workspace: Workspace, spec: str, **options) -> "ReviewRound":
        """A round over ``workspace``'s corpus and mode; ``options`` are the other fields."""
        return cls(corpus_fingerprint(workspace), str(spec), mode=workspace.mode, **options)

    @property
    def id(self) -> str:
        """16 hex digits hashed from the definition: the same round has the same id everywhere."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(canonical.encode("utf-8"), digest_size=8).hexdigest()

    @property
    def label(self) -> str:
        """Short name for trends and lists: the spec string, marked when drawn from the probe."""
        if self.source == "sample":
            return self.spec
        ranked = "" if self.retriever == "bm25" else f", {self.retriever}"
        if self.index:
            return f"{self.spec} (questions {self.questions[:8]} asked of {self.index} top-{self.k}{ranked})"
        if self.source == "questions":
            return f"{self.spec} (questions {self.questions[:8]} top-{self.k}{ranked})"
        return f"{self.spec} (probe top-{self.k}{ranked})"

    def to_dict(self) -> dict:
        """The definition as JSON-ready values (what the id hashes and the store keeps). A BM25
        round leaves the retriever out, so rounds stored before retrievers keep their ids."""
        values = asdict(self)
        for key, default in (("retriever", "bm25"), ("questions", ""), ("index", "")):
            if values[key] == default:
                del values[key]
        return values

    @classmethod
    def from_dict(cls, data: Mapping) -> "ReviewRound":
        """Inverse of ``to_dict``; ``ReviewInputError`` for missing or bad fields."""
        try:
            fields = {key: data[key] for key in ("corpus", "spec", "mode", "size", "seed", "source", "k")}
            return cls(**fields, retriever=data.get("retriever", "bm25"), questions=data.get("questions", ""),
                       index=data.get("index", ""))
        except (KeyError, TypeError) as exc:
            raise ReviewInputError(f"not a round definition: missing or unexpected field ({exc})") from None

    #: The URL keys of a round (``rret`` only when not ranked by BM25, ``rq`` only for questions).
    URL_KEYS: ClassVar[tuple[str, ...]] = ("round", "rcorpus", "rmode", "rspec", "rsize", "rseed", "rfrom", "rk",
                                           "rret", "rq", "rindex")

    def to_query_params(self) -> dict[str, str]:
        """The URL form of the round, so a link gives a colleague the same chunks."""
        params = {"round": self.id, "rcorpus": self.corpus, "rmode": self.mode, "rspec": self.spec,
                  "rsize": str(self.size), "rseed": str(self.seed), "rfrom": self.source, "rk": str(self.k)}
        if self.retriever != "bm25":
            params["rret"] = self.retriever
        if self.questions:
            params["rq"] = self.questions
        if self.index:
            params["rindex"] = self.index
        return params

    @classmethod
    def from_query_params(cls, params: Mapping[str, str | Sequence[str]]) -> "ReviewRound | None":
        """The round a link carries; None when it carries none; ``ReviewInputError`` for a bad
        or edited link (the ``round`` id must match the definition when present)."""
        def last(key: str) -> str | None:
            value = params.get(key)
            if value is None or isinstance(value, str):
                return value
            return value[-1] if len(value) else None

        if last("rspec") is None and last("rcorpus") is None:
            return None
        fields: dict[str, object] = {}
        for key, name in (("rcorpus", "corpus"), ("rspec", "spec"), ("rmode", "mode"), ("rfrom", "source"),
                          ("rret", "retriever"), ("rq", "questions"), ("rindex", "index")):
            value = last(key)
            if value is not None:
                fields[name] = value
        for key, name in (("rsize", "size"), ("rseed", "seed"), ("rk", "k")):
            value = last(key)
            if value is not None:
                if not value.isascii() or not value.isdigit():
                    raise ReviewInputError(f"the link's {name} must be a whole number, got {value[:40]!r}")
                if len(value.lstrip("0")) > MAX_LINK_DIGITS:
                    raise ReviewInputError(f"the link's {name} ({len(value):,} digits) is far too large")
                fields[name] = int(value)
        if "corpus" not in fields or "spec" not in fields:
            raise ReviewInputError("the link names no corpus or no splitter spec for its round")
        found = cls(**fields)  # type: ignore[arg-type]
        claimed = last("round")
        if claimed is not None and claimed != found.id:
            raise ReviewInputError("the link's round id does not match its settings; ask for a fresh link")
        return found


@dataclass(frozen=True, slots=True)
class RoundChunk:
    """One chunk of a round, as the reviewer is shown it."""

    position: int
    """1-based place in the round."""

    chunk: Chunk
    """The chunk (its ``id`` keys the answers)."""

    text: str
    """What the embedder sees: prefix plus span text (``Chunk.embedded_text``). Untrusted: escape it."""


def draw(review_round: ReviewRound, workspace: Workspace,
         search: Callable[[str, str, str], object] | None = None) -> list[RoundChunk]:
    """The round's chunks in its order: ``random.Random(seed).sample`` over the pool in corpus order.

    The pool is every chunk (``sample``), every chunk some probe query ranked in its top ``k``
    (``probe``), or every chunk the retriever ranks in the top ``k`` for one of the user's
    questions (``questions``), less whitespace-only chunks. ``ReviewInputError`` when the
    workspace is another corpus or mode.
    """
    if workspace.mode != review_round.mode or corpus_fingerprint(workspace) != review_round.corpus:
        raise ReviewInputError("this round was drawn from another corpus or mode; load the corpus it names")
    chunks = workspace.chunks(review_round.spec)
    if review_round.source == "probe":
        tops = retrieved(workspace, review_round.spec, k=review_round.k, retriever=review_round.retriever)
        pool = sorted({j for top in tops for j in top})
    elif review_round.source == "questions":
        if workspace.question_store is None:
            raise ReviewInputError("this server keeps no question sets; upload the question file again")
        try:
            questions = workspace.question_store.get(review_round.questions)
        except QuestionsError as exc:
            raise ReviewInputError(str(exc)) from None
        ranker = _ranker(review_round, search)
        try:
            asked = ask(workspace, review_round.spec, questions, retriever=ranker, k=review_round.k)
        except StoreError as exc:
            raise ReviewInputError(f"{review_round.index} could not be asked: {exc}") from None
        pool = sorted({j for top in asked.picked for j in top})
    else:
        pool = list(range(len(chunks)))
    documents = {d.id: d for d in workspace.documents}
    # A whitespace-only chunk (a splitter's leftover newline) gives a reviewer nothing to judge.
    pool = [j for j in pool if chunks[j].text(documents[chunks[j].doc_id]).strip()]
    picks = random.Random(review_round.seed).sample(pool, min(review_round.size, len(pool)))
    return [RoundChunk(n, chunks[j], chunks[j].embedded_text(documents[chunks[j].doc_id]))
            for n, j in enumerate(picks, 1)]


def _ranker(review_round: ReviewRound, search: Callable[[str, str, str], object] | None):
    """What ranks a questions round: its retriever, or the index it names asked itself."""
    if not review_round.index:
        return review_round.retriever
    if search is None:
        raise ReviewInputError(f"this server offers no index; {review_round.index} cannot be asked")
    try:
        return search(review_round.index, review_round.spec, review_round.retriever)
    except (StoreError, MissingExtra, RetrieverError) as exc:
        raise ReviewInputError(f"{review_round.index} cannot be asked: {exc}") from None


def retrieved(workspace: Engine, spec: str, *, k: int = 5, retriever: str = "bm25") -> list[list[int]]:
    """Per probe query, the top ``k`` chunk indexes (into ``workspace.chunks(spec)``) as
    ``retriever`` ranks them: exactly the chunks the probe judged."""
    return [list(top) for top in workspace.probe(spec, k=k, retriever=retriever).picked]
