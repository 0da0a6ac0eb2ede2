"""The fixes table: the article's five fixes, cheapest first, measured one by one on the user's corpus.

From one splitter (its budget, unit and overlap), row by row: the splitter with no prefix at all;
split on structure with table headers repeated; + the heading path; + the address stamp (which
holds the path); + a written context line (when lines from a model are kept for every chunk);
the address step's chunks read late instead (late chunking, the other answer to a chunk that lost
its document, when the retriever's model gives token vectors; paired against the context line
when both are measured); + reading each retrieved chunk with its neighbours. Each row: chunks, context tokens per query
and answer@5 / cut of the probe, golden recall at 2,000 and 4,000 tokens overall and per
boundary kind, and the automatic orphan suspects. A row that cannot be measured says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..context.writer import SETTINGS_HELP
from ..errors import RetrieverError
from ..kinds import kind_named
from ..retrieval.golden import DEFAULT_BUDGETS, golden_recall
from ..retrieval.ranking import Retriever
from ..retrieval.retriever_spec import parse_retriever
from ..review.reveal import suspect_summary
from ..spec import DEFAULT_STAMP, SplitterSpec, parse_spec
from .decide import answered, bounds_line, p_text, percent_cell, probe_intervals

#: The steps, in order: (name, what it adds).
STEPS: tuple[tuple[str, str], ...] = (
    ("none", "none"),
    ("structure", "structure + header"),
    ("path", "+ heading path"),
    ("address", "+ address stamp"),
    ("context", "+ context line"),
    ("late", "late chunking"),
    ("expand", "+ neighbours read"),
)


@dataclass(frozen=True, slots=True)
class FixRow:
    """One step of the table."""

    step: str
    """One of ``STEPS``' names."""

    spec: str
    """The chunking measured (for ``expand``, the previous row's)."""

    omitted: str = ""
    """Why the step was not measured (empty: it was)."""

    retriever: str = ""
    """What ranked this step when not the table's retriever (``late``: its late-chunking form)."""

    chunks: int = 0
    ctx_tokens: float = 0.0
    answer: float | None = 0.0
    cut: float | None = 0.0
    """answer@5 and cut of the probe (None: no query was drawn)."""
    recall: dict[int, float] = field(default_factory=dict)
    """Golden recall per budget (empty without a golden set)."""

    by_kind: dict[str, dict[int, float]] = field(default_factory=dict)
    """Golden recall per boundary kind, per budget."""

    suspects: int | None = None
    """Chunks with an automatic orphan hint (None for ``expand``: the chunks are the previous row's)."""

    expand: int = 0

    answered: str = ""
    """Which probe queries the step answers, ``1`` or ``0`` each in the queries' order."""

    recalled: dict[int, str] = field(default_factory=dict)
    """Per budget, which golden questions it answers, as ``answered``."""

    intervals: dict = field(default_factory=dict)
    """The 95% intervals of ``to_dict``'s rates and of the context (``confidence.Interval`` dicts)."""

    @property
    def label(self) -> str:
        label = dict(STEPS)[self.step]
        return f"{label} ±{self.expand}" if self.expand else label

    def to_dict(self) -> dict:
        out = {"step": self.step, "label": self.label, "spec": self.spec}
        if self.retriever:
            out["retriever"] = self.retriever
        if self.omitted:
            return {**out, "omitted": self.omitted}
        return {**out, "chunks": self.chunks, "ctx_tokens": self.ctx_tokens, "answer_at_5": self.answer,
                "cut": self.cut, "recall": {str(b): v for b, v in self.recall.items()},
                "recall_by_kind": {k: {str(b): v for b, v in row.items()} for k, row in self.by_kind.items()},
                "suspects": self.suspects, "intervals": self.intervals, "answered": self.answered,
                "recalled": {str(b): hits for b, hits in self.recalled.items()},
                **({"expand": self.expand} if self.expand else {})}


@dataclass(frozen=True, slots=True)
class FixesTable:
    """Every step for one splitter."""

    spec: str
    retriever: str
    golden: str
    """The golden set's name (empty: none was given)."""

    budgets: tuple[int, ...]
    rows: tuple[FixRow, ...]

    @classmethod
    def of(cls, spec: SplitterSpec | str, retriever, golden, rows,
           budgets: tuple[int, ...] = DEFAULT_BUDGETS) -> FixesTable:
        """The table of ``rows`` measured from ``spec`` (``retriever``: a ``Retriever`` or its spec;
        ``golden``: the ``GoldenSet`` or None)."""
        ranked = retriever.spec if isinstance(retriever, Retriever) else parse_retriever(retriever)
        return cls(str(parse_spec(spec)), str(ranked), golden.name if golden else "", tuple(budgets), tuple(rows))

    def steps(self) -> list[dict]:
        """Each measured step against the measured step before it, question by question:
        answer@5 over the probe's queries and, with a golden set, recall at the first budget
        (``confidence.Paired`` dicts under ``answer@5`` and ``recall@B``). Late chunking is an
        alternative, not a step on: it is set against the step before it, and the next step
        against that one."""
        from ..confidence import paired
        from .decide import hits_of

        measured = [row for row in self.rows if not row.omitted]
        pairs, before = [], None
        for row in measured:
            if before is not None:
                pairs.append((before, row))
            if row.step != "late":
                before = row
        out = []
        for before, after in pairs:
            tests = {"answer@5": paired(hits_of(after.answered), hits_of(before.answered)).as_dict()}
            if self.budgets and after.recalled and before.recalled:
                first = self.budgets[0]
                tests[f"recall@{first}"] = paired(hits_of(after.recalled[first]),
                                                  hits_of(before.recalled[first])).as_dict()
            out.append({"step": after.step, "label": after.label, "versus": before.label, **tests})
        return out

    def to_dict(self) -> dict:
        return {"spec": self.spec, "retriever": self.retriever, "golden": self.golden,
                "budgets": list(self.budgets), "rows": [row.to_dict() for row in self.rows], "steps": self.steps()}


def fix_specs(spec: SplitterSpec | str, context_model: str = "", mode: str = "markdown") -> dict[str, SplitterSpec]:
    """The chunking of each step but ``expand`` (``context`` only with a model), in atom ``mode``
    (its structure repeats table headers: said in seed mode, where it is not the default)."""
    spec = parse_spec(spec)
    if spec.is_imported or spec.is_adapter:
        raise ValueError("the fixes are measured on a built-in splitter's configuration")
    plain = replace(spec, heading_prefix=False, table_header=False, address=False, stamp=DEFAULT_STAMP, context=False,
                    context_model="")
    structure = replace(plain, table_header=True) if kind_named(spec.kind).follows_structure else \
        replace(plain, kind="structured", table_header=True, options=None)  # its own options, not the kind's before
    steps = {"none": plain, "structure": structure, "path": replace(structure, heading_prefix=True),
             "address": replace(structure, heading_prefix=None, address=True, stamp=spec.stamp)}
    if context_model:
        steps["context"] = replace(steps["address"], context=True, context_model=context_model)
    return {name: step.in_mode(mode) for name, step in steps.items()}


@dataclass(frozen=True, slots=True)
class FixStep:
    """One row of the table before it is measured."""

    step: str
    """One of ``STEPS``' names."""

    spec: SplitterSpec
    """The chunking measured (for ``expand``, the previous row's)."""

    omitted: str = ""
    """Why the step will not be measured (empty: it will)."""

    expand: int = 0
    """Neighbours read on each side of a retrieved chunk."""

    retriever: str = ""
    """What ranks this step when not the table's retriever."""


def late_form(retriever) -> tuple[str, str]:
    """``retriever`` (a spec or its string) chunking late, and why it cannot (one of the two empty)."""
    spec = parse_retriever(retriever)
    try:
        return str(replace(spec, late=True)), ""
    except RetrieverError as refused:
        return "", str(refused)


def fix_steps(workspace, spec: SplitterSpec | str, *, context_model: str = "", context_problem: str = "",
              expand: int = 1, retriever=None) -> tuple[FixStep, ...]:
    """Every row of ``spec``'s table, in order. The context step is measured when
    ``context_model`` has a line for every chunk (``context_problem`` says why not otherwise);
    the late step when ``retriever`` (its spec, default BM25) has a late-chunking form."""
    steps = fix_specs(spec, context_model, workspace.mode)
    if "context" in steps and not context_problem:
        have, chunks = workspace.context_coverage(steps["context"])
        if have < chunks:
            context_problem = (f"{chunks - have:,} of {chunks:,} chunks have no context line from {context_model}; "
                               "write them first")
    elif not context_problem:
        context_problem = "no context model is named: " + SETTINGS_HELP
    out, last = [], None
    for name, _ in STEPS:
        if name == "expand":
            out.append(FixStep("expand", last, expand=expand))
        elif name == "context" and context_problem:
            out.append(FixStep("context", replace(steps["address"], context=True), omitted=context_problem))
        elif name == "late":
            late, problem = late_form(retriever.spec if isinstance(retriever, Retriever) else retriever)
            out.append(FixStep("late", steps["address"], omitted=problem, retriever=late))
        else:
            last = steps[name]
            out.append(FixStep(name, last))
    return tuple(out)


def measure_step(workspace, step: FixStep, *, golden=None, retriever=None,
                 budgets: tuple[int, ...] = DEFAULT_BUDGETS) -> FixRow:
    """One row of the table, measured (or saying why it is not)."""
    if step.omitted:
        return FixRow(step.step, str(step.spec), omitted=step.omitted, retriever=step.retriever)
    if step.retriever:
        retriever = step.retriever
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    row = _measured(workspace, step.step, step.spec, golden, retriever, budgets, step.expand)
    return replace(row, retriever=step.retriever)


def measure_fixes(workspace, spec: SplitterSpec | str, *, golden=None, retriever=None, context_model: str = "",
                  context_problem: str = "", expand: int = 1,
                  budgets: tuple[int, ...] = DEFAULT_BUDGETS) -> FixesTable:
    """The table for ``spec`` over ``workspace`` (rows as ``fix_steps`` plans them)."""
    if not isinstance(retriever, Retriever):
        retriever = workspace.retriever(retriever)
    steps = fix_steps(workspace, spec, context_model=context_model, context_problem=context_problem, expand=expand,
                      retriever=retriever)
    measured = list(dict.fromkeys(step.spec for step in steps if not step.omitted and not step.expand))
    # A streamed corpus measures every step in one pass (a held one, when asked).
    workspace.measure_ahead([(step, None) for step in measured], measured, expand=(expand,), retriever=retriever,
                            golden=(golden, measured, budgets, (0, expand)) if golden else None)
    rows = [measure_step(workspace, step, golden=golden, retriever=retriever, budgets=budgets) for step in steps]
    return FixesTable.of(spec, retriever, golden, rows, budgets)


def _measured(workspace, step: str, spec: SplitterSpec, golden, retriever, budgets, expand: int = 0) -> FixRow:
    probe = workspace.probe(spec, retriever=retriever, expand=expand)
    recall, by_kind, recalled, intervals = {}, {}, {}, probe_intervals(probe)
    if golden is not None:
        result = golden_recall(workspace, golden, spec, budgets=budgets, retriever=retriever, expand=expand)
        recall = {b: result.recall(b) for b in budgets}
        by_kind = {kind: {b: hits / total for b, (hits, total) in row.items()}
                   for kind, row in result.by_kind().items()}
        recalled = {b: answered(result.hits(b)) for b in budgets}
        shown = result.as_dict()["intervals"]
        intervals.update(recall=shown["recall"], recall_by_kind=shown.get("by_kind", {}))
    suspects = None if expand else suspect_summary(workspace, str(spec)).flagged
    return FixRow(step, str(spec), chunks=workspace.summarize(spec).chunks, ctx_tokens=probe.context_tokens,
                  answer=probe.answer_rate, cut=probe.cut_rate, recall=recall, by_kind=by_kind, suspects=suspects,
                  expand=expand, answered=answered(probe.hits()), recalled=recalled, intervals=intervals)


def format_fixes(section: dict, intervals: bool = False) -> list[str]:
    """The fixes table's lines (from ``FixesTable.to_dict``); with ``intervals``, each rate's
    95% interval on the line below and which steps change answer@5 or recall beyond noise."""
    budgets = section["budgets"]
    golden = f"; golden set {section['golden']}" if section["golden"] else ""
    kinds = sorted({k for row in section["rows"] for k in row.get("recall_by_kind", {})})
    widths = [max(7, len(k) + 2) for k in kinds]
    wide = max(len(row["spec"]) for row in section["rows"]) + 2
    answer, cut, recall = (12, 12, 12) if intervals else (7, 6, 8)
    lines = [f"g. the fixes, cheapest first, from {section['spec']}; ranked by {section['retriever']}{golden}"
             + (", 95% intervals below" if intervals else ""),
             f"{'step':22s}{'spec':{wide}s}{'chunks':>6s}{'ctx tok':>8s}{'ans@5':>{answer}s}{'cut':>{cut}s}"
             + ("".join(f"{'r@' + str(b):>{recall}s}" for b in budgets) if section["golden"] else "")
             + "".join(f"{k:>{w}s}" for k, w in zip(kinds, widths)) + f"{'suspects':>9s}"]
    for row in section["rows"]:
        if "omitted" in row:
            lines.append(f"{row['label']:22s}{row['spec']:{wide}s}omitted: {row['omitted']}")
            continue
        cells = (f"{row['label']:22s}{row['spec']:{wide}s}{row['chunks']:6d}{round(row['ctx_tokens']):8d}"
                 f"{percent_cell(row['answer_at_5'], answer)}{percent_cell(row['cut'], cut)}")
        if section["golden"]:
            cells += "".join(f"{row['recall'][str(b)]:{recall}.1%}" for b in budgets)
        first = str(budgets[0])
        cells += "".join(f"{row['recall_by_kind'][k][first]:{w}.1%}" if k in row["recall_by_kind"]
                         else f"{'-':>{w}s}" for k, w in zip(kinds, widths))
        cells += f"{row['suspects']:9d}" if row["suspects"] is not None else f"{'-':>9s}"
        lines.append(cells)
        if intervals and row.get("intervals"):
            bounds = row["intervals"]
            lines.append(bounds_line([(answer, bounds["answer_at_5"]), (cut, bounds["cut"])]
                                     + ([(recall, bounds["recall"][str(b)]) for b in budgets]
                                        if section["golden"] else []), 22 + wide + 14))
    lines.append("   suspects: chunks with an automatic orphan hint; per-kind columns: golden recall of the "
                 f"boundary questions within {budgets[0]} tokens")
    if intervals and "steps" in section:
        lines += steps_lines(section["steps"])
    return lines


def steps_sentence(steps: list[dict]) -> str:
    """Which steps change a measure beyond noise against the step before them, in a sentence
    (empty without steps)."""
    if not steps:
        return ""
    real, tested, significant = [], 0, 0
    for step in steps:
        changes = []
        for measure, test in step.items():
            if isinstance(test, dict) and test["of"]:  # a measure of nothing tests nothing
                tested += 1
                if test["significant"]:
                    significant += 1
                    way = "gains" if test["difference"] > 0 else "loses"
                    changes.append(f"{way} {abs(100 * test['difference']):.1f} points of {measure} "
                                   f"(p {p_text(test['p_value'])})")
        if changes:
            real.append(f"{step['label']} {' and '.join(changes)} over {step['versus']}")
    if not tested:
        return ("No step can be told from the one before it: the probe drew no query from this corpus's "
                "figure sentences and no golden set is loaded.")
    if not real:
        return "No step changes answer@5 or recall beyond noise against the step before it."
    sentence = "; ".join(real) + "; " + ("the other changes are within noise." if significant < tested
                                         else "every change is beyond noise.")
    return sentence[0].upper() + sentence[1:]


def steps_lines(steps: list[dict]) -> list[str]:
    """``steps_sentence`` wrapped under the table."""
    import textwrap

    return textwrap.wrap(steps_sentence(steps), 100, initial_indent="   ", subsequent_indent="   ")
