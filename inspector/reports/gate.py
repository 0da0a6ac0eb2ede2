"""A CI gate: measure one chunking, hold each measure to a floor, a ceiling or a baseline.

Measures (names as the command line takes them):

- ``code``, ``table``, ``row``, ``num``, ``cite``: survival of atoms no larger than the budget;
  ``code.all`` ... ``cite.all``: survival of every atom (fractions, higher is better);
- ``answer@5``: the lexical probe's answer rate (higher is better);
- ``cut``: the probe's cut rate (lower is better);
- ``chunks``: number of chunks (a change either way beyond the count tolerance is flagged);
- ``oversized``: chunks over the budget (lower is better);
- ``recall@B``: golden-set recall at context budget B, with a golden set (higher is better);
- ``unplaced``: imported records that did not become a chunk, with imported chunks (lower).

A baseline is the JSON ``write_baseline`` produces; a measure regresses when it is worse than
the baseline by more than the tolerance (absolute for fractions, relative for counts). The
baseline keeps which queries and questions were answered: ``answer@5``, ``cut`` and
``recall@B`` then regress only when the change is significant, query by query (McNemar's exact
test; a drop within noise is said in a note), unless ``strict`` asks for the exact comparison.
It also keeps each survival per group of documents: a survival regresses only when a paired
cluster bootstrap over the documents says the drop is real.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..limits import MAX_BASELINE_BYTES, read_json, read_limited
from ..model import ATOM_KINDS, ATOM_LABELS

BASELINE_FORMAT = "chunk-inspector-baseline"
_EPSILON = 1e-12


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """What a measure means and which way is better."""

    name: str
    """Name on the command line and in baselines."""

    description: str
    """One line for ``--help``."""

    better: str
    """``higher``, ``lower`` or ``same`` (any change beyond tolerance is flagged)."""

    fraction: bool
    """True for rates from 0 to 1 (absolute tolerance); False for counts (relative)."""


def _catalogue() -> dict[str, MeasureInfo]:
    out = {}
    for kind in ATOM_KINDS:
        out[kind] = MeasureInfo(kind, f"survival of {ATOM_LABELS[kind]}s that fit the budget", "higher", True)
    for kind in ATOM_KINDS:
        out[f"{kind}.all"] = MeasureInfo(f"{kind}.all", f"survival of every {ATOM_LABELS[kind]}", "higher", True)
    out["answer@5"] = MeasureInfo("answer@5", "lexical probe: answered within the top 5 chunks", "higher", True)
    out["cut"] = MeasureInfo("cut", "lexical probe: evidence cut by a chunk boundary", "lower", True)
    out["chunks"] = MeasureInfo("chunks", "number of chunks", "same", False)
    out["oversized"] = MeasureInfo("oversized", "chunks over the budget", "lower", False)
    out["unplaced"] = MeasureInfo("unplaced", "imported records that were not placed (--chunks)", "lower", False)
    return out


MEASURES: dict[str, MeasureInfo] = _catalogue()
ALIASES = {"answer_at_5": "answer@5", "answer5": "answer@5", "cut_rate": "cut", "over_budget": "oversized"}


def measure_info(name: str) -> MeasureInfo:
    """The measure called ``name`` (``recall@B`` for any whole B); ``ValueError`` otherwise."""
    name = ALIASES.get(name, name)
    if name in MEASURES:
        return MEASURES[name]
    if name.startswith("recall@") and name[7:].isdigit() and int(name[7:]) > 0:
        return MeasureInfo(name, f"golden-set recall within {name[7:]} context tokens", "higher", True)
    raise ValueError(f"unknown measure {name!r}; measures are {', '.join(MEASURES)}, recall@B")


def parse_limit(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` as ``(name, value)``; percentages (``95%``) become fractions."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise ValueError(f"expected NAME=VALUE, got {text!r}")
    info = measure_info(name.strip())
    raw = value.strip()
    try:
        number = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise ValueError(f"{info.name}: {raw!r} is not a number") from None
    if number != number or number < 0:
        raise ValueError(f"{info.name}: the limit must be zero or more, got {raw!r}")
    if info.fraction and number > 1:
        raise ValueError(f"{info.name} is a fraction from 0 to 1 (or a percentage), got {raw!r}")
    return info.name, number




def measure_values(summary, probe, *, recall: dict[int, float] | None = None,
                   unplaced: int | None = None) -> dict[str, float | int | None]:
    """The gate's measures from a ``SplitSummary`` and a ``ProbeResult`` (plus golden recall per
    budget and an import's unplaced count, when there are any)."""
    values: dict[str, float | int | None] = {}
    for kind in ATOM_KINDS:
        values[kind] = summary.kept(kind)
    for kind in ATOM_KINDS:
        values[f"{kind}.all"] = summary.kept(kind, every=True)
    values["answer@5"] = probe.answer_rate if probe.queries else None
    values["cut"] = probe.cut_rate if probe.queries else None
    values["chunks"] = summary.chunks
    values["oversized"] = summary.oversized
    if unplaced is not None:
        values["unplaced"] = unplaced
    for budget, value in sorted((recall or {}).items()):
        values[f"recall@{budget}"] = value
    return values


@dataclass(frozen=True, slots=True)
class Check:
    """One measure held to one limit."""

    name: str
    """The measure."""

    value: float | int | None
    """Its value now (None: nothing to count, e.g. a corpus without tables)."""

    rule: str
    """``min``, ``max`` or ``baseline``."""

    limit: float | int | None
    """The floor, ceiling or baseline value."""

    passed: bool
    """Whether the measure holds."""

    message: str
    """The verdict in words."""


@dataclass(frozen=True, slots=True)
class GateResult:
    """Every check of one run."""

    values: dict
    """All measures, checked or not."""

    checks: tuple[Check, ...]
    """Floors, ceilings and baseline comparisons, in that order."""

    notes: tuple[str, ...] = ()
    """Things worth knowing that do not fail the gate (baseline for another corpus, ...)."""

    @property
    def failures(self) -> tuple[Check, ...]:
        """Checks that did not hold."""
        return tuple(c for c in self.checks if not c.passed)

    @property
    def passed(self) -> bool:
        """True when every check holds."""
        return not self.failures

    def as_dict(self) -> dict:
        """JSON-ready result."""
        return {"passed": self.passed, "measures": self.values,
                "checks": [{"measure": c.name, "value": c.value, "rule": c.rule, "limit": c.limit,
                            "passed": c.passed, "message": c.message} for c in self.checks],
                "failures": [c.message for c in self.failures], "notes": list(self.notes)}


def show(name: str, value) -> str:
    """A measure's value for people: fractions as percentages, counts as integers."""
    if value is None:
        return "n/a"
    info = measure_info(name)
    return f"{value:.1%}" if info.fraction else f"{value:g}"


def format_check(title: str, result: GateResult, notes: list[str] | tuple[str, ...] = ()) -> str:
    """A gate run for people: the title, each measure with its limits and verdicts, the notes,
    then PASS or every failure."""
    limits: dict[str, list[Check]] = {}
    for check in result.checks:
        limits.setdefault(check.name, []).append(check)
    lines = [title]
    for name, value in result.values.items():
        marks = "  ".join(f"{c.rule} {show(name, c.limit)} {'ok' if c.passed else 'FAIL'}"
                          for c in limits.get(name, []))
        lines.append(f"  {name:11s} {show(name, value):>8s}  {marks}".rstrip())
    lines += [f"note: {n}" for n in notes]
    if result.passed:
        n = len(result.checks)
        lines.append(f"PASS: {n} check{'s hold' if n != 1 else ' holds'}")
    else:
        lines += [f"FAIL: {c.message}" for c in result.failures]
    return "\n".join(lines) + "\n"


def check_gate(values: dict, *, floors: dict[str, float] | None = None, ceilings: dict[str, float] | None = None,
               baseline: dict | None = None, tolerance: float = 0.0, count_tolerance: float = 0.0,
               answered: dict[str, str] | None = None, groups: dict[str, list] | None = None,
               strict: bool = False) -> GateResult:
    """Hold ``values`` to floors, ceilings and a baseline (a ``read_baseline`` result);
    ``answered`` (``answered_by``) lets a per-query measure, and ``groups`` (``groups_by``) a
    survival, be held to the baseline's by a paired test, unless ``strict``."""
    checks: list[Check] = []
    notes: list[str] = []
    for rule, limits in (("min", floors or {}), ("max", ceilings or {})):
        for name, limit in limits.items():
            if name not in values:
                raise ValueError(f"{name} is not measured here (recall@B needs --golden, unplaced needs --chunks)")
            value = values[name]
            if value is None:
                notes.append(f"{name}: nothing to measure, so its {rule} of {show(name, limit)} is not checked")
                continue
            ok = value >= limit - _EPSILON if rule == "min" else value <= limit + _EPSILON
            word = "below its floor" if rule == "min" else "above its ceiling"
            verdict = "holds" if ok else word
            checks.append(Check(name, value, rule, limit, ok,
                                f"{name} {show(name, value)} {verdict} {show(name, limit)}" if not ok else
                                f"{name} {show(name, value)} holds its {rule} {show(name, limit)}"))
    if baseline is not None:
        for name, base in baseline.get("measures", {}).items():
            try:
                info = measure_info(name)
            except ValueError:
                notes.append(f"baseline measure {name!r} is unknown here; ignored")
                continue
            if name not in values:
                notes.append(f"{name} is in the baseline but not measured now")
                continue
            value = values[name]
            if value is None or base is None:
                if (value is None) != (base is None):
                    notes.append(f"{name}: {show(name, base)} in the baseline, {show(name, value)} now")
                continue
            ok, how = _compare(info, value, base, tolerance, count_tolerance)
            message = f"{name} {how} from {show(name, base)} to {show(name, value)} (baseline)"
            then, now = (baseline.get("answered") or {}).get(name), (answered or {}).get(name)
            had, has = (baseline.get("groups") or {}).get(name), (groups or {}).get(name)
            if not ok and not strict and isinstance(then, str) and now is not None and len(then) == len(now):
                ok, message, note = _paired_verdict(info, name, value, base, then, now)
                if note:
                    notes.append(note)
            elif not ok and not strict and isinstance(had, list) and has is not None:
                ok, message, note = _grouped_verdict(name, value, base, had, has)
                if note:
                    notes.append(note)
            elif not ok and not strict and groups and name in groups:
                notes.append(f"{name}: the baseline does not say how each document fared, so it is compared "
                             "exactly; write it again to gate on significant changes")
            elif not ok and not strict and answered and name in answered:
                notes.append(f"{name}: the baseline does not say which queries it answered (or asked others), so "
                             "it is compared exactly; write it again to gate on significant changes")
            checks.append(Check(name, value, "baseline", base, ok, message))
    return GateResult(dict(values), tuple(checks), tuple(notes))


def _paired_verdict(info: MeasureInfo, name: str, value, base, then: str, now: str) -> tuple[bool, str, str]:
    """A per-query measure worse than its baseline's: a regression only when McNemar's exact
    test says so; otherwise it holds, and a note says it fell within noise."""
    from ..confidence import paired
    from .decide import hits_of, p_text

    # Hits now against hits then, query by query (for cut, a hit is a cut: the loss is a new one).
    test = paired(hits_of(now), hits_of(then))
    lost, gained = (test.only_second, test.only_first) if info.better == "higher" else \
        (test.only_first, test.only_second)
    evidence = f"{lost} of {len(now)} {'questions' if name.startswith('recall@') else 'queries'} " \
               f"worse, {gained} better, p {p_text(test.p_value)}"
    change = f"from {show(name, base)} to {show(name, value)} (baseline)"
    if test.significant:
        return False, f"{name} regressed {change}: {evidence}", ""
    return True, f"{name} held {change}, within noise: {evidence}", \
        f"{name} moved {change} within noise ({evidence}); --strict fails it"


def _grouped_verdict(name: str, value, base, had: list, has) -> tuple[bool, str, str]:
    """A survival below its baseline's: a regression only when the paired cluster bootstrap over
    the documents says so; otherwise it holds, and a note says it fell within noise."""
    from ..confidence import paired_groups
    from .decide import p_text

    try:
        then = [(int(g), int(h), int(c)) for g, h, c in had]
    except (TypeError, ValueError):
        return False, f"{name} regressed from {show(name, base)} to {show(name, value)} (baseline)", \
            f"{name}: the baseline's documents cannot be read, so it is compared exactly"
    test = paired_groups(has, then)
    evidence = (f"{100 * test.difference:+.1f} points [{100 * test.low:+.1f}, {100 * test.high:+.1f}] with "
                f"{test.count} groups of documents resampled, p {p_text(test.p_value)}")
    change = f"from {show(name, base)} to {show(name, value)} (baseline)"
    if test.significant:
        return False, f"{name} regressed {change}: {evidence}", ""
    return True, f"{name} held {change}, within noise: {evidence}", \
        f"{name} moved {change} within noise ({evidence}); --strict fails it"


def _compare(info: MeasureInfo, value, base, tolerance: float, count_tolerance: float) -> tuple[bool, str]:
    if info.fraction:
        slack = tolerance
    else:
        slack = abs(base) * count_tolerance
    if info.better == "higher":
        ok = value >= base - slack - _EPSILON
        return ok, "held" if ok else "regressed"
    if info.better == "lower":
        ok = value <= base + slack + _EPSILON
        return ok, "held" if ok else "regressed"
    ok = abs(value - base) <= slack + _EPSILON
    return ok, "held" if ok else "changed"


def baseline_document(values: dict, *, spec: str, mode: str, corpus: dict, retriever: str = "bm25",
                      expand: int = 0, answered: dict[str, str] | None = None,
                      groups: dict[str, list] | None = None) -> dict:
    """What ``--write-baseline`` stores: the measures, which queries and questions were answered
    (``answered_by``) and how each group of documents fared (``groups_by``), so that a later run
    is compared query by query and document by document."""
    return {"format": BASELINE_FORMAT, "version": 2, "spec": spec, "mode": mode, "retriever": retriever,
            **({"expand": expand} if expand else {}), "corpus": corpus, "measures": values,
            **({"answered": answered} if answered else {}), **({"groups": groups} if groups else {})}


def write_baseline(path: str | Path, document: dict) -> None:
    """Write a baseline file (pretty JSON, stable key order)."""
    Path(path).write_text(json.dumps(document, indent=2, sort_keys=False) + "\n", encoding="utf-8")


def read_baseline(path: str | Path) -> dict:
    """Read a baseline file; ``ValueError`` with the reason when it is not one."""
    path = Path(path)
    try:
        document = read_json(read_limited(path, MAX_BASELINE_BYTES, "baseline"))
    except OSError as exc:
        raise ValueError(f"cannot read baseline {path.name}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"baseline {path.name} is not valid JSON ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != BASELINE_FORMAT \
            or not isinstance(document.get("measures"), dict):
        raise ValueError(f"{path.name} is not a Chunk Inspector baseline (write one with --write-baseline)")
    return document


def help_text() -> str:
    """The measure list for ``--help``."""
    lines = ["measures (for --min/--max NAME=VALUE; fractions as 0.95 or 95%):"]
    for info in MEASURES.values():
        lines.append(f"  {info.name:11s} {info.description} ({info.better} is better)"
                     if info.better != "same" else f"  {info.name:11s} {info.description} (changes are flagged)")
    lines.append("  recall@B    golden-set recall within B o200k tokens (--golden; B = 2000, 4000 by default)")
    return "\n".join(lines)


def measure(workspace, spec, *, fits: int | None = None, golden=None, unplaced: int | None = None,
            retriever=None, oversized: int | None = None, expand: int = 0) -> dict:
    """Every gate measure for the chunks ``spec`` names in ``workspace``, the probe ranked by
    ``retriever`` (default BM25); ``fits`` is the budget of imported chunks (for ``oversized``
    and fit survival), ``golden`` (a ``GoldenResult`` of the same chunks) adds ``recall@B``;
    ``oversized`` replaces the count of chunks over ``fits``; with ``expand`` the probe reads
    each top-k chunk with that many neighbours either side."""
    workspace.measure_ahead([(spec, fits)], [spec], expand=(expand,), retriever=retriever)  # streamed: one pass
    summary = workspace.summarize(spec, fits=fits)
    probe = workspace.probe(spec, retriever=retriever, expand=expand)
    recall = {b: golden.recall(b) for b in golden.budgets} if golden is not None else None
    values = measure_values(summary, probe, recall=recall, unplaced=unplaced)
    if oversized is not None:  # judged elsewhere (on the text an import's producer emitted)
        values["oversized"] = oversized
    return values


def answered_by(workspace, spec, *, golden=None, retriever=None, expand: int = 0) -> dict[str, str]:
    """Per query of the probe (``answer@5``, ``cut``) and per golden question at each budget
    (``recall@B``): ``1`` where it counts, ``0`` where not, in order; what a baseline keeps."""
    probe = workspace.probe(spec, retriever=retriever, expand=expand)
    out = {"answer@5": "".join(map(str, probe.hits())), "cut": "".join(map(str, probe.cuts()))}
    for budget in golden.budgets if golden is not None else ():
        out[f"recall@{budget}"] = "".join(map(str, golden.hits(budget)))
    return out


def groups_by(workspace, spec, *, fits: int | None = None) -> dict[str, list[list[int]]]:
    """Each survival measure (``code`` ... and ``code.all`` ...) per group of documents,
    ``[group, intact, counted]``: what a baseline keeps to compare survival document by document."""
    summary = workspace.summarize(spec, fits=fits)
    out = {kind: [list(g) for g in summary.groups_fit.get(kind, ())] for kind in ATOM_KINDS}
    out |= {f"{kind}.all": [list(g) for g in summary.groups_all.get(kind, ())] for kind in ATOM_KINDS}
    return out
