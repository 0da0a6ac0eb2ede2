"""The configurations ``tune`` tries: splitter kinds × budgets × overlap × prefixes × header
repetition, as a frozen value read from a TOML file or built for an embedder's cap.

A space file names any of its axes; the others keep their defaults::

    kinds = ["structured", "recursive", "sentence"]
    budgets = [256, 384, 512]
    unit = "o200k"              # budgets in tokens of this tokenizer ("chars" by default)
    overlaps = [0, 0.15]        # a fraction of the budget (below 1) or a size in the unit
    prefixes = ["", "+path", "+address"]
    headers = ["default", "+header"]
    specs = ["fixed:800/120"]   # candidates named outright, beside the cross product
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import SpecError
from ..kinds import kind_named, offered_kinds
from ..limits import MAX_SPACE_BYTES, read_limited
from ..spec import SplitterSpec, parse_spec

DEFAULT_KINDS: tuple[str, ...] = ("structured", "recursive", "sentence", "paragraph", "heading", "fixed")
DEFAULT_BUDGETS: tuple[int, ...] = (400, 800, 1200, 1600)
#: Budgets as shares of an embedder's cap when ``--cap`` names one.
CAP_SHARES: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)
PREFIXES: tuple[str, ...] = ("", "+path", "+address")
HEADERS: tuple[str, ...] = ("default", "+header", "-header")
#: The most candidates one search takes: every one is split and measured over the corpus.
MAX_CANDIDATES = 400
_KEYS = ("kinds", "budgets", "unit", "overlaps", "prefixes", "headers", "specs")


@dataclass(frozen=True, slots=True)
class Space:
    """What ``tune`` searches; ``candidates()`` lists it."""

    kinds: tuple[str, ...] = DEFAULT_KINDS
    budgets: tuple[int, ...] = DEFAULT_BUDGETS
    unit: str = "chars"
    """``chars`` or a tokenizer (``o200k``, ``hf:PATH``): what the budgets count."""

    overlaps: tuple[float, ...] = (0.0, 0.15)
    """Overlap as a share of the budget (below 1) or a size in the unit; tried on the kinds that
    cut inside paragraphs (``fixed``, ``recursive``), the others keep none."""

    prefixes: tuple[str, ...] = ("", "+path")
    """Prefixes tried on every kind but ``fixed`` (whose cuts ignore headings) and ``heading``
    (which prefixes its path already)."""

    headers: tuple[str, ...] = ("default",)
    """Table header repetition: the kind's default, ``+header`` or ``-header``."""

    specs: tuple[str, ...] = ()
    """Candidates named outright."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise SpecError(problem)

    def problem(self) -> str | None:
        """Why this space cannot be searched, or None."""
        unknown = [kind for kind in self.kinds if kind not in offered_kinds()]
        if unknown:
            return f"unknown splitter {unknown[0]!r} in the space; kinds are {', '.join(offered_kinds())}"
        if any(not isinstance(b, int) or isinstance(b, bool) or b <= 0 for b in self.budgets):
            return "budgets must be positive whole numbers"
        if any(not isinstance(o, (int, float)) or isinstance(o, bool) or o < 0 for o in self.overlaps):
            return "overlaps must be zero or more (a share of the budget below 1, or a size)"
        bad = [p for p in self.prefixes if p not in PREFIXES]
        if bad:
            return f"unknown prefix {bad[0]!r}; prefixes are {', '.join(repr(p) for p in PREFIXES)}"
        bad = [h for h in self.headers if h not in HEADERS]
        if bad:
            return f"unknown header setting {bad[0]!r}; choose among {', '.join(HEADERS)}"
        if not (self.kinds and self.budgets) and not self.specs:
            return "the space is empty: give kinds and budgets, or specs"
        for text in self.specs:
            try:
                parse_spec(text)
            except SpecError as exc:
                return f"space spec {text!r}: {exc}"
        try:
            count = len(self.candidates())
        except SpecError as exc:
            return f"the space makes a configuration that cannot run: {exc}"
        if count > MAX_CANDIDATES:
            return f"the space holds {count} configurations, more than the {MAX_CANDIDATES} one search takes"
        return None

    def candidates(self) -> list[SplitterSpec]:
        """Every configuration once, in the space's order (kinds, then budgets, overlaps,
        prefixes and headers), then the named specs."""
        found: dict[str, SplitterSpec] = {}
        tokens = "" if self.unit == "chars" else f"t:{self.unit}" if self.unit != "o200k" else "t"
        for kind in self.kinds:
            for budget in self.budgets:
                own = kind_named(kind)
                overlaps = self.overlaps if own.tune_overlaps else (0,)
                prefixes = self.prefixes if own.tune_prefixes else ("",)
                for overlap in sorted({_size(o, budget) for o in overlaps}):
                    for prefix in prefixes:
                        for header in self.headers:
                            flags = prefix + ("" if header == "default" else header)
                            text = f"{kind}:{budget}" + (f"/{overlap}" if overlap else "")
                            text = _with_unit(text, tokens) + flags
                            spec = parse_spec(text)
                            found.setdefault(str(spec), spec)
        for text in self.specs:
            spec = parse_spec(text)
            found.setdefault(str(spec), spec)
        return list(found.values())

    @classmethod
    def for_cap(cls, cap: str) -> "Space":
        """The default space under an embedder's cap (``256t:hf:PATH``, ``512t``, ``8000``):
        budgets at a quarter, a half, three quarters and all of it, in the cap's unit."""
        budget, unit = parse_cap(cap)
        budgets = tuple(sorted({max(1, round(budget * share)) for share in CAP_SHARES}))
        return cls(budgets=budgets, unit=unit)

    @classmethod
    def read(cls, path: str | Path, cap: str | None = None) -> "Space":
        """A space file (TOML); without ``budgets`` and with ``cap``, the cap's budgets."""
        import tomllib

        path = Path(path)
        try:
            data = tomllib.loads(read_limited(path, MAX_SPACE_BYTES, "space file").decode("utf-8"))
        except OSError as exc:
            raise SpecError(f"cannot read space file {path.name}: {exc.strerror or exc}") from None
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise SpecError(f"space file {path.name} is not TOML: {exc}") from None
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise SpecError(f"space file {path.name}: unknown key {unknown[0]!r}; keys are {', '.join(_KEYS)}")
        base = cls.for_cap(cap) if cap else cls()
        values = {}
        for key in _KEYS:
            if key in data:
                value = data[key]
                if key == "unit":
                    if not isinstance(value, str):
                        raise SpecError(f"space file {path.name}: unit must be a string")
                    values[key] = value
                elif not isinstance(value, list):
                    raise SpecError(f"space file {path.name}: {key} must be a list")
                else:
                    values[key] = tuple(value)
        return replace(base, **values)


def parse_cap(cap: str) -> tuple[int, str]:
    """An embedder's cap, ``256t:hf:PATH``, ``512t`` (o200k tokens) or ``8000`` (characters),
    as ``(size, unit)``."""
    try:
        spec = parse_spec(f"fixed:{cap}")
    except SpecError:
        raise SpecError(f"--cap {cap!r} is not a size: give 256t:hf:PATH, 512t or 8000") from None
    if spec.overlap or spec.heading_prefix is not None or spec.table_header is not None:
        raise SpecError(f"--cap {cap!r} is not a size: give 256t:hf:PATH, 512t or 8000")
    return spec.budget, spec.unit


def _size(overlap: float, budget: int) -> int:
    return int(round(overlap * budget)) if overlap < 1 else int(overlap)


def _with_unit(text: str, tokens: str) -> str:
    if not tokens:
        return text
    if "/" in text:  # the unit goes after the overlap
        return text.replace("/", "t/", 1) + tokens[1:] if tokens != "t" else text.replace("/", "t/", 1)
    return text + tokens
