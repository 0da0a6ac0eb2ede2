"""``SplitterSpec``: one splitter configuration as a frozen value with a short string form.

The string form is what URLs, the CLI and chunk ids carry::

    KIND:BUDGET[t][/OVERLAP][:UNIT][+FLAG|-FLAG ...][;seps=SEP,SEP...]

For example ``structured:800``, ``fixed:800/120``, ``heading:256t:o200k``,
``recursive:512t/50:cl100k`` (overlap goes before the unit) and ``sentence:800+path``. A budget followed by ``t``
counts tokens (o200k unless a unit is named); a named unit other than ``chars`` implies tokens.
Flags: ``path`` prefixes each chunk with its heading path (on by default for ``heading``),
``header`` repeats a table's header row on chunks that start inside the table (on by default
for ``structured``); ``-path`` and ``-header`` turn a default off. ``address`` stamps each chunk
with its document's address (title › heading path · version · updated; it replaces ``path``),
laid out by ``;stamp=TEMPLATE`` when given (see ``STAMP_FIELDS``). ``context`` puts before each
chunk a line a language model wrote about where it sits (contextual retrieval), ``;llm=MODEL``
naming the model (or the name under which imported lines were kept).

``semantic`` and ``cluster`` cut where an embedder finds the meaning changes (see
``inspector.split.similarity``): ``;embed=MODEL`` names the model (``SIMILARITY_MODELS``),
``;threshold=P`` the semantic chunker's breakpoint percentile, ``;piece=N`` the size of the
cluster chunker's pieces, and ``+atoms`` keeps code blocks and tables whole, e.g.
``semantic:800;threshold=90`` or ``cluster:400t+atoms``. ``llm`` cuts where a chat model says
the topic changes (see ``inspector.split.llm``): ``;llm=MODEL`` names the model whose kept answers
place the cuts (with ``+context`` it wrote the lines too), ``;piece=N`` the pieces it reads.

Imported chunks (see ``inspector.chunks.sets``) are named ``imported:ID[:UNIT]``: ``ID`` is the
chunk set's 16 hex digits, and the unit only says how sizes are counted (the chunks are fixed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from urllib.parse import quote, unquote

from .errors import SpecError

KINDS: tuple[str, ...] = ("fixed", "paragraph", "sentence", "recursive", "structured", "heading", "semantic",
                          "cluster")
#: The kinds that cut where an embedder finds the meaning changes (``split.similarity``).
SIMILARITY_KINDS: tuple[str, ...] = ("semantic", "cluster")
#: The kind whose cuts a chat model places (``split.llm``): not among ``KINDS``, which split
#: with nothing but the text (what the app offers, ``tune`` searches and drop-ins wrap), since
#: its cuts need a model's answers written beforehand.
LLM_KIND = "llm"
MEANING_KINDS: tuple[str, ...] = (*SIMILARITY_KINDS, LLM_KIND)
#: The models a similarity chunker may embed with: offline, their weights in a package.
SIMILARITY_MODELS: tuple[str, ...] = ("wordllama", "minilm")
#: LangChain's SemanticChunker breaks where a gap is above this percentile of the document's gaps.
DEFAULT_THRESHOLD = 95
#: Chroma's ClusterSemanticChunker clusters pieces of 50 tokens (here 200 characters when counting characters).
DEFAULT_PIECE = {True: 50, False: 200}
FLAGS: tuple[str, ...] = ("path", "header", "address", "context", "atoms")
#: The fields an address stamp template may name, as ``{field}``. Text in ``[...]`` is kept only
#: when every field inside it has a value, so ``[ · version {version}]`` vanishes without one.
STAMP_FIELDS: tuple[str, ...] = ("title", "path", "version", "updated")
DEFAULT_STAMP = "{title}[ > {path}][ · version {version}][ · updated {updated}]"
_STAMP_PART = re.compile(r"\{([^{}]*)\}")
_OPTIONS: tuple[str, ...] = ("seps", "stamp", "llm", "embed", "threshold", "piece")
DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")
MAX_BUDGET = 1_000_000
#: The longest spec string read (a URL or an argument could carry any length).
MAX_SPEC_LENGTH = 1_000
#: The kind of a stored chunk set's spec (not a splitter: its chunks were made elsewhere).
IMPORTED = "imported"
#: How the kinds of other libraries' splitters begin (``ext-langchain``).
ADAPTER_PREFIX = "ext-"
CHUNK_SET_ID = re.compile(r"^[0-9a-f]{16}$")
_IMPORTED_PATTERN = re.compile(r"^imported:(?P<id>[0-9a-f]{16})(?::(?P<unit>.+))?$")

_PATTERN = re.compile(
    r"^(?P<kind>[a-z][a-z0-9_-]*):(?P<budget>\d+)(?P<t>[tc]?)(?:/(?P<overlap>\d+))?"
    r"(?::(?P<unit>[^+;]+?))?(?P<flags>(?:[+-][a-z]+)*)(?P<options>(?:;[a-z]+=[^;]*)*)$"
)


@dataclass(frozen=True, slots=True)
class SplitterSpec:
    """A complete splitter configuration."""

    kind: str
    """Splitter family: one of ``KINDS`` (or an adapter's name)."""

    budget: int
    """Largest chunk, in ``unit``; prefixes count against it."""

    unit: str = "chars"
    """``chars``, a tiktoken encoding (``o200k``, ``cl100k``) or ``hf:PATH`` to a tokenizer.json."""

    overlap: int = 0
    """How much of the previous chunk the next one may repeat, in ``unit``."""

    heading_prefix: bool | None = None
    """Prefix each chunk with the heading path at its start; ``None`` means the kind's default."""

    table_header: bool | None = None
    """Repeat the table header on chunks starting mid-table; ``None`` means the kind's default."""

    separators: tuple[str, ...] = DEFAULT_SEPARATORS
    """Separators tried in order by ``recursive`` (and inside sections by ``heading``)."""

    chunk_set: str = ""
    """For ``imported``: the id of the chunk set (16 hex digits); empty for every other kind."""

    address: bool = False
    """Stamp each chunk with its document's address (title, heading path, version, date)."""

    stamp: str = DEFAULT_STAMP
    """How the address stamp is laid out (see ``STAMP_FIELDS``)."""

    context: bool = False
    """Put a written context line (contextual retrieval) before each chunk."""

    context_model: str = ""
    """With ``context``: the model that wrote the lines (or the name imported lines are kept
    under); empty until a caller fills in the configured one."""

    atoms: bool = False
    """For ``semantic`` and ``cluster``: keep code blocks and tables whole (``+atoms``), as the
    structured splitter does; without it they cut wherever their pieces end."""

    embed: str = ""
    """For ``semantic`` and ``cluster``: the model that embeds their pieces, one of
    ``SIMILARITY_MODELS``; empty means ``wordllama``."""

    threshold: int = 0
    """For ``semantic``: break where the gap between neighbouring sentences is above this
    percentile of the document's gaps (1-99); 0 means ``DEFAULT_THRESHOLD``."""

    piece: int = 0
    """For ``cluster`` and ``llm``: the size of the pieces they group, in ``unit``; 0 means ``DEFAULT_PIECE``."""

    split_model: str = ""
    """For ``llm``: the chat model whose kept answers place the cuts (``;llm=MODEL``)."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise SpecError(problem)

    def problem(self) -> str | None:
        """Why this configuration cannot run, or None."""
        if self.kind == IMPORTED:
            return self._imported_problem()
        if self.chunk_set:
            return f"only imported chunks name a chunk set, not {self.kind!r}"
        if self.kind not in (*KINDS, LLM_KIND) and not self.is_adapter:
            return f"unknown splitter {self.kind!r}; choose one of {', '.join((*KINDS, LLM_KIND))}"
        if not isinstance(self.budget, int) or self.budget <= 0:
            return f"budget must be a positive whole number, got {self.budget!r}"
        if self.budget > MAX_BUDGET:
            return f"budget {self.budget} is larger than the limit of {MAX_BUDGET}"
        if not isinstance(self.overlap, int) or self.overlap < 0:
            return f"overlap must be zero or more, got {self.overlap!r}"
        if self.overlap >= self.budget:
            return f"overlap ({self.overlap}) must be smaller than the budget ({self.budget})"
        if not self.unit:
            return "unit must not be empty"
        if not self.separators or any(s == "" for s in self.separators):
            return "separators must be a non-empty list of non-empty strings"
        return self._stamp_problem() or self._context_problem() or self._similarity_problem()

    def _similarity_problem(self) -> str | None:
        if self.kind not in MEANING_KINDS:
            if self.atoms or self.embed or self.threshold or self.piece or self.split_model:
                return (f"+atoms, embed, threshold and piece belong to the semantic, cluster and llm chunkers, "
                        f"not {self.kind!r}")
            return None
        if self.overlap:
            return f"the {self.kind} chunker cuts where the meaning changes and repeats nothing: it takes no overlap"
        if self.kind == LLM_KIND:
            return self._llm_problem()
        if self.embed and self.embed not in SIMILARITY_MODELS:
            return f"a {self.kind} chunker embeds with {' or '.join(SIMILARITY_MODELS)}, not {self.embed[:60]!r}"
        if self.threshold and (self.kind != "semantic" or not 1 <= self.threshold <= 99):
            return "threshold is the semantic chunker's percentile, a whole number from 1 to 99"
        if self.piece and (self.kind != "cluster" or not 0 < self.piece < self.budget):
            return f"piece is the cluster chunker's piece size, smaller than the budget ({self.budget})"
        return None

    def _llm_problem(self) -> str | None:
        if not self.split_model:
            return "the llm chunker needs the chat model that places its cuts: e.g. llm:800;llm=MODEL"
        if any(c in self.split_model for c in ";+ \n"):
            return f"a model's name holds no ';', '+' or spaces, got {self.split_model[:60]!r}"
        if self.context_model and self.context_model != self.split_model:
            return "an llm chunker's context lines are written by the model that places its cuts (one ;llm=MODEL)"
        if self.embed or self.threshold:
            return "embed and threshold belong to the semantic and cluster chunkers, not the llm chunker"
        if self.piece and not 0 < self.piece < self.budget:
            return f"piece is the llm chunker's piece size, smaller than the budget ({self.budget})"
        return None

    def _stamp_problem(self) -> str | None:
        if self.stamp == DEFAULT_STAMP:
            return None
        if not self.address:
            return "a stamp template needs the address flag (+address)"
        unknown = [f for f in _STAMP_PART.findall(self.stamp) if f not in STAMP_FIELDS]
        if unknown:
            return f"the stamp template names {unknown[0]!r}; its fields are {', '.join(STAMP_FIELDS)}"
        depth = 0
        for ch in _STAMP_PART.sub("", self.stamp):
            if ch in "{}":
                return "a stamp template's braces only enclose a field name, e.g. {title}"
            depth += (ch == "[") - (ch == "]")
            if depth not in (0, 1):
                return "a stamp template's optional parts [...] do not nest or close before they open"
        return "a stamp template leaves an optional part [ open" if depth else None

    def _context_problem(self) -> str | None:
        if self.context_model and not self.context:
            return "a context model needs the context flag (+context)"
        if any(c in self.context_model for c in ";+ \n"):
            return f"a context model's name holds no ';', '+' or spaces, got {self.context_model[:60]!r}"
        if (self.address or self.context) and self.is_adapter:
            return "address stamps and context lines are added by the built-in splitters, not by other libraries'"
        return None

    def _imported_problem(self) -> str | None:
        if not isinstance(self.chunk_set, str) or not CHUNK_SET_ID.match(self.chunk_set):
            return f"an imported chunk set is named by 16 hex digits, got {self.chunk_set!r}"
        if ((self.budget, self.overlap, self.heading_prefix, self.table_header, self.address, self.context)
                != (MAX_BUDGET, 0, None, None, False, False)):
            return "imported chunks are fixed: they take no budget, overlap or flags"
        if (self.separators != DEFAULT_SEPARATORS or self.stamp != DEFAULT_STAMP or self.context_model
                or self.atoms or self.embed or self.threshold or self.piece or self.split_model):
            return "imported chunks are fixed: they take no separators or other options"
        return None if self.unit else "unit must not be empty"

    @classmethod
    def imported(cls, chunk_set: str, unit: str = "chars") -> "SplitterSpec":
        """The spec naming a stored chunk set; ``unit`` (as written: ``characters``,
        ``o200k_base``, ...) counts its sizes."""
        return cls(IMPORTED, MAX_BUDGET, _unit_name(unit), chunk_set=chunk_set)

    @property
    def embed_model(self) -> str:
        """The model a similarity chunker embeds with."""
        return self.embed or SIMILARITY_MODELS[0]

    @property
    def percentile(self) -> int:
        """The semantic chunker's breakpoint percentile."""
        return self.threshold or DEFAULT_THRESHOLD

    @property
    def piece_size(self) -> int:
        """The size of the cluster and llm chunkers' pieces, in ``unit`` (by default Chroma's, or a
        quarter of a budget too small for four of them)."""
        return self.piece or min(DEFAULT_PIECE[self.in_tokens], max(1, self.budget // 4))

    @property
    def is_imported(self) -> bool:
        """True for a chunk set made elsewhere (nothing to re-split, no budget)."""
        return self.kind == IMPORTED

    @property
    def is_adapter(self) -> bool:
        """True for another library's splitter (an ``ext-`` kind, see ``inspector.split.adapters``)."""
        return self.kind.startswith(ADAPTER_PREFIX)

    @property
    def is_per_document(self) -> bool:
        """True for chunks made from each document alone, by one of our splitters or another
        library's, with the context lines kept for them (by document and span): what a corpus
        not held in one process can measure a run of documents at a time."""
        return not self.is_imported

    @property
    def is_built_in(self) -> bool:
        """True for chunks one of our splitters makes from each document alone: not imported,
        not another library's, without context lines (what can be kept, streamed and split on
        a cluster's partitions)."""
        return not (self.is_imported or self.is_adapter or self.context)

    @property
    def prefixes_path(self) -> bool:
        """Whether each chunk gets the heading path at its start as a prefix."""
        return self.kind == "heading" if self.heading_prefix is None else self.heading_prefix

    @property
    def repeats_header(self) -> bool:
        """Whether chunks starting inside a table get its header row as a prefix."""
        return self.kind == "structured" if self.table_header is None else self.table_header

    def repeats_header_in(self, mode: str) -> bool:
        """Whether chunks starting inside a table get its header row in atom ``mode``."""
        return self.header_default(self.kind, mode) if self.table_header is None else self.table_header

    @staticmethod
    def header_default(kind: str, mode: str) -> bool:
        """Whether a kind repeats table headers unasked in atom ``mode`` (seed mode's splitters
        are the article's: none does)."""
        return kind == "structured" and mode != "seed"

    def in_mode(self, mode: str) -> "SplitterSpec":
        """The shortest spec for these chunks in atom ``mode``: outside seed mode a structured
        splitter repeats table headers unasked, so ``+header`` changes nothing there."""
        if mode != "seed" and self.kind == "structured" and self.table_header:
            return replace(self, table_header=None)
        return self

    @property
    def base(self) -> "SplitterSpec":
        """The same chunks without context lines: what the lines are written for (a line
        is added to a chunk, it never moves the chunk's span)."""
        return replace(self, context=False, context_model="") if self.context else self

    @property
    def in_tokens(self) -> bool:
        """True when the budget counts tokens rather than characters."""
        return self.unit != "chars"

    @property
    def label(self) -> str:
        """The article's short label, e.g. ``fixed 800/120`` or ``heading 256t``."""
        if self.is_imported:
            return f"imported {self.chunk_set[:8]}"
        size = f"{self.budget}{'t' if self.in_tokens else ''}"
        return f"{self.kind} {size}" + (f"/{self.overlap}" if self.overlap else "") + self._flags()

    def with_budget(self, budget: int) -> "SplitterSpec":
        """The same configuration at another budget (overlap kept when it still fits)."""
        if self.is_imported:
            raise SpecError("imported chunks were made elsewhere: there is no budget to change")
        return replace(self, budget=budget, overlap=self.overlap if self.overlap < budget else 0)

    def __str__(self) -> str:
        if self.is_imported:
            return f"{IMPORTED}:{self.chunk_set}" + (f":{quote(self.unit, safe='/._-:')}" if self.in_tokens else "")
        text = f"{self.kind}:{self.budget}"
        if self.in_tokens:
            text += "t"
        if self.overlap:
            text += f"/{self.overlap}"
        if self.in_tokens and self.unit != "o200k":
            text += ":" + quote(self.unit, safe="/._-:")
        text += self._flags()
        if self.separators != DEFAULT_SEPARATORS:
            text += ";seps=" + ",".join(quote(s, safe="") for s in self.separators)
        if self.stamp != DEFAULT_STAMP:
            text += ";stamp=" + quote(self.stamp, safe="")
        if self.split_model or self.context_model:
            text += ";llm=" + quote(self.split_model or self.context_model, safe="/._-:")
        if self.embed:
            text += ";embed=" + self.embed
        text += f";threshold={self.threshold}" * bool(self.threshold) + f";piece={self.piece}" * bool(self.piece)
        return text

    def _flags(self) -> str:
        """The flags that differ from the kind's defaults, as the string form writes them."""
        text = ""
        if self.heading_prefix is not None and self.heading_prefix != (self.kind == "heading"):
            text += "+path" if self.heading_prefix else "-path"
        # An explicit header on a structured splitter is written: seed mode's does not repeat it unasked.
        if self.table_header is not None and (self.table_header or self.kind == "structured"):
            text += "+header" if self.table_header else "-header"
        return text + "+address" * self.address + "+context" * self.context + "+atoms" * self.atoms

    @classmethod
    def parse(cls, text: str) -> "SplitterSpec":
        """Read the short string form; refuse anything malformed with the reason."""
        if not isinstance(text, str) or not text.strip():
            raise SpecError("empty splitter spec; expected e.g. 'structured:800'")
        if len(text) > MAX_SPEC_LENGTH:
            raise SpecError(f"a splitter spec is at most {MAX_SPEC_LENGTH} characters; this one has {len(text):,}")
        imported = _IMPORTED_PATTERN.match(text.strip())
        if imported:
            return cls.imported(imported["id"], unquote(imported["unit"]) if imported["unit"] else "chars")
        if text.strip().startswith(IMPORTED + ":"):
            raise SpecError(f"cannot read {text!r}; imported chunks are named imported:ID[:UNIT], "
                            "ID being the chunk set's 16 hex digits")
        match = _PATTERN.match(text.strip())
        if not match:
            raise SpecError(
                f"cannot read splitter spec {text!r}; expected KIND:BUDGET[t][/OVERLAP][:UNIT]"
                "[+path][+header|-header], e.g. 'structured:800', 'fixed:800/120', 'heading:256t:o200k'"
            )
        unit = _unit_name(unquote(match["unit"])) if match["unit"] else None
        if match["t"] == "t":
            if unit == "chars":
                raise SpecError(f"{text!r}: a budget in tokens ('t') cannot use the unit 'chars'")
            unit = unit or "o200k"
        elif match["t"] == "c":
            if unit not in (None, "chars"):
                raise SpecError(f"{text!r}: a budget in characters ('c') cannot name a tokenizer")
            unit = "chars"
        unit = unit or "chars"
        flags: dict[str, bool] = {}
        for sign, flag in re.findall(r"([+-])([a-z]+)", match["flags"] or ""):
            if flag not in FLAGS:
                raise SpecError(f"{text!r}: unknown flag {flag!r}; flags are {', '.join(FLAGS)}")
            if sign == "-" and flag in ("address", "context", "atoms"):
                raise SpecError(f"{text!r}: {flag} is off unless asked for, so there is no -{flag}")
            flags[flag] = sign == "+"
        options = {"seps": DEFAULT_SEPARATORS, "stamp": DEFAULT_STAMP, "llm": "", "embed": "", "threshold": "0",
                   "piece": "0"}
        for key, value in re.findall(r";([a-z]+)=([^;]*)", match["options"] or ""):
            if key not in _OPTIONS:
                raise SpecError(f"{text!r}: unknown option {key!r}; the options are {', '.join(_OPTIONS)}")
            options[key] = tuple(unquote(s) for s in value.split(",")) if key == "seps" else unquote(value)
        return cls(kind=match["kind"], budget=_number(match["budget"], "budget"), unit=unit,
                   overlap=_number(match["overlap"] or "0", "overlap"), heading_prefix=flags.get("path"),
                   table_header=flags.get("header"), separators=options["seps"], address=flags.get("address", False),
                   stamp=options["stamp"], context=flags.get("context", False),
                   context_model=options["llm"] if flags.get("context") or match["kind"] != LLM_KIND else "",
                   split_model=options["llm"] if match["kind"] == LLM_KIND else "",
                   atoms=flags.get("atoms", False), embed=options["embed"],
                   threshold=_number(options["threshold"], "threshold"), piece=_number(options["piece"], "piece"))


def _number(digits: str, what: str) -> int:
    """A budget or overlap read from its digits, refused before ``int`` when it is too long to
    be one (Python would refuse 4,300 digits, and work hard on fewer)."""
    if not digits.isascii() or not digits.isdigit():
        raise SpecError(f"{what} must be a whole number, got {digits[:12]!r}")
    if len(digits.lstrip("0")) > len(str(MAX_BUDGET)):
        raise SpecError(f"{what} {digits[:12]}{'…' if len(digits) > 12 else ''} ({len(digits):,} digits) is larger "
                        f"than the limit of {MAX_BUDGET}")
    return int(digits)


def _unit_name(unit: str) -> str:
    """A unit as written (``characters``, ``o200k_base``) in its short form."""
    if unit in ("c", "char", "chars", "characters"):
        return "chars"
    return unit[: -len("_base")] if unit.endswith("_base") else unit


def parse_spec(text: str | SplitterSpec) -> SplitterSpec:
    """Accept a spec or its string form."""
    return text if isinstance(text, SplitterSpec) else SplitterSpec.parse(text)


#: The article's seven configurations, in the order its tables print them.
ARTICLE_SPECS: tuple[SplitterSpec, ...] = tuple(
    SplitterSpec.parse(s) for s in (
        "fixed:400", "fixed:800", "fixed:800/120", "paragraph:800",
        "recursive:800", "sentence:800", "structured:800",
    )
)

#: The budgets of the article's sweep.
SWEEP_BUDGETS: tuple[int, ...] = (400, 800, 1200, 1600, 2400)
