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

A kind adds flags and options of its own, read and written by its module in ``inspector.kinds``:
``semantic`` and ``cluster`` take ``+atoms`` and ``;embed=MODEL``, ``semantic`` its
``;threshold=P``, ``cluster`` and ``llm`` their ``;piece=N``, and ``llm`` names with ``;llm=MODEL``
the model whose kept answers place its cuts, e.g. ``semantic:800;threshold=90``, ``cluster:400t+atoms``.

Imported chunks (see ``inspector.chunks.sets``) are named ``imported:ID[:UNIT]``: ``ID`` is the
chunk set's 16 hex digits, and the unit only says how sizes are counted (the chunks are fixed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import quote, unquote

from .errors import SpecError
from .kinds import Kind, KindOptions, kind_named, kind_names
from .kinds.base import MAX_BUDGET, whole_number

#: The switches every kind takes (a kind adds its own: ``kinds``).
FLAGS: tuple[str, ...] = ("path", "header", "address", "context")
#: The fields an address stamp template may name, as ``{field}``. Text in ``[...]`` is kept only
#: when every field inside it has a value, so ``[ · version {version}]`` vanishes without one.
STAMP_FIELDS: tuple[str, ...] = ("title", "path", "version", "updated")
DEFAULT_STAMP = "{title}[ > {path}][ · version {version}][ · updated {updated}]"
_STAMP_PART = re.compile(r"\{([^{}]*)\}")
#: The options every kind takes (``llm`` names the model of the context lines).
_OPTIONS: tuple[str, ...] = ("seps", "stamp", "llm")
DEFAULT_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")
#: The longest spec string read (a URL or an argument could carry any length).
MAX_SPEC_LENGTH = 1_000
#: The kind of a stored chunk set's spec (not a splitter: its chunks were made elsewhere).
IMPORTED = "imported"
#: How the kinds of other libraries' splitters begin (``ext-langchain``).
ADAPTER_PREFIX = "ext-"
CHUNK_SET_ID = re.compile(r"^[0-9a-f]{16}$")
_IMPORTED_PATTERN = re.compile(r"^imported:(?P<id>[0-9a-f]{16})(?::(?P<unit>.+))?$")
#: What imported chunks and other libraries' splitters are: a kind of no options and no defaults.
_NO_KIND = Kind("", "", split=lambda job: [])

_PATTERN = re.compile(r"^imported:(?P<id>[0-9a-f]{16})(?::(?P<unit>.+))?$")

_PATTERN = re.compile(
    r"^(?P<kind>[a-z][a-z0-9_-]*):(?P<budget>\d+)(?P<t>[tc]?)(?:/(?P<overlap>\d+))?"
    r"(?::(?P<unit>[^+;]+?))?(?P<flags>(?:[+-][a-z]+)*)(?P<options>(?:;[a-z]+=[^;]*)*)$"
)


@dataclass(frozen=True, slots=True)
class SplitterSpec:
    """A complete splitter configuration."""

    kind: str
    """Splitter family: a kind of ``kinds.KINDS`` (or an adapter's name, or ``imported``)."""

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

    options: KindOptions | None = None
    """The kind's own options (``kinds``): its ``KindOptions`` value; None means the kind's
    defaults, and is replaced by them."""

    def __post_init__(self) -> None:
        if self.options is None:
            object.__setattr__(self, "options", self._kind.options())
        problem = self.problem()
        if problem:
            raise SpecError(problem)

    @property
    def _kind(self) -> Kind:
        return kind_named(self.kind) or _NO_KIND

    def problem(self) -> str | None:
        """Why this configuration cannot run, or None."""
        if self.kind == IMPORTED:
            return self._imported_problem()
        if self.chunk_set:
            return f"only imported chunks name a chunk set, not {self.kind!r}"
        if kind_named(self.kind) is None and not self.is_adapter:
            return f"unknown splitter {self.kind!r}; choose one of {', '.join(kind_names())}"
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
        return self._stamp_problem() or self._context_problem() or self._options_problem()

    def _options_problem(self) -> str | None:
        kind = self._kind
        if type(self.options) is not kind.options:
            return (f"the {self.kind} splitter's options are {kind.options.__name__}, "
                    f"not {type(self.options).__name__}")
        if self.overlap and kind.overlap_refusal:
            return f"the {self.kind} chunker {kind.overlap_refusal}: it takes no overlap"
        return self.options.problem(self)

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
                or type(self.options) is not KindOptions):
            return "imported chunks are fixed: they take no separators or other options"
        return None if self.unit else "unit must not be empty"

    @classmethod
    def imported(cls, chunk_set: str, unit: str = "chars") -> "SplitterSpec":
        """The spec naming a stored chunk set; ``unit`` (as written: ``characters``,
        ``o200k_base``, ...) counts its sizes."""
        return cls(IMPORTED, MAX_BUDGET, _unit_name(unit), chunk_set=chunk_set)

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
        return self._kind.path_default if self.heading_prefix is None else self.heading_prefix

    @property
    def repeats_header(self) -> bool:
        """Whether chunks starting inside a table get its header row as a prefix."""
        return self._kind.header_default if self.table_header is None else self.table_header

    def repeats_header_in(self, mode: str) -> bool:
        """Whether chunks starting inside a table get its header row in atom ``mode``."""
        return self.header_default(self.kind, mode) if self.table_header is None else self.table_header

    @staticmethod
    def header_default(kind: str, mode: str) -> bool:
        """Whether a kind repeats table headers unasked in atom ``mode`` (seed mode's splitters
        are the article's: none does)."""
        found = kind_named(kind)
        return found is not None and found.header_default and mode != "seed"

    @staticmethod
    def path_default(kind: str) -> bool:
        """Whether a kind prefixes the heading path unasked."""
        found = kind_named(kind)
        return found is not None and found.path_default

    @property
    def splits_by_meaning(self) -> bool:
        """True for a kind that cuts where the meaning changes, and so takes no overlap."""
        return bool(self._kind.overlap_refusal)

    @property
    def embeds_to_split(self) -> bool:
        """True for a kind that embeds the text to split it (its index-time cost counts that)."""
        return self._kind.embedded is not None

    @property
    def needs_answers(self) -> bool:
        """True for a kind whose cuts a chat model's answers, kept beforehand, place."""
        return self._kind.needs_answers

    def in_mode(self, mode: str) -> "SplitterSpec":
        """The shortest spec for these chunks in atom ``mode``: where a kind repeats table headers
        unasked, ``+header`` changes nothing."""
        if self.table_header and self.header_default(self.kind, mode):
            return replace(self, table_header=None)
        return self

    @property
    def base(self) -> "SplitterSpec":
        """The same chunks without context lines: what the lines are written for (a line
        is added to a chunk, it never moves the chunk's span)."""
        return replace(self, context=False, context_model="") if self.context else self

    @property
    def names_separators(self) -> bool:
        """True when the spec names separators of its own (``;seps=``)."""
        return self.separators != DEFAULT_SEPARATORS

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
        if self.context_model and "llm" not in self.options.KEYS:
            text += ";llm=" + quote(self.context_model, safe="/._-:")
        text += self.options.text()
        return text

    def _flags(self) -> str:
        """The flags that differ from the kind's defaults, as the string form writes them."""
        text = ""
        if self.heading_prefix is not None and self.heading_prefix != self._kind.path_default:
            text += "+path" if self.heading_prefix else "-path"
        # An explicit header on a kind that repeats it unasked is written: seed mode's does not.
        if self.table_header is not None and (self.table_header or self._kind.header_default):
            text += "+header" if self.table_header else "-header"
        return text + "+address" * self.address + "+context" * self.context + self.options.flags()

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
        name = match["kind"]
        kind = kind_named(name)
        if kind is None and not name.startswith(ADAPTER_PREFIX):
            raise SpecError(f"unknown splitter {name!r}; choose one of {', '.join(kind_names())}")
        own = (kind or _NO_KIND).options
        flags: dict[str, bool] = {}
        own_flags: list[str] = []
        for sign, flag in re.findall(r"([+-])([a-z]+)", match["flags"] or ""):
            if flag not in FLAGS and flag not in own.FLAGS:
                raise SpecError(_not_taken(text, name, "flag", flag, lambda o: o.FLAGS, FLAGS))
            if sign == "-" and flag not in ("path", "header"):
                raise SpecError(f"{text!r}: {flag} is off unless asked for, so there is no -{flag}")
            if flag in own.FLAGS:
                own_flags.append(flag)
            else:
                flags[flag] = sign == "+"
        options = {"seps": DEFAULT_SEPARATORS, "stamp": DEFAULT_STAMP, "llm": ""}
        own_values: dict[str, str] = {}
        for key, value in re.findall(r";([a-z]+)=([^;]*)", match["options"] or ""):
            if key in own.KEYS:
                own_values[key] = unquote(value)
            elif key in _OPTIONS:
                options[key] = tuple(unquote(s) for s in value.split(",")) if key == "seps" else unquote(value)
            else:
                raise SpecError(_not_taken(text, name, "option", key, lambda o: o.KEYS, _OPTIONS))
        context = flags.get("context", False)
        return cls(kind=name, budget=whole_number(match["budget"], "budget"), unit=unit,
                   overlap=whole_number(match["overlap"] or "0", "overlap"), heading_prefix=flags.get("path"),
                   table_header=flags.get("header"), separators=options["seps"], address=flags.get("address", False),
                   stamp=options["stamp"], context=context,
                   context_model=own_values.get("llm", "") if "llm" in own.KEYS and context else options["llm"],
                   options=own.read(tuple(own_flags), own_values))


def _not_taken(text: str, kind: str, what: str, name: str, declared: Callable[[type[KindOptions]], tuple[str, ...]],
               common: tuple[str, ...]) -> str:
    """Why a spec string's flag or option is refused: another kind's, or nobody's."""
    owners = [k for k in kind_names() if name in declared(kind_named(k).options)]
    if owners:
        said = owners[0] if len(owners) == 1 else ", ".join(owners[:-1]) + " and " + owners[-1]
        return (f"{text!r}: {'+' * (what == 'flag')}{name} belongs to the {said} "
                f"chunker{'s' * (len(owners) > 1)}, not {kind!r}")
    every = dict.fromkeys([*common, *(n for k in kind_names() for n in declared(kind_named(k).options))])
    return f"{text!r}: unknown {what} {name!r}; the {what}s are {', '.join(every)}"


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
