"""The Orphan Test's rounds, the chunks a round shows, and automatic suspect hints.

A *round* is fixed by its definition (corpus fingerprint and mode, splitter spec, size, seed,
and where chunks come from: a plain sample or the chunks the lexical probe retrieved), so
every reviewer gets the same chunks in the same order and the round's id is a hash of that
definition. A chunk is reviewed *cold*: exactly what the embedder sees, nothing around it.
After answering, ``suspects`` gives automatic hints and ``context`` the neighbours
("retrieve small, read big"). Pure Python: nothing here imports Streamlit.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass


from .analysis import MODES, Analysis
from .corpus import Corpus
from .errors import ReviewInputError, SpecError
from .model import Chunk, Document, Span
from .spec import parse_spec
from .workspace import Workspace


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

SOURCES: tuple[str, ...] = ("sample", "probe")
DEFAULT_SIZE, MAX_SIZE = 20, 500
MAX_REVIEWER = 80
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

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise ReviewInputError(problem)
        spec = parse_spec(self.spec)
        # Imported chunks are the same in any unit: the round names the chunk set alone.
        object.__setattr__(self, "spec", f"imported:{spec.chunk_set}" if spec.is_imported else str(spec))

    def problem(self) -> str | None:
        """Why this definition cannot be a round, or None (``__post_init__`` raises it)."""
        if not isinstance(self.corpus, str) or not _HEX.match(self.corpus):
            return "the corpus fingerprint must be 8 to 64 lowercase hex digits"
        try:
            parse_spec(self.spec)
        except SpecError as exc:
            return f"bad splitter spec {self.spec!r}: {exc}"
        if self.mode not in MODES:
            return f"mode must be one of {', '.join(MODES)}, got {self.mode!r}"
        for name, value, low, high in (("size", self.size, 1, MAX_SIZE), ("seed", self.seed, 0, 2**63 - 1),
                                       ("k", self.k, 1, 100)):
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                return f"{name} must be a whole number from {low} to {high}, got {value!r}"
        if self.source not in SOURCES:
            return f"chunks come from one of {', '.join(SOURCES)}, got {self.source!r}"
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
        return self.spec if self.source == "sample" else f"{self.spec} (probe top-{self.k})"

    def to_dict(self) -> dict:
        """The definition as JSON-ready values (what the id hashes and the store keeps)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping) -> "ReviewRound":
        """Inverse of ``to_dict``; ``ReviewInputError`` for missing or bad fields."""
        try:
            return cls(**{key: data[key] for key in ("corpus", "spec", "mode", "size", "seed", "source", "k")})
        except (KeyError, TypeError) as exc:
            raise ReviewInputError(f"not a round definition: missing or unexpected field ({exc})") from None

    def to_query_params(self) -> dict[str, str]:
        """The URL form of the round, so a link gives a colleague the same chunks."""
        return {"round": self.id, "rcorpus": self.corpus, "rmode": self.mode, "rspec": self.spec,
                "rsize": str(self.size), "rseed": str(self.seed), "rfrom": self.source, "rk": str(self.k)}

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
        for key, name in (("rcorpus", "corpus"), ("rspec", "spec"), ("rmode", "mode"), ("rfrom", "source")):
            value = last(key)
            if value is not None:
                fields[name] = value
        for key, name in (("rsize", "size"), ("rseed", "seed"), ("rk", "k")):
            value = last(key)
            if value is not None:
                if not value.isascii() or not value.isdigit():
                    raise ReviewInputError(f"the link's {name} must be a whole number, got {value!r}")
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


def draw(review_round: ReviewRound, workspace: Workspace) -> list[RoundChunk]:
    """The round's chunks in its order: ``random.Random(seed).sample`` over the pool in corpus order.

    The pool is every chunk (``sample``) or every chunk some probe query ranked in its top
    ``k`` (``probe``), less whitespace-only chunks. ``ReviewInputError`` when the workspace is another corpus or mode.
    """
    if workspace.mode != review_round.mode or corpus_fingerprint(workspace) != review_round.corpus:
        raise ReviewInputError("this round was drawn from another corpus or mode; load the corpus it names")
    chunks = workspace.chunks(review_round.spec)
    if review_round.source == "probe":
        pool = sorted({j for top in retrieved(workspace, review_round.spec, k=review_round.k) for j in top})
    else:
        pool = list(range(len(chunks)))
    documents = {d.id: d for d in workspace.documents}
    # A whitespace-only chunk (a splitter's leftover newline) gives a reviewer nothing to judge.
    pool = [j for j in pool if chunks[j].text(documents[chunks[j].doc_id]).strip()]
    picks = random.Random(review_round.seed).sample(pool, min(review_round.size, len(pool)))
    return [RoundChunk(n, chunks[j], chunks[j].embedded_text(documents[chunks[j].doc_id]))
            for n, j in enumerate(picks, 1)]


def retrieved(workspace: Workspace, spec: str, *, k: int = 5) -> list[list[int]]:
    """Per probe query, the top ``k`` chunk indexes (into ``workspace.chunks(spec)``): exactly
    the chunks the probe judged."""
    return [list(top) for top in workspace.probe(spec, k=k).picked]


# -- suspect hints -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hint:
    """An automatic reason to suspect a chunk is an orphan (shown after the reviewer answers)."""

    code: str
    """One of ``HINT_CODES``."""

    message: str
    """What was found, in words; may quote the document, so escape it before rendering."""

    span: Span | None = None
    """Where in the document, when the hint points at one place."""


HINT_CODES: dict[str, str] = {
    "dangling_reference": "opens with a dangling reference",
    "headerless_row": "table row without its header",
    "nameless_number": "number with no named subject",
    "no_heading_path": "no heading path",
}

_MARKERS = re.compile(r"(?:\s|>|[-*+](?=\s)|\d{1,3}[.)](?=\s)|\*\*?|__?)*")
_DANGLING = re.compile(r"(this|that|these|those|it|they|the above|as above|see above|the same)\b", re.I)
# "It follows that ..." and the like have no subject to name; they are not flagged.
_PRONOUN_SUBJECT = re.compile(r"(?!it (?:follows|seems|appears|turns out)\b)"
                              r"(it|its|they|their|this|that|these|those|the above|the same)\b", re.I)


def suspects(chunk: Chunk, document: Document, analysis: Analysis) -> list[Hint]:
    """Automatic orphan hints for one chunk, looking only at its span and its prefix."""
    text = document.text
    a, b = chunk.start, chunk.end
    hints: list[Hint] = []
    if not text[a:b].strip():
        return hints  # a whitespace-only chunk says nothing, so there is nothing to suspect
    blocked = [*analysis.fences, *((t.start, t.end) for t in analysis.tables)]
    starts_heading = any(a <= h.start < b and not text[a:h.start].strip() for h in analysis.headings)

    opening = _first_line(text, a, b)
    if opening and not starts_heading and not _inside(opening[0], blocked):
        line = text[opening[0]:opening[1]]
        m = _DANGLING.match(line, _MARKERS.match(line).end())
        if m:
            hints.append(Hint("dangling_reference",
                              f"Opens with \u201c{m.group()}\u201d, which points at something before the chunk.",
                              (opening[0] + m.start(), opening[0] + m.end())))

    for table in analysis.tables:
        rows = [r for r in table.rows if r[0] < b and r[1] > a]
        if not rows:
            continue
        h0 = table.header[0]
        header_row = text[h0:table.header[1]].split("\n", 1)[0]
        if (a <= h0 and h0 + len(header_row) <= b) or (header_row.strip() and header_row in chunk.prefix):
            continue
        line = text.count("\n", 0, table.start) + 1
        hints.append(Hint("headerless_row", f"Holds {len(rows)} row{'s' if len(rows) != 1 else ''} of the table "
                          f"at line {line} but not its header row.", (rows[0][0], rows[-1][1])))

    for s0, s1 in analysis.sentences:
        if s1 <= a or s0 >= b or _inside(max(s0, a), blocked):
            continue
        # Only the chunk's first prose sentence: a pronoun further on may point at an earlier one.
        s0, s1 = max(s0, a), min(s1, b)
        sentence = text[s0:s1]
        m = _PRONOUN_SUBJECT.match(sentence, _MARKERS.match(sentence).end())
        if m and any(ch.isdigit() for ch in sentence):
            quote = " ".join(sentence.split())
            quote = quote if len(quote) <= 70 else quote[:69] + "\u2026"
            hints.append(Hint("nameless_number", f"\u201c{quote}\u201d: a number whose subject is "
                              f"\u201c{m.group()}\u201d, with nothing earlier in the chunk to name it.", (s0, s1)))
        break

    if analysis.headings and not starts_heading and not _path_prefix(chunk, text, analysis):
        hints.append(Hint("no_heading_path", "No heading path: the chunk neither carries a path prefix nor "
                          "starts with a heading, so nothing says which section it is from."))
    return hints


def _first_line(text: str, a: int, b: int) -> Span | None:
    """The first line of ``text[a:b]`` holding more than whitespace, clipped to the span."""
    pos = a
    while pos < b:
        end = text.find("\n", pos, b)
        end = b if end < 0 else end
        if text[pos:end].strip():
            return (pos, end)
        pos = end + 1
    return None


def _inside(offset: int, spans: list[Span]) -> bool:
    return any(s <= offset < e for s, e in spans)


def _path_prefix(chunk: Chunk, text: str, analysis: Analysis) -> bool:
    """Whether the prefix holds a heading path (a prefix is path + repeated table header)."""
    prefix = chunk.prefix
    for table in analysis.tables:
        if table.header[1] <= chunk.start < table.end:
            header = text[table.header[0]:table.header[1]]
            header = header if header.endswith("\n") else header + "\n"
            if prefix.endswith(header):
                prefix = prefix[:-len(header)]
            break
    return bool(prefix.strip())


@dataclass(frozen=True, slots=True)
class SuspectSummary:
    """Automatic hints over a whole corpus under one spec."""

    spec: str
    """The splitter spec's short string."""

    chunks: int
    """Chunks looked at."""

    flagged: int
    """Chunks with at least one hint."""

    by_code: dict[str, int]
    """Hints per code (keys: ``HINT_CODES``)."""

    @property
    def hints(self) -> int:
        """Hints in all."""
        return sum(self.by_code.values())

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"spec": self.spec, "chunks": self.chunks, "flagged": self.flagged,
                "hints": self.hints, "by_code": dict(self.by_code)}


def suspect_summary(workspace: Workspace, spec: str) -> SuspectSummary:
    """Count the automatic hints over every chunk of the corpus under ``spec``."""
    by_code = dict.fromkeys(HINT_CODES, 0)
    flagged = total = 0
    for document, result in zip(workspace.documents, workspace.split(spec)):
        analysis = workspace.analysis(document)
        for chunk in result.chunks:
            found = suspects(chunk, document, analysis)
            total += 1
            flagged += bool(found)
            for hint in found:
                by_code[hint.code] += 1
    return SuspectSummary(str(parse_spec(spec)), total, flagged, by_code)


# -- reveal ------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ChunkContext:
    """What surrounds a chunk in its document, for the reveal after answering."""

    title: str
    """The document's title."""

    heading_path: tuple[str, ...]
    """Headings enclosing the chunk's start, outermost first."""

    previous: str | None
    """The previous chunk's span text, or None for the document's first chunk."""

    next: str | None
    """The next chunk's span text, or None for the document's last chunk."""


def context(chunk: Chunk, workspace: Workspace) -> ChunkContext:
    """The chunk's neighbours (as its splitter produced them) and heading path."""
    index = next((i for i, d in enumerate(workspace.documents) if d.id == chunk.doc_id), None)
    if index is None:
        raise ReviewInputError(f"document {chunk.doc_id!r} is not in this corpus")
    document = workspace.documents[index]
    spec = chunk.spec.removesuffix("@seed")
    siblings = workspace.split(spec)[index].chunks
    previous = siblings[chunk.index - 1].text(document) if chunk.index > 0 else None
    following = siblings[chunk.index + 1].text(document) if chunk.index + 1 < len(siblings) else None
    path = workspace.analysis(document).heading_path(chunk.start)
    return ChunkContext(document.title, path, previous, following)
